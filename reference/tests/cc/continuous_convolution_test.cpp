// The CC reference on the ABI's f32 buffers: a hand-computed case, the channel sum, bias, the
// accuracy-contract outputs, and clear errors for bad input.
#include <gtest/gtest.h>

#include "convcheck/reference_tests/cc_fixtures.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

TEST(ContinuousConvolution, HalfScaleLinearByHand) {
    // in = [1 2 3 4] (1 x 4), s_w = 1/2, linear kernel, support 2: g = 0.5, 2.5, neighbours
    // (0, 1) and (2, 3) at distances +-1/2 -> weights 1/2 each: outputs 1.5 and 3.5.
    // Vertical axis: in 1, s 1, support 2: g = 0, window [-1, 1) -> m = -1 (outside, zero), 0 (D = 0).
    const CcDescriptor d = parse_cc_descriptor("cin=1,cout=1,in=1x4,scale=1x1/2,kernel=linear");
    const std::vector<float> src{1, 2, 3, 4};
    const ConvResult r = continuous_convolution(d, src.data(), nullptr, nullptr);
    EXPECT_EQ(r.dst, (std::vector<double>{1.5, 3.5}));
    EXPECT_EQ(r.magnitude, (std::vector<double>{1.5, 3.5}));
    EXPECT_EQ(r.terms, (std::vector<std::int64_t>{2, 2}));
}

TEST(ContinuousConvolution, SumsOverInputChannelsAndAddsBias) {
    // analytic kernels give every (cout, cin) the same weight: out = bias + sum over cin of the resize
    const CcDescriptor two = parse_cc_descriptor("cin=2,cout=2,in=1x4,scale=1x1/2,kernel=linear,bias=1");
    const std::vector<float> src{1, 2, 3, 4, 10, 20, 30, 40}, bias{100, -100};
    const ConvResult r = continuous_convolution(two, src.data(), nullptr, bias.data());
    EXPECT_EQ(r.dst, (std::vector<double>{116.5, 138.5, -83.5, -61.5}));
    EXPECT_EQ(r.terms, (std::vector<std::int64_t>{5, 5, 5, 5}));
    EXPECT_EQ(r.magnitude[0], 100 + 1.5 + 15);
}

TEST(ContinuousConvolution, ThetaBufferIsTheAbiOrder) {
    const CcDescriptor d = parse_cc_descriptor("n=2,cin=2,cout=3,in=5x4,scale=2/3x3/2,hidden=4x3,bias=1");
    const InternalNet net = initialise_internal_net(d, 99);
    const std::vector<double> theta64 = net.theta();
    std::vector<float> theta(theta64.begin(), theta64.end());
    const auto src64 = cctest::uniform(d.src_elements(), 5);
    const std::vector<float> src(src64.begin(), src64.end());
    const std::vector<float> bias{0.5f, -0.25f, 1.0f};
    const ConvResult r = continuous_convolution(d, src.data(), theta.data(), bias.data());
    // the same through the double API with theta rounded to f32 as the buffer holds it
    const std::vector<double> theta_f32(theta.begin(), theta.end()), src_f32(src.begin(), src.end());
    const ConvResult e = cc_four_blocks(d, src_f32, ContinuousKernel(internal_net_from_theta(d, theta_f32)),
                                        std::vector<double>{0.5, -0.25, 1.0});
    EXPECT_EQ(r.dst, e.dst) << cctest::reproducer(d, 5);
    EXPECT_EQ(r.dst.size(), static_cast<std::size_t>(d.dst_elements()));
}

TEST(ContinuousConvolution, BadInputIsAClearError) {
    const std::vector<float> src(64, 1.0f);
    const CcDescriptor net = parse_cc_descriptor("cin=1,cout=1,in=4");
    EXPECT_THROW(continuous_convolution(net, src.data(), nullptr, nullptr), ConvError);  // theta missing
    const CcDescriptor biased = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear,bias=1");
    EXPECT_THROW(continuous_convolution(biased, src.data(), nullptr, nullptr), ConvError);  // bias missing
    EXPECT_THROW(continuous_convolution(biased, nullptr, nullptr, src.data()), ConvError);  // src missing
    CcDescriptor bad = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear");
    bad.output_size[0] = 0;
    try {
        continuous_convolution(bad, src.data(), nullptr, nullptr);
        ADD_FAILURE() << "accepted output size 0";
    } catch (const ConvError& e) {
        EXPECT_NE(e.attribute().find("output_size"), std::string::npos) << e.what();
    }
    bad = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear");
    bad.support[1] = 0;
    EXPECT_THROW(continuous_convolution(bad, src.data(), nullptr, nullptr), ConvError);
    bad = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear");
    bad.scale[0] = CcScale::real(0.0);
    EXPECT_THROW(continuous_convolution(bad, src.data(), nullptr, nullptr), ConvError);
    bad.scale[0] = CcScale{-3, 4, -0.75};
    EXPECT_THROW(continuous_convolution(bad, src.data(), nullptr, nullptr), ConvError);
}

TEST(ContinuousConvolution, ChunkingByOutputRowsChangesNothing) {
    // Sec. 5: chunked computation; every chunk size gives the bit-identical result
    for (const char* text : {"n=2,cin=2,cout=3,in=7x5,scale=3/2x4/5,support=3x2,bias=1",
                             "cin=1,cout=2,in=9x4,scale=0.77x1.3,kernel=cubic"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        const auto src = cctest::uniform(d.src_elements(), 11);
        const auto bias = d.has_bias ? cctest::uniform(d.out_channels, 12) : std::vector<double>{};
        const ContinuousKernel kernel = cctest::kernel_for(d, 13);
        const ConvResult whole = cc_four_blocks(d, src, kernel, bias, d.output_size[0]);
        for (std::int64_t rows : {1, 2, 4, 100}) {
            const ConvResult chunked = cc_four_blocks(d, src, kernel, bias, rows);
            EXPECT_EQ(chunked.dst, whole.dst) << rows << " rows per chunk; " << cctest::reproducer(d, 11);
            EXPECT_EQ(chunked.magnitude, whole.magnitude) << rows;
            EXPECT_EQ(chunked.terms, whole.terms) << rows;
        }
    }
}

