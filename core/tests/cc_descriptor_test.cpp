// The CC descriptor: canonical string, defaults, exact default output size, and clear errors.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "convcheck/core/cc_descriptor.hpp"

using namespace convcheck;

namespace {

void expect_error(const std::string& text, const std::string& attribute_part) {
    try {
        const CcDescriptor d = parse_cc_descriptor(text);
        ADD_FAILURE() << "accepted: " << text << " -> " << to_string(d);
    } catch (const ConvError& e) {
        EXPECT_NE(e.attribute().find(attribute_part), std::string::npos) << text << ": " << e.what();
        EXPECT_FALSE(e.rule().empty()) << text;
    }
}

}  // namespace

TEST(CcDescriptor, PrintsEveryMeaningfulField) {
    const auto d = parse_cc_descriptor("cin=3,cout=8,in=32x32,scale=2/3x5/7");
    EXPECT_EQ(to_string(d),
              "cc:n=1,cin=3,cout=8,in=32x32,scale=2/3x5/7,out=22x23,support=3x3,kernel=net,hidden=16x16,"
              "slope=0.01,bias=0,dt=f32");
    const auto g = parse_cc_descriptor("cin=1,cout=1,in=8,scale=0.7071,kernel=gaussian,sigma=0.75,bias=1");
    EXPECT_EQ(to_string(g), "cc:n=1,cin=1,cout=1,in=8x8,scale=0.7071x0.7071,out=6x6,support=3x3,kernel=gaussian,"
                            "sigma=0.75,bias=1,dt=f32");
}

TEST(CcDescriptor, DefaultOutputSizeIsExactCeil) {
    // SPEC-NOTES §4: float ceil(1.1 * 50) = 56; the exact ceil of 11/10 * 50 is 55
    EXPECT_EQ(parse_cc_descriptor("cin=1,cout=1,in=50,scale=11/10").output_size[0], 55);
    // the real scale 1.1 (1.1 * 50 = 55.000000000000007 in double) snaps within the tolerance
    EXPECT_GT(1.1 * 50.0, 55.0);
    EXPECT_EQ(parse_cc_descriptor("cin=1,cout=1,in=50,scale=1.1").output_size[0], 55);
    // paper Fig. 4: in = 4, s = 0.6 and 1.4 give 3 and 6 (intrinsic 2.4 and 5.6)
    const auto fig4 = parse_cc_descriptor("cin=1,cout=1,in=4,scale=3/5x7/5");
    EXPECT_EQ(fig4.output_size, (std::array<std::int64_t, 2>{3, 6}));
    const auto fig4_real = parse_cc_descriptor("cin=1,cout=1,in=4,scale=0.6x1.4");
    EXPECT_EQ(fig4_real.output_size, (std::array<std::int64_t, 2>{3, 6}));
}

TEST(CcDescriptor, ScaleOrOutputSize) {
    // only out: the scale is out/in exactly
    const auto d = parse_cc_descriptor("cin=2,cout=2,in=12x9,out=8x6");
    EXPECT_TRUE(d.scale[0].is_rational());
    EXPECT_EQ(d.scale[0].rational(), Rational(2, 3));
    EXPECT_EQ(d.scale[1].rational(), Rational(2, 3));
    // neither: scale 1, out = in
    const auto same = parse_cc_descriptor("cin=1,cout=1,in=5x7");
    EXPECT_EQ(same.output_size, (std::array<std::int64_t, 2>{5, 7}));
    EXPECT_EQ(same.scale[1].rational(), Rational(1));
    // both: the given out with the given s (paper: "we will usually (but not always)" use ceil)
    const auto both = parse_cc_descriptor("cin=1,cout=1,in=10,scale=1/2,out=7");
    EXPECT_EQ(both.output_size[0], 7);
    EXPECT_EQ(both.scale[0].rational(), Rational(1, 2));
}

TEST(CcDescriptor, KernelDefaults) {
    EXPECT_EQ(parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear").support, (std::array<std::int64_t, 2>{2, 2}));
    EXPECT_EQ(parse_cc_descriptor("cin=1,cout=1,in=4,kernel=cubic").support, (std::array<std::int64_t, 2>{4, 4}));
    const auto g = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=gaussian");
    EXPECT_EQ(g.kernel_parameter, 0.5);
    const auto net = parse_cc_descriptor("cin=3,cout=5,in=4");
    EXPECT_EQ(net.hidden_widths, (std::array<std::int64_t, 2>{16, 16}));
    EXPECT_EQ(net.leaky_relu_slope, 0.01);
    EXPECT_EQ(net.theta_elements(), 16 * 2 + 16 + 16 * 16 + 16 + 15 * 16 + 15);
    EXPECT_EQ(parse_cc_descriptor("cin=3,cout=5,in=4,kernel=cubic").theta_elements(), 0);
}

TEST(CcDescriptor, EqualityComparesWhatTheKernelUses) {
    // hidden widths and slope mean nothing to an analytic kernel, sigma nothing to the net
    const auto a = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear,hidden=3x3,slope=0.5");
    const auto b = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear");
    EXPECT_EQ(a, b);
    EXPECT_FALSE(parse_cc_descriptor("cin=1,cout=1,in=4,hidden=3x3") == parse_cc_descriptor("cin=1,cout=1,in=4"));
    EXPECT_FALSE(parse_cc_descriptor("cin=1,cout=1,in=4,kernel=gaussian,sigma=1") ==
                 parse_cc_descriptor("cin=1,cout=1,in=4,kernel=gaussian"));
    EXPECT_EQ(parse_cc_descriptor("cin=1,cout=1,in=4,sigma=2"), parse_cc_descriptor("cin=1,cout=1,in=4"));
    // a scale given as 4/6 is the scale 2/3
    EXPECT_EQ(parse_cc_descriptor("cin=1,cout=1,in=6,scale=4/6"), parse_cc_descriptor("cin=1,cout=1,in=6,scale=2/3"));
}

TEST(CcDescriptor, RealScaleNeverReadsBackAsRational) {
    const auto d = parse_cc_descriptor("cin=1,cout=1,in=4,scale=2.0x1e0");
    EXPECT_FALSE(d.scale[0].is_rational());
    EXPECT_EQ(d.scale[0].to_string(), "2.0");
    EXPECT_EQ(parse_cc_descriptor(to_string(d)), d);
    EXPECT_FALSE(parse_cc_descriptor("cin=1,cout=1,in=4,scale=2").scale[0] == d.scale[0]);  // 2/1 is exact
}

TEST(CcDescriptor, BadInputNamesTheAttribute) {
    expect_error("cin=1,cout=1,in=4,scale=0", "scale");
    expect_error("cin=1,cout=1,in=4,scale=-1/2", "scale");
    expect_error("cin=1,cout=1,in=4,scale=1/0", "scale");
    expect_error("cin=1,cout=1,in=4,scale=-0.5", "scale");
    expect_error("cin=1,cout=1,in=4,scale=0.0", "scale");
    expect_error("cin=1,cout=1,in=4,scale=inf", "scale");
    expect_error("cin=1,cout=1,in=4,scale=nan", "scale");
    expect_error("cin=1,cout=1,in=4,scale=1/1e3", "scale");
    expect_error("cin=1,cout=1,in=4,out=0", "output_size");
    expect_error("cin=1,cout=1,in=4,scale=1/2,out=3x0", "output_size");
    expect_error("cin=1,cout=1,in=4,support=0", "support");
    expect_error("cin=1,cout=1,in=4,support=3x-1", "support");
    expect_error("cin=0,cout=1,in=4", "in_channels");
    expect_error("cin=1,cout=1,in=0", "input_size");
    expect_error("cin=1,cout=1,in=4,hidden=0x16", "hidden");
    expect_error("cin=1,cout=1,in=4,kernel=gaussian,sigma=0", "sigma");
    expect_error("cin=1,cout=1,in=4,kernel=box", "kernel");
    expect_error("cin=1,cout=1,in=4,dt=f16", "dtype");
    expect_error("cin=1,cout=1,in=4,slope=abc", "slope");
    expect_error("cin=1,cout=1,in=4,stride=2", "stride");
    expect_error("cin=1,cout=1", "in");
    expect_error("cin=1,cout=1,in=4x4x4", "in");
    // a scale whose exact grid does not fit 64-bit rational arithmetic
    expect_error("cin=1,cout=1,in=4,scale=1/4611686018427387903,out=4", "scale");
    expect_error("cin=1,cout=1,in=4611686018427387903,scale=4", "scale");
    // a real scale whose grid leaves the exactly representable range
    expect_error("cin=1,cout=1,in=4,scale=1e-300,out=3", "scale");
    expect_error("cin=1,cout=1,in=1000000,scale=1e15", "scale");
}

TEST(CcDescriptor, DirectStructValidation) {
    CcDescriptor d;
    d.scale[1] = CcScale{0, 3, 0.0};
    EXPECT_THROW(validate(d), ConvError);
    d.scale[1] = CcScale{2, -3, 0.0};
    EXPECT_THROW(validate(d), ConvError);
    d.scale[1] = CcScale::real(-1.0);
    EXPECT_THROW(validate(d), ConvError);
    d.scale[1] = CcScale{4, 6, 4.0 / 6.0};  // not in lowest terms: still the exact value 2/3
    EXPECT_NO_THROW(validate(d));
    EXPECT_TRUE(d.scale[1] == CcScale::exact(Rational(2, 3)));
    d.kernel = static_cast<CcKernel>(7);
    EXPECT_THROW(validate(d), ConvError);
}

namespace {

rc::Gen<CcScale> any_scale() {
    return rc::gen::oneOf(rc::gen::map(rc::gen::pair(rc::gen::inRange<std::int64_t>(1, 40), rc::gen::inRange<std::int64_t>(1, 40)),
                                       [](auto pq) { return CcScale::exact(Rational(pq.first, pq.second)); }),
                          rc::gen::map(rc::gen::inRange(1, 1000000), [](int v) { return CcScale::real(v / 250000.0 + 1e-3); }));
}

}  // namespace

RC_GTEST_PROP(CcDescriptor, ParsePrintRoundTrip, ()) {
    CcDescriptor d;
    d.batch = *rc::gen::inRange<std::int64_t>(1, 4);
    d.in_channels = *rc::gen::inRange<std::int64_t>(1, 6);
    d.out_channels = *rc::gen::inRange<std::int64_t>(1, 6);
    d.kernel = *rc::gen::element(CcKernel::internal_net, CcKernel::linear, CcKernel::cubic, CcKernel::gaussian);
    if (d.kernel == CcKernel::gaussian) d.kernel_parameter = *rc::gen::inRange(1, 100) / 37.0;
    d.hidden_widths = {*rc::gen::inRange<std::int64_t>(1, 33), *rc::gen::inRange<std::int64_t>(1, 33)};
    d.leaky_relu_slope = *rc::gen::inRange(0, 100) / 300.0;
    d.has_bias = *rc::gen::arbitrary<bool>();
    for (int a = 0; a < 2; ++a) {
        d.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 40);
        d.scale[a] = *any_scale();
        d.support[a] = *rc::gen::inRange<std::int64_t>(1, 7);
        d.output_size[a] = *rc::gen::inRange(0, 2) ? cc_default_output_size(d.scale[a], d.input_size[a])
                                                   : *rc::gen::inRange<std::int64_t>(1, 60);
    }
    validate(d);
    const std::string text = to_string(d);
    RC_LOG() << "descriptor: " << text;
    RC_ASSERT(parse_cc_descriptor(text) == d);
    RC_ASSERT(to_string(parse_cc_descriptor(text)) == text);
}

RC_GTEST_PROP(CcDescriptor, RealAndExactDefaultOutputSizesAgree, ()) {
    // away from the tolerance, a real scale p/q and the exact p/q give the same ceil(s * in)
    const std::int64_t p = *rc::gen::inRange<std::int64_t>(1, 100), q = *rc::gen::inRange<std::int64_t>(1, 100);
    const std::int64_t in = *rc::gen::inRange<std::int64_t>(1, 5000);
    RC_LOG() << "scale " << p << "/" << q << ", in " << in;
    RC_ASSERT(cc_default_output_size(CcScale::exact(Rational(p, q)), in) ==
              cc_default_output_size(CcScale::real(static_cast<double>(p) / static_cast<double>(q)), in));
}
