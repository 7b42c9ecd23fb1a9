// Paper, Sec. 5: "for rational-numbers scale-factors (s = k/l) the grid is periodic, with a period
// equals the numerator k ... we use a set of standard discrete convolution filters, each with a
// different starting shift matching a different grid position within one period. We apply them to
// the input feature-map and interleave their results."
//
// For s = p/q in lowest terms: g_{n+p} = g_n + q, so output n = p*t + r is output t of a stride-q
// discrete convolution whose taps sample K_theta at the distances of output r and whose window
// starts at the first neighbour of output r. Checked on both axes at once (p_h * p_w convolutions)
// against the discrete reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/convolution.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

rc::Gen<CcDescriptor> rational_case() {
    return rc::gen::exec([] {
        CcDescriptor d;
        d.batch = *rc::gen::inRange<std::int64_t>(1, 3);
        d.in_channels = *rc::gen::inRange<std::int64_t>(1, 3);
        d.out_channels = *rc::gen::inRange<std::int64_t>(1, 3);
        d.kernel = *rc::gen::element(CcKernel::internal_net, CcKernel::cubic, CcKernel::linear);
        d.hidden_widths = {5, 4};
        d.has_bias = *rc::gen::arbitrary<bool>();
        for (int a = 0; a < 2; ++a) {
            d.scale[a] = CcScale::exact(Rational(*rc::gen::inRange<std::int64_t>(1, 6), *rc::gen::inRange<std::int64_t>(1, 6)));
            d.support[a] = *rc::gen::inRange<std::int64_t>(1, 5);
            d.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 10);
            d.output_size[a] = cc_default_output_size(d.scale[a], d.input_size[a]) + *rc::gen::inRange<std::int64_t>(0, 3);
        }
        validate(d);
        return d;
    });
}

}  // namespace

RC_GTEST_PROP(RationalScale, IsPInterleavedStrideQConvolutions, ()) {
    const CcDescriptor d = *rational_case();
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 100000);
    const std::string repro = cctest::reproducer(d, seed);
    RC_LOG() << repro;
    const ContinuousKernel kernel = cctest::kernel_for(d, seed);
    const auto src = cctest::uniform(d.src_elements(), seed + 1);
    const auto bias = d.has_bias ? cctest::uniform(d.out_channels, seed + 2) : std::vector<double>{};
    const ConvResult cc = cc_four_blocks(d, src, kernel, bias);

    const std::array<Rational, 2> s{d.scale[0].rational(), d.scale[1].rational()};
    const AxisWindow window[2] = {neighbour_window(projected_grid_axis(d, 0), d.support[0]),
                                  neighbour_window(projected_grid_axis(d, 1), d.support[1])};
    const std::int64_t CO = d.out_channels, CI = d.in_channels, KH = d.support[0], KW = d.support[1];
    const std::int64_t OH = d.output_size[0], OW = d.output_size[1];
    std::int64_t checked = 0;
    for (std::int64_t rh = 0; rh < std::min(s[0].numerator(), OH); ++rh)
    for (std::int64_t rw = 0; rw < std::min(s[1].numerator(), OW); ++rw) {
        // the discrete convolution of residue (rh, rw): stride q, start at the first neighbour of r
        const std::int64_t r[2] = {rh, rw};
        ConvDescriptor conv;
        conv.rank = 2;
        conv.batch = d.batch;
        conv.in_channels = CI;
        conv.out_channels = CO;
        conv.has_bias = d.has_bias;
        std::int64_t outs[2];
        for (int a = 0; a < 2; ++a) {
            const std::int64_t p = s[a].numerator(), q = s[a].denominator();
            outs[a] = (d.output_size[a] - r[a] + p - 1) / p;  // how many n = p*t + r are outputs
            conv.input_size[a] = d.input_size[a];
            conv.kernel_size[a] = d.support[a];
            conv.strides[a] = q;
            conv.pads_begin[a] = -window[a].first[r[a]];
            conv.pads_end[a] = (outs[a] - 1) * q + d.support[a] - d.input_size[a] - conv.pads_begin[a];
        }
        validate(conv);
        std::vector<double> taps(static_cast<std::size_t>(CO * CI * KH * KW)), w(static_cast<std::size_t>(CO * CI));
        for (std::int64_t jh = 0; jh < KH; ++jh)
            for (std::int64_t jw = 0; jw < KW; ++jw) {
                kernel.evaluate(window[0].distance[rh * KH + jh], window[1].distance[rw * KW + jw], w);
                for (std::int64_t co = 0; co < CO; ++co)
                    for (std::int64_t ci = 0; ci < CI; ++ci) taps[((co * CI + ci) * KH + jh) * KW + jw] = w[co * CI + ci];
            }
        const ConvResult part = reference::convolution_summation(conv, src, taps, bias);
        // interleave: CC output (p_h*th + rh, p_w*tw + rw) is output (th, tw) of this convolution
        for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t co = 0; co < CO; ++co)
        for (std::int64_t th = 0; th < outs[0]; ++th)
        for (std::int64_t tw = 0; tw < outs[1]; ++tw) {
            const std::int64_t oh = s[0].numerator() * th + rh, ow = s[1].numerator() * tw + rw;
            const std::size_t o = static_cast<std::size_t>(((n * CO + co) * OH + oh) * OW + ow);
            const std::size_t t = static_cast<std::size_t>(((n * CO + co) * outs[0] + th) * outs[1] + tw);
            RC_ASSERT(cc.terms[o] == part.terms[t]);
            RC_ASSERT(std::fabs(cc.dst[o] - part.dst[t]) <= cctest::double_bound(cc.magnitude[o], cc.terms[o]));
            ++checked;
        }
    }
    RC_ASSERT(checked == d.dst_elements());  // every CC output came from exactly one residue
}

TEST(RationalScale, TwoThirdsNeedsTwoFilters) {
    // appendix B: "the scale factor is 2/3 so we have 2 filters": the distances repeat with period 2
    const CcDescriptor d = parse_cc_descriptor("cin=1,cout=1,in=12,scale=2/3,support=3");
    const AxisWindow w = neighbour_window(projected_grid_axis(d, 0), 3);
    ASSERT_EQ(w.first.size(), 8u);
    for (std::size_t n = 0; n + 2 < 8; ++n) {
        EXPECT_EQ(w.first[n + 2], w.first[n] + 3) << "n=" << n;
        for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(w.exact_distance[(n + 2) * 3 + j], w.exact_distance[n * 3 + j]);
    }
    // and the two phases differ
    EXPECT_NE(w.exact_distance[0], w.exact_distance[3]);
}
