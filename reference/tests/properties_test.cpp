// Properties that the seed texts imply, checked on reading 1 (the reference) with random problems.
// Integer data keeps every sum exact in double, so every comparison is ==.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>

#include "convcheck/reference/as_if.hpp"
#include "convcheck/reference/convolution.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using testdata::for_each_index;
using testdata::offset;

namespace {

std::vector<double> conv(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                         const std::vector<double>& bias) {
    return reference::convolution_summation(d, src, weights, d.has_bias ? bias : std::vector<double>{}).dst;
}

// f32, NCX/OIX, small sizes: the properties are about geometry and arithmetic, not storage.
testgen::DescriptorLimits canonical_limits() {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    return lim;
}

ConvDescriptor arbitrary_descriptor() { return *testgen::valid_descriptor(canonical_limits()); }
std::uint64_t arbitrary_seed() { return *rc::gen::arbitrary<std::uint32_t>(); }

void assert_equal(const std::vector<double>& got, const std::vector<double>& want, const std::string& repro) {
    if (got.size() != want.size())
        RC_FAIL("size " + std::to_string(got.size()) + " != " + std::to_string(want.size()) + "; " + repro);
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i])
            RC_FAIL("element " + std::to_string(i) + ": " + std::to_string(got[i]) + " != " + std::to_string(want[i]) +
                    "; " + repro);
}

}  // namespace

RC_GTEST_PROP(Properties, LinearInTheInput, ()) {
    auto d = arbitrary_descriptor();
    d.has_bias = false;
    const auto seed = arbitrary_seed();
    const auto repro = testdata::repro(d, seed);
    std::mt19937_64 rng(seed);
    const auto x1 = testdata::integers(d.src_elements(), rng), x2 = testdata::integers(d.src_elements(), rng);
    const auto w = testdata::integers(d.weights_elements(), rng);
    const double a = 3, b = -2;
    std::vector<double> mix(x1.size());
    for (std::size_t i = 0; i < mix.size(); ++i) mix[i] = a * x1[i] + b * x2[i];
    const auto y1 = conv(d, x1, w, {}), y2 = conv(d, x2, w, {});
    std::vector<double> want(y1.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = a * y1[i] + b * y2[i];
    assert_equal(conv(d, mix, w, {}), want, repro);
}

RC_GTEST_PROP(Properties, LinearInTheWeights, ()) {
    auto d = arbitrary_descriptor();
    d.has_bias = false;
    const auto seed = arbitrary_seed();
    const auto repro = testdata::repro(d, seed);
    std::mt19937_64 rng(seed);
    const auto x = testdata::integers(d.src_elements(), rng);
    const auto w1 = testdata::integers(d.weights_elements(), rng), w2 = testdata::integers(d.weights_elements(), rng);
    const double a = -5, b = 2;
    std::vector<double> mix(w1.size());
    for (std::size_t i = 0; i < mix.size(); ++i) mix[i] = a * w1[i] + b * w2[i];
    const auto y1 = conv(d, x, w1, {}), y2 = conv(d, x, w2, {});
    std::vector<double> want(y1.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = a * y1[i] + b * y2[i];
    assert_equal(conv(d, x, mix, {}), want, repro);
}

// A kernel that is 1 at one tap t (input channel oc to output channel oc) copies the input:
// dst(n, oc, o) = src(n, oc, o*s - p_b + t*d), and 0 where that position is padding.
RC_GTEST_PROP(Properties, DeltaKernelGivesTheShiftedSubsampledInput, ()) {
    auto d = arbitrary_descriptor();
    d.out_channels = d.in_channels;  // one output channel per input channel (divisible by groups)
    d.has_bias = false;
    const auto seed = arbitrary_seed();
    const auto repro = testdata::repro(d, seed);
    std::vector<std::int64_t> tap(d.rank);
    for (int a = 0; a < d.rank; ++a) tap[a] = *rc::gen::inRange<std::int64_t>(0, d.kernel_size[a]);
    const auto p = testdata::make_problem(d, seed);

    const auto wshape = testdata::weights_shape_oix(d);
    std::vector<double> delta(p.weights.size(), 0.0);
    for (std::int64_t oc = 0; oc < d.out_channels; ++oc) {
        std::vector<std::int64_t> index{oc, oc % d.in_channels_per_group()};
        index.insert(index.end(), tap.begin(), tap.end());
        delta[offset(wshape, index)] = 1.0;
    }
    const auto sshape = testdata::src_shape_ncx(d), oshape = testdata::dst_shape_ncx(d);
    std::vector<double> want(d.dst_elements(), 0.0);
    for_each_index(oshape, [&](const std::vector<std::int64_t>& o) {
        std::vector<std::int64_t> x{o[0], o[1]};
        bool inside = true;
        for (int a = 0; a < d.rank; ++a) {
            x.push_back(o[2 + a] * d.strides[a] - d.pads_begin[a] + tap[a] * d.dilations[a]);
            inside = inside && x.back() >= 0 && x.back() < d.input_size[a];
        }
        want[offset(oshape, o)] = inside ? p.src[offset(sshape, x)] : 0.0;
    });
    assert_equal(conv(d, p.src, delta, {}), want, repro);
}

// Stride s is stride 1 followed by keeping every s-th output.
RC_GTEST_PROP(Properties, StrideIsSubsamplingOfStrideOne, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = testdata::make_problem(d, seed);
    ConvDescriptor dense = d;
    for (int a = 0; a < d.rank; ++a) dense.strides[a] = 1;
    const auto full = conv(dense, p.src, p.weights, p.bias);
    const auto fshape = testdata::dst_shape_ncx(dense), oshape = testdata::dst_shape_ncx(d);
    std::vector<double> want(d.dst_elements());
    for_each_index(oshape, [&](const std::vector<std::int64_t>& o) {
        std::vector<std::int64_t> f{o[0], o[1]};
        for (int a = 0; a < d.rank; ++a) f.push_back(o[2 + a] * d.strides[a]);
        want[offset(oshape, o)] = full[offset(fshape, f)];
    });
    assert_equal(conv(d, p.src, p.weights, p.bias), want, testdata::repro(d, seed));
}

// Dilation d is a dense convolution with a kernel of (k-1)*d+1 taps, zeros between the taps.
RC_GTEST_PROP(Properties, DilationIsADenseConvolutionWithAZeroStuffedKernel, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = testdata::make_problem(d, seed);
    ConvDescriptor stuffed = d;
    for (int a = 0; a < d.rank; ++a) {
        stuffed.kernel_size[a] = d.dilated_kernel(a);
        stuffed.dilations[a] = 1;
    }
    const auto wshape = testdata::weights_shape_oix(d), sshape = testdata::weights_shape_oix(stuffed);
    std::vector<double> stuffed_weights(stuffed.weights_elements(), 0.0);
    for_each_index(wshape, [&](const std::vector<std::int64_t>& k) {
        std::vector<std::int64_t> j{k[0], k[1]};
        for (int a = 0; a < d.rank; ++a) j.push_back(k[2 + a] * d.dilations[a]);
        stuffed_weights[offset(sshape, j)] = p.weights[offset(wshape, k)];
    });
    assert_equal(conv(stuffed, p.src, stuffed_weights, p.bias), conv(d, p.src, p.weights, p.bias),
                 testdata::repro(d, seed));
}

// G groups are G independent convolutions (channels g*IC_G.. in, g*OC_G.. out), concatenated on O.
RC_GTEST_PROP(Properties, GroupsAreSeparateConvolutionsConcatenated, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = testdata::make_problem(d, seed);
    const std::int64_t G = d.groups, ICg = d.in_channels_per_group(), OCg = d.out_channels_per_group();
    const auto sshape = testdata::src_shape_ncx(d), oshape = testdata::dst_shape_ncx(d);
    std::vector<double> want(d.dst_elements());
    for (std::int64_t g = 0; g < G; ++g) {
        ConvDescriptor one = d;
        one.groups = 1;
        one.in_channels = ICg;
        one.out_channels = OCg;
        const auto one_sshape = testdata::src_shape_ncx(one), one_oshape = testdata::dst_shape_ncx(one);
        std::vector<double> src(one.src_elements());
        for_each_index(one_sshape, [&](const std::vector<std::int64_t>& x) {
            auto whole = x;
            whole[1] += g * ICg;
            src[offset(one_sshape, x)] = p.src[offset(sshape, whole)];
        });
        const std::int64_t per_oc = one.weights_elements() / OCg;
        std::vector<double> weights(p.weights.begin() + g * OCg * per_oc, p.weights.begin() + (g + 1) * OCg * per_oc);
        std::vector<double> bias;
        if (d.has_bias) bias.assign(p.bias.begin() + g * OCg, p.bias.begin() + (g + 1) * OCg);
        const auto part = conv(one, src, weights, bias);
        for_each_index(one_oshape, [&](const std::vector<std::int64_t>& o) {
            auto whole = o;
            whole[1] += g * OCg;
            want[offset(oshape, whole)] = part[offset(one_oshape, o)];
        });
    }
    assert_equal(conv(d, p.src, p.weights, p.bias), want, testdata::repro(d, seed));
}

// Rank r equals rank r+1 with a leading unit axis (in 1, kernel 1, no pads; any stride, dilation).
RC_GTEST_PROP(Properties, AUnitAxisChangesNothing, ()) {
    auto lim = canonical_limits();
    lim.max_rank = 2;
    const auto d = *testgen::valid_descriptor(lim);
    const auto seed = arbitrary_seed();
    const auto p = testdata::make_problem(d, seed);
    ConvDescriptor lifted = d;
    lifted.rank = d.rank + 1;
    for (int a = d.rank; a > 0; --a) {
        lifted.input_size[a] = d.input_size[a - 1];
        lifted.kernel_size[a] = d.kernel_size[a - 1];
        lifted.strides[a] = d.strides[a - 1];
        lifted.dilations[a] = d.dilations[a - 1];
        lifted.pads_begin[a] = d.pads_begin[a - 1];
        lifted.pads_end[a] = d.pads_end[a - 1];
    }
    lifted.input_size[0] = lifted.kernel_size[0] = 1;
    lifted.strides[0] = *rc::gen::inRange<std::int64_t>(1, 4);
    lifted.dilations[0] = *rc::gen::inRange<std::int64_t>(1, 4);
    lifted.pads_begin[0] = lifted.pads_end[0] = 0;
    RC_ASSERT(lifted.output_size(0) == 1);
    // [N][C][1][x...] has the same memory order as [N][C][x...]
    assert_equal(conv(lifted, p.src, p.weights, p.bias), conv(d, p.src, p.weights, p.bias),
                 testdata::repro(d, seed) + " lifted to " + to_string(lifted));
}

// The whole reference on storage buffers: NXC / XIO (and NCX / OIX), every dtype, written here with
// index arithmetic of its own, give the canonical result; the output rounds once to the dtype.
RC_GTEST_PROP(Properties, LayoutsAreReordersOfTheCanonicalProblem, ()) {
    const auto d = *testgen::valid_descriptor();  // any dtype and formats
    const auto seed = arbitrary_seed();
    const auto repro = testdata::repro(d, seed);
    const auto p = testdata::make_problem(d, seed);  // small integers: exact in f16 and bf16 too
    const std::int64_t C = d.in_channels, O = d.out_channels, I = d.in_channels_per_group();
    std::int64_t X = 1, K = 1, Y = 1;
    for (int a = 0; a < d.rank; ++a) {
        X *= d.input_size[a];
        K *= d.kernel_size[a];
        Y *= d.output_size(a);
    }
    const bool nxc = d.data_format == DataFormat::nxc, xio = d.filter_format == FilterFormat::xio;
    const int bytes = size_of(d.dtype);
    std::vector<unsigned char> src(d.src_elements() * bytes), weights(d.weights_elements() * bytes),
        bias(d.bias_elements() * bytes), dst(d.dst_elements() * bytes);
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t x = 0; x < X; ++x)
                store_from_double(src.data(), d.dtype, nxc ? (n * X + x) * C + c : (n * C + c) * X + x,
                                  p.src[(n * C + c) * X + x]);
    for (std::int64_t o = 0; o < O; ++o)
        for (std::int64_t i = 0; i < I; ++i)
            for (std::int64_t k = 0; k < K; ++k)
                store_from_double(weights.data(), d.dtype, xio ? (k * I + i) * O + o : (o * I + i) * K + k,
                                  p.weights[(o * I + i) * K + k]);
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) store_from_double(bias.data(), d.dtype, o, p.bias[o]);

    const auto exact = reference::convolution_summation(d, p.src, p.weights, p.bias);
    const auto got = reference::convolution(d, src.data(), weights.data(), bias.data());
    assert_equal(got.dst, exact.dst, repro);
    RC_ASSERT(got.magnitude == exact.magnitude);
    RC_ASSERT(got.terms == exact.terms);

    reference::round_dst_to_output(d, got.dst, dst.data());
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t y = 0; y < Y; ++y) {
                const double stored = load_as_double(dst.data(), d.dtype, nxc ? (n * Y + y) * O + o : (n * O + o) * Y + y);
                const double want = round_to(d.dtype, exact.dst[(n * O + o) * Y + y]);
                if (stored != want) RC_FAIL("dst (n,o,y) = (" + std::to_string(n) + "," + std::to_string(o) + "," +
                                            std::to_string(y) + ") stored " + std::to_string(stored) + "; " + repro);
            }
}

// "bias - a 1-D tensor adds to channel dimension": with bias minus without is bias[oc], exactly.
RC_GTEST_PROP(Properties, BiasAddsAConstantPerOutputChannel, ()) {
    auto d = arbitrary_descriptor();
    d.has_bias = true;
    const auto seed = arbitrary_seed();
    const auto p = testdata::make_problem(d, seed);
    ConvDescriptor unbiased = d;
    unbiased.has_bias = false;
    const auto with = reference::convolution_summation(d, p.src, p.weights, p.bias);
    const auto without = reference::convolution_summation(unbiased, p.src, p.weights, {});
    const std::int64_t per_channel = d.dst_elements() / (d.batch * d.out_channels);
    for (std::size_t i = 0; i < with.dst.size(); ++i) {
        const std::int64_t oc = (static_cast<std::int64_t>(i) / per_channel) % d.out_channels;
        if (with.dst[i] - without.dst[i] != p.bias[oc] || with.terms[i] != without.terms[i] + 1 ||
            with.magnitude[i] != without.magnitude[i] + std::abs(p.bias[oc]))
            RC_FAIL("output " + std::to_string(i) + "; " + testdata::repro(d, seed));
    }
}

// f16 / bf16 buffers widen exactly: the reference on random finite bit patterns equals the
// summation on the decoded values (any rounding at the edge would show as a difference).
RC_GTEST_PROP(Properties, HalfPrecisionInputsWidenExactly, ()) {
    auto lim = canonical_limits();
    auto d = *testgen::valid_descriptor(lim);
    d.dtype = *rc::gen::element(DataType::f16, DataType::bf16);
    const auto seed = arbitrary_seed();
    std::mt19937_64 rng(seed);
    auto random_finite = [&](std::int64_t count, std::vector<std::uint16_t>* bits, std::vector<double>* values) {
        std::uniform_int_distribution<unsigned> pattern(0, 0xffff);
        for (std::int64_t i = 0; i < count; ++i) {
            std::uint16_t b;
            double v;
            do {
                b = static_cast<std::uint16_t>(pattern(rng));
                v = d.dtype == DataType::f16 ? f16_to_f32(b) : bf16_to_f32(b);
            } while (!std::isfinite(v) || std::abs(v) > 1e4 || (v != 0 && std::abs(v) < 1e-4));
            bits->push_back(b);
            values->push_back(v);
        }
    };
    std::vector<std::uint16_t> src_bits, weight_bits, bias_bits;
    std::vector<double> src, weights, bias;
    random_finite(d.src_elements(), &src_bits, &src);
    random_finite(d.weights_elements(), &weight_bits, &weights);
    random_finite(d.bias_elements(), &bias_bits, &bias);
    const auto got = reference::convolution(d, src_bits.data(), weight_bits.data(), bias_bits.data());
    const auto want = reference::convolution_summation(d, src, weights, bias);
    assert_equal(got.dst, want.dst, testdata::repro(d, seed));
}

// The output rounding is ONE rounding from the exact (double) result, not double -> f32 -> half.
// Exact result 1 + 2^-11 + 2^-30 (f16) and 1 + 2^-8 + 2^-30 (bf16): just above the midpoint between
// 1 and the next half value, so it rounds up; through f32 the 2^-30 is lost, the value lands on the
// midpoint and ties to even (down, to 1).
TEST(Properties, OutputRoundingIsASingleRounding) {
    for (auto [dtype, half_ulp] : {std::pair{DataType::f16, std::ldexp(1.0, -11)},
                                   std::pair{DataType::bf16, std::ldexp(1.0, -8)}}) {
        auto d = parse_descriptor("c=1,o=1,in=3,k=3,dt=" + std::string(to_string(dtype)));
        // src = [1, half_ulp, 2^-15], weights = [1, 1, 2^-15]: every value is exact in the dtype
        const std::vector<double> src{1.0, half_ulp, std::ldexp(1.0, -15)}, weights{1.0, 1.0, std::ldexp(1.0, -15)};
        std::vector<std::uint16_t> src_bits(3), weight_bits(3), dst_bits(1);
        reference::ncx_to_src(d, src, src_bits.data());
        reference::oix_to_weights(d, weights, weight_bits.data());
        const auto r = reference::convolution(d, src_bits.data(), weight_bits.data(), nullptr);
        ASSERT_EQ(r.dst[0], 1.0 + half_ulp + std::ldexp(1.0, -30)) << to_string(d);
        reference::round_dst_to_output(d, r.dst, dst_bits.data());
        const double once = load_as_double(dst_bits.data(), dtype, 0);
        EXPECT_EQ(once, 1.0 + 2 * half_ulp) << to_string(d);
        const float through_f32 = static_cast<float>(r.dst[0]);
        const std::uint16_t twice = dtype == DataType::f16 ? f32_to_f16(through_f32) : f32_to_bf16(through_f32);
        EXPECT_EQ(load_as_double(&twice, dtype, 0), 1.0) << "the double-rounded value, for contrast; " << to_string(d);
    }
}
