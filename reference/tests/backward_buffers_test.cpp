// The backward passes on storage buffers (backward.hpp's edges): every dtype (f32, f16, bf16) and
// layout (NCX/NXC for src, dst and their gradients; OIX/XIO for weights), written here with index
// arithmetic of the test's own, give the canonical sums; each gradient is stored rounded ONCE from
// the exact double, as the forward's dst is.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>

#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/convolution.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {

// The descriptor's shapes, flattened: X input positions, Y output positions, K kernel taps.
struct Extents {
    std::int64_t X = 1, Y = 1, K = 1;
};

Extents extents(const ConvDescriptor& d) {
    Extents e;
    for (int a = 0; a < d.rank; ++a) {
        e.X *= d.input_size[a];
        e.Y *= d.output_size(a);
        e.K *= d.kernel_size[a];
    }
    return e;
}

// Offset of (n, c, x) in an activation of `channels` x `spatial` in the descriptor's data format.
std::int64_t activation(const ConvDescriptor& d, std::int64_t n, std::int64_t c, std::int64_t x, std::int64_t channels,
                        std::int64_t spatial) {
    return d.data_format == DataFormat::nxc ? (n * spatial + x) * channels + c : (n * channels + c) * spatial + x;
}

// Offset of (o, i, k) in the weights in the descriptor's filter format.
std::int64_t filter(const ConvDescriptor& d, std::int64_t o, std::int64_t i, std::int64_t k, std::int64_t K) {
    const std::int64_t O = d.out_channels, I = d.in_channels_per_group();
    return d.filter_format == FilterFormat::xio ? (k * I + i) * O + o : (o * I + i) * K + k;
}

// Canonical NCX doubles of `channels` x `spatial` -> a buffer of d.dtype in d.data_format.
std::vector<unsigned char> activation_buffer(const ConvDescriptor& d, const std::vector<double>& ncx,
                                             std::int64_t channels, std::int64_t spatial) {
    std::vector<unsigned char> b(ncx.size() * size_of(d.dtype));
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t c = 0; c < channels; ++c)
            for (std::int64_t x = 0; x < spatial; ++x)
                store_from_double(b.data(), d.dtype, activation(d, n, c, x, channels, spatial),
                                  ncx[(n * channels + c) * spatial + x]);
    return b;
}

std::vector<unsigned char> weights_buffer(const ConvDescriptor& d, const std::vector<double>& oix, std::int64_t K) {
    std::vector<unsigned char> b(oix.size() * size_of(d.dtype));
    const std::int64_t I = d.in_channels_per_group();
    for (std::int64_t o = 0; o < d.out_channels; ++o)
        for (std::int64_t i = 0; i < I; ++i)
            for (std::int64_t k = 0; k < K; ++k)
                store_from_double(b.data(), d.dtype, filter(d, o, i, k, K), oix[(o * I + i) * K + k]);
    return b;
}

void assert_equal(const std::vector<double>& got, const std::vector<double>& want, const std::string& what,
                  const std::string& repro) {
    RC_ASSERT(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i])
            RC_FAIL(what + ": element " + std::to_string(i) + ": " + std::to_string(got[i]) + " != " +
                    std::to_string(want[i]) + "; " + repro);
}

}  // namespace

RC_GTEST_PROP(BackwardBuffers, EveryDtypeAndLayoutGivesTheCanonicalGradientsRoundedOnce, ()) {
    const auto d = *testgen::valid_descriptor();  // any dtype and formats
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const auto repro = testdata::repro(d, seed);
    const auto p = testdata::make_problem(d, seed);  // small integers: exact in f16 and bf16 too
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    const auto diff_dst = testdata::integers(d.dst_elements(), rng);
    const auto e = extents(d);
    const std::int64_t C = d.in_channels, O = d.out_channels, I = d.in_channels_per_group();

    const auto src_buffer = activation_buffer(d, p.src, C, e.X);
    const auto diff_dst_buffer = activation_buffer(d, diff_dst, O, e.Y);
    const auto w_buffer = weights_buffer(d, p.weights, e.K);

    const auto want_data = reference::backward_data_summation(d, diff_dst, p.weights);
    const auto want_weights = reference::backward_weights_summation(d, p.src, diff_dst);
    const auto want_bias = reference::backward_bias_summation(d, diff_dst);
    const auto data = reference::backward_data(d, diff_dst_buffer.data(), w_buffer.data());
    reference::GradientResult bias;
    const auto weights = reference::backward_weights(d, src_buffer.data(), diff_dst_buffer.data(), &bias);
    assert_equal(data.values, want_data.values, "diff_src", repro);
    RC_ASSERT(data.terms == want_data.terms);
    assert_equal(weights.values, want_weights.values, "diff_weights", repro);
    RC_ASSERT(weights.magnitude == want_weights.magnitude);
    if (d.has_bias) {
        assert_equal(bias.values, want_bias.values, "diff_bias", repro);
    } else {
        RC_ASSERT(bias.values.empty());  // BWD_W: no bias gradient asked for, none written
    }

    // One rounding to d.dtype, stored in the gradient's own layout.
    const int bytes = size_of(d.dtype);
    std::vector<unsigned char> diff_src(d.src_elements() * bytes), diff_weights(d.weights_elements() * bytes),
        diff_bias(O * bytes);
    reference::ncx_to_src(d, data.values, diff_src.data());
    reference::oix_to_weights(d, weights.values, diff_weights.data());
    reference::round_bias_to_output(d, want_bias.values, diff_bias.data());
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t x = 0; x < e.X; ++x)
                if (load_as_double(diff_src.data(), d.dtype, activation(d, n, c, x, C, e.X)) !=
                    round_to(d.dtype, want_data.values[(n * C + c) * e.X + x]))
                    RC_FAIL("stored diff_src (n,c,x) = (" + std::to_string(n) + "," + std::to_string(c) + "," +
                            std::to_string(x) + "); " + repro);
    for (std::int64_t o = 0; o < O; ++o) {
        for (std::int64_t i = 0; i < I; ++i)
            for (std::int64_t k = 0; k < e.K; ++k)
                if (load_as_double(diff_weights.data(), d.dtype, filter(d, o, i, k, e.K)) !=
                    round_to(d.dtype, want_weights.values[(o * I + i) * e.K + k]))
                    RC_FAIL("stored diff_weights (o,i,k) = (" + std::to_string(o) + "," + std::to_string(i) + "," +
                            std::to_string(k) + "); " + repro);
        if (load_as_double(diff_bias.data(), d.dtype, o) != round_to(d.dtype, want_bias.values[o]))
            RC_FAIL("stored diff_bias " + std::to_string(o) + "; " + repro);
    }
}

// As for the forward dst (OutputRoundingIsASingleRounding): an exact gradient of 1 + 2^-11 + 2^-30
// (f16) or 1 + 2^-8 + 2^-30 (bf16) lies just above the midpoint between 1 and the next value, so it
// rounds up; through f32 the 2^-30 would be lost and the tie would go to even (1).
//   diff_src (c=1, o=3, in=1, k=1):   sum_o diff_dst[o] * W[o]      = 1*1 + half_ulp*1 + 2^-15*2^-15
//   diff_weights (c=1, o=1, in=3, k=1): sum_y src[y] * diff_dst[y]  = the same three products
TEST(BackwardBuffers, GradientsRoundOnceFromTheExactSum) {
    for (auto [dtype, half_ulp] : {std::pair{DataType::f16, std::ldexp(1.0, -11)},
                                   std::pair{DataType::bf16, std::ldexp(1.0, -8)}}) {
        const std::string dt = ",dt=" + std::string(to_string(dtype));
        const std::vector<double> a{1.0, half_ulp, std::ldexp(1.0, -15)}, b{1.0, 1.0, std::ldexp(1.0, -15)};
        const double exact = 1.0 + half_ulp + std::ldexp(1.0, -30), once = 1.0 + 2 * half_ulp;
        std::vector<std::uint16_t> a_bits(3), b_bits(3), out(1);

        const auto data_d = parse_descriptor("c=1,o=3,in=1,k=1" + dt);
        reference::round_dst_to_output(data_d, a, a_bits.data());  // diff_dst [1][3][1]
        reference::oix_to_weights(data_d, b, b_bits.data());       // weights [3][1][1]
        const auto diff_src = reference::backward_data(data_d, a_bits.data(), b_bits.data());
        ASSERT_EQ(diff_src.values[0], exact) << to_string(data_d);
        reference::ncx_to_src(data_d, diff_src.values, out.data());
        EXPECT_EQ(load_as_double(out.data(), dtype, 0), once) << to_string(data_d);

        const auto weights_d = parse_descriptor("c=1,o=1,in=3,k=1" + dt);
        reference::ncx_to_src(weights_d, a, a_bits.data());           // src [1][1][3]
        reference::round_dst_to_output(weights_d, b, b_bits.data());  // diff_dst [1][1][3]
        const auto diff_weights = reference::backward_weights(weights_d, a_bits.data(), b_bits.data(), nullptr);
        ASSERT_EQ(diff_weights.values[0], exact) << to_string(weights_d);
        reference::oix_to_weights(weights_d, diff_weights.values, out.data());
        EXPECT_EQ(load_as_double(out.data(), dtype, 0), once) << to_string(weights_d);

        const auto bias_d = parse_descriptor("c=1,o=1,in=3,k=1,bias=1" + dt);
        reference::round_bias_to_output(bias_d, std::vector<double>{exact}, out.data());
        EXPECT_EQ(load_as_double(out.data(), dtype, 0), once) << to_string(bias_d);
    }
}
