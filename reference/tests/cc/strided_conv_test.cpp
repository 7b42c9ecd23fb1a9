// Paper, Sec. 4: "A standard Conv-layer is a special case of the CC-Layer: when the scale-factor
// s = 1/k, k in N, and k has the same parity as the kernel support size in both dimensions, g_n in
// Eq. 2 reduces to simple grid locations with integer pixel spacing between them. Thus, all output
// grid points share the same set of local distances to their discrete input 'Neighbors'."
//
// Checked against the discrete reference (reading 1 of discrete convolution): CC with s = 1/k equals
// a stride-k convolution whose kernel samples K_theta at the grid distances.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <numeric>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/convolution.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

struct Case {
    CcDescriptor cc;
    std::array<std::int64_t, 2> k{};  // s = 1/k per axis
};

// The discrete kernel OIX [Cout][Cin][k_h][k_w] with tap (j_h, j_w) = K(D_h(j_h), D_w(j_w)).
std::vector<double> sampled_kernel(const CcDescriptor& d, const ContinuousKernel& kernel,
                                   const std::array<std::vector<double>, 2>& distances) {
    const std::int64_t CO = d.out_channels, CI = d.in_channels, KH = d.support[0], KW = d.support[1];
    std::vector<double> weights(static_cast<std::size_t>(CO * CI * KH * KW)), w(static_cast<std::size_t>(CO * CI));
    for (std::int64_t jh = 0; jh < KH; ++jh)
        for (std::int64_t jw = 0; jw < KW; ++jw) {
            kernel.evaluate(distances[0][jh], distances[1][jw], w);
            for (std::int64_t co = 0; co < CO; ++co)
                for (std::int64_t ci = 0; ci < CI; ++ci) weights[((co * CI + ci) * KH + jh) * KW + jw] = w[co * CI + ci];
        }
    return weights;
}

ConvDescriptor strided_conv(const CcDescriptor& d, const std::array<std::int64_t, 2>& k,
                            const std::array<std::int64_t, 2>& pads_begin) {
    ConvDescriptor c;
    c.rank = 2;
    c.batch = d.batch;
    c.in_channels = d.in_channels;
    c.out_channels = d.out_channels;
    c.has_bias = d.has_bias;
    for (int a = 0; a < 2; ++a) {
        c.input_size[a] = d.input_size[a];
        c.kernel_size[a] = d.support[a];
        c.strides[a] = k[a];
        c.pads_begin[a] = pads_begin[a];
        // choose the end pad (negative: crop) so that the conv has exactly out outputs
        c.pads_end[a] = (d.output_size[a] - 1) * k[a] + d.support[a] - d.input_size[a] - pads_begin[a];
    }
    validate(c);
    return c;
}

void expect_equal_results(const ConvResult& cc, const ConvResult& conv, const std::string& repro) {
    ASSERT_EQ(cc.dst.size(), conv.dst.size()) << repro;
    for (std::size_t o = 0; o < cc.dst.size(); ++o) {
        ASSERT_EQ(cc.terms[o], conv.terms[o]) << "output " << o << "; " << repro;
        ASSERT_LE(std::fabs(cc.dst[o] - conv.dst[o]), cctest::double_bound(cc.magnitude[o], cc.terms[o]))
            << "output " << o << ": CC " << cc.dst[o] << " vs conv " << conv.dst[o] << "; " << repro;
    }
}

rc::Gen<Case> inverse_integer_case(bool same_parity_and_divisible) {
    return rc::gen::exec([same_parity_and_divisible] {
        Case c;
        CcDescriptor& d = c.cc;
        d.batch = *rc::gen::inRange<std::int64_t>(1, 3);
        d.in_channels = *rc::gen::inRange<std::int64_t>(1, 4);
        d.out_channels = *rc::gen::inRange<std::int64_t>(1, 4);
        d.kernel = *rc::gen::element(CcKernel::internal_net, CcKernel::cubic, CcKernel::gaussian);
        d.kernel_parameter = d.kernel == CcKernel::gaussian ? 0.9 : 0.0;
        d.hidden_widths = {6, 5};
        d.has_bias = *rc::gen::arbitrary<bool>();
        for (int a = 0; a < 2; ++a) {
            c.k[a] = *rc::gen::inRange<std::int64_t>(1, 5);
            d.scale[a] = CcScale::exact(Rational(1, c.k[a]));
            if (same_parity_and_divisible) {
                d.support[a] = c.k[a] % 2 + 2 * *rc::gen::inRange<std::int64_t>(c.k[a] % 2 == 0 ? 1 : 0, 3);
                d.output_size[a] = *rc::gen::inRange<std::int64_t>(1, 6);
                d.input_size[a] = d.output_size[a] * c.k[a];
            } else {
                d.support[a] = *rc::gen::inRange<std::int64_t>(1, 6);
                d.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 16);
                d.output_size[a] = cc_default_output_size(d.scale[a], d.input_size[a]);
            }
        }
        validate(d);
        return c;
    });
}

}  // namespace

RC_GTEST_PROP(InverseIntegerScale, SameParityIsACentredStridedConv, ()) {
    // s = 1/k, support of k's parity, in = k * out: the distances are the symmetric set
    // (k_s - 1)/2 - j, j = 0..k_s-1, and the conv starts at pads_begin = (k_s - k)/2
    const Case c = *inverse_integer_case(true);
    const CcDescriptor& d = c.cc;
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 100000);
    const std::string repro = cctest::reproducer(d, seed);
    RC_LOG() << repro;
    std::array<std::vector<double>, 2> distances;
    std::array<std::int64_t, 2> pads_begin{};
    for (int a = 0; a < 2; ++a) {
        for (std::int64_t j = 0; j < d.support[a]; ++j) distances[a].push_back(0.5 * static_cast<double>(d.support[a] - 1) - j);
        pads_begin[a] = (d.support[a] - c.k[a]) / 2;
    }
    const ContinuousKernel kernel = cctest::kernel_for(d, seed);
    const auto src = cctest::uniform(d.src_elements(), seed + 1);
    const auto bias = d.has_bias ? cctest::uniform(d.out_channels, seed + 2) : std::vector<double>{};
    const ConvDescriptor conv = strided_conv(d, c.k, pads_begin);
    expect_equal_results(cc_four_blocks(d, src, kernel, bias),
                         reference::convolution_summation(conv, src, sampled_kernel(d, kernel, distances), bias),
                         repro + " vs " + to_string(conv));
    RC_ASSERT(!::testing::Test::HasFailure());
}

RC_GTEST_PROP(InverseIntegerScale, AnyInverseIntegerScaleSharesOneSetOfWeights, ()) {
    // for every s = 1/k the grid has integer spacing k, so every output sees the distances of output
    // 0: CC is the stride-k conv with those taps, starting at the first neighbour of output 0
    const Case c = *inverse_integer_case(false);
    const CcDescriptor& d = c.cc;
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 100000);
    const std::string repro = cctest::reproducer(d, seed);
    RC_LOG() << repro;
    std::array<std::vector<double>, 2> distances;
    std::array<std::int64_t, 2> pads_begin{};
    for (int a = 0; a < 2; ++a) {
        const AxisWindow w = neighbour_window(projected_grid_axis(d, a), d.support[a]);
        distances[a].assign(w.distance.begin(), w.distance.begin() + d.support[a]);
        for (std::int64_t n = 1; n < d.output_size[a]; ++n)
            for (std::int64_t j = 0; j < d.support[a]; ++j) RC_ASSERT(w.distance[n * d.support[a] + j] == distances[a][j]);
        pads_begin[a] = -w.first[0];
    }
    const ContinuousKernel kernel = cctest::kernel_for(d, seed);
    const auto src = cctest::uniform(d.src_elements(), seed + 1);
    const auto bias = d.has_bias ? cctest::uniform(d.out_channels, seed + 2) : std::vector<double>{};
    const ConvDescriptor conv = strided_conv(d, c.k, pads_begin);
    expect_equal_results(cc_four_blocks(d, src, kernel, bias),
                         reference::convolution_summation(conv, src, sampled_kernel(d, kernel, distances), bias),
                         repro + " vs " + to_string(conv));
    RC_ASSERT(!::testing::Test::HasFailure());
}

TEST(InverseIntegerScale, ParityDecidesWhetherTheWindowIsCentred) {
    // Sec. 4: "in case of an even scale with odd-sized filter, standard conv-layers introduce small
    // misalignments": with s = 1/2 (grid on 0.5, 2.5, ...) a support of 2 is centred (distances
    // +-1/2) while a support of 3 is not (1.5, 0.5, -0.5); with s = 1/3 (grid on 1, 4, 7) it is the
    // other way round.
    auto distance_sum = [](const std::string& text) {
        const CcDescriptor d = parse_cc_descriptor(text);
        const AxisWindow w = neighbour_window(projected_grid_axis(d, 0), d.support[0]);
        return std::accumulate(w.distance.begin(), w.distance.begin() + d.support[0], 0.0);
    };
    EXPECT_EQ(distance_sum("cin=1,cout=1,in=8,scale=1/2,support=2"), 0.0);
    EXPECT_EQ(distance_sum("cin=1,cout=1,in=8,scale=1/2,support=4"), 0.0);
    EXPECT_EQ(distance_sum("cin=1,cout=1,in=8,scale=1/2,support=3"), 1.5);
    EXPECT_EQ(distance_sum("cin=1,cout=1,in=9,scale=1/3,support=3"), 0.0);
    EXPECT_EQ(distance_sum("cin=1,cout=1,in=9,scale=1/3,support=2"), 1.0);
}
