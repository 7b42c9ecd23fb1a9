// Test helpers for the optimized backward passes: a case's buffers (src, weights, diff_dst in the
// descriptor's dtype and formats) from canonical doubles, the optimized gradients read back in
// canonical order, the reference's gradients, and one-line reproducers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/optimized/backward_plan.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/gemm_backward_sums.hpp"
#include "convcheck/reference/gemm_summation.hpp"
#include "convcheck/testing/tensor.hpp"

namespace convcheck::optimized::testing {

// Canonical data of a backward case: src NCX, weights OIX, diff_dst NCX (dst-shaped).
struct BackwardData {
    std::vector<double> src, weights, diff_dst;
};

// Integers in [-m, m] (m >= 1), or with m = 0 uniform values in [-1, 1]; each rounded to d.dtype.
inline BackwardData make_backward_data(const ConvDescriptor& d, std::uint64_t seed, int m) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> integer(-m, m);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    const auto fill = [&](std::int64_t n) {
        std::vector<double> v(static_cast<std::size_t>(n));
        for (double& x : v) x = round_to(d.dtype, m > 0 ? integer(rng) : real(rng));
        return v;
    };
    BackwardData b;
    b.src = fill(d.src_elements());
    b.weights = fill(d.weights_elements());
    b.diff_dst = fill(d.dst_elements());
    return b;
}

// The gradients an optimized plan computed, canonical doubles: diff_src NCX, or diff_weights OIX
// followed by diff_bias (with bias), in the same order as `expected` gives the reference's.
struct Gradients {
    std::vector<double> values;
    Tensor raw;       // the output buffers as written (diff_src, or diff_weights then diff_bias bytes)
    Tensor raw_bias;
};

// The output buffers hold 0xff in every byte before the plan writes them, NaN in every f32 element (and in f16 and
// bf16), so that an element the plan never writes fails every comparison, where a zero-filled buffer would pass it
// wherever the right gradient is 0 (the zeros of a backward-data phase no tap reaches).
inline Gradients run_backward(const ConvDescriptor& d, const BackwardData& data, Options options) {
    constexpr unsigned char kPoison = 0xff;
    Tensor src(d.dtype, d.src_dims()), weights(d.dtype, d.weights_dims()), diff_dst(d.dtype, d.dst_dims());
    reference::ncx_to_src(d, data.src, src.data());
    reference::oix_to_weights(d, data.weights, weights.data());
    reference::round_dst_to_output(d, data.diff_dst, diff_dst.data());
    Gradients g;
    if (d.pass == Pass::backward_data) {
        g.raw = Tensor(d.dtype, d.src_dims());
        std::memset(g.raw.data(), kPoison, g.raw.bytes());
        BackwardDataPlan(d, weights.data(), options).execute(diff_dst.data(), g.raw.data());
        g.values = reference::src_to_ncx(d, g.raw.data());
    } else {
        g.raw = Tensor(d.dtype, d.weights_dims());
        g.raw_bias = Tensor(d.dtype, {d.out_channels});
        std::memset(g.raw.data(), kPoison, g.raw.bytes());
        std::memset(g.raw_bias.data(), kPoison, g.raw_bias.bytes());
        BackwardWeightsPlan(d, options).execute(src.data(), diff_dst.data(), g.raw.data(), d.has_bias ? g.raw_bias.data() : nullptr);
        g.values = reference::weights_to_oix(d, g.raw.data());
        if (d.has_bias)
            for (std::int64_t o = 0; o < d.out_channels; ++o) g.values.push_back(g.raw_bias.get(o));
    }
    return g;
}

// The reference's gradients in the same order as run_backward's values: where this CPU runs them
// (gemm_summation_available), the GEMM evaluators (gemm_backward_sums.hpp), as the runner's bound mode takes them
// (conformance/runner/backward/check.cpp), else the definition's (backward.hpp). The GEMM sums lie within
// gamma_n(2^-53) M of the exact sums, which the bound allows the reference, and on integer data, where every partial
// sum is exact, they are the exact sums bit for bit, as the definition's are (reference_gemm_backward_sums_test
// checks both); the term counts are the definition's. They take a third of the time the definition's did in
// Backward.HandPickedGeometriesAreExactAndWithinTheBound, whose reference sums were most of it under the sanitizers.
inline reference::GradientResult expected(const ConvDescriptor& d, const BackwardData& data) {
    const bool gemm = reference::gemm_summation_available();
    if (d.pass == Pass::backward_data)
        return gemm ? reference::gemm_backward_data_summation(d, data.diff_dst, data.weights)
                    : reference::backward_data_summation(d, data.diff_dst, data.weights);
    reference::GradientResult r = gemm ? reference::gemm_backward_weights_summation(d, data.src, data.diff_dst)
                                       : reference::backward_weights_summation(d, data.src, data.diff_dst);
    if (d.has_bias) {
        const reference::GradientResult b = reference::backward_bias_summation(d, data.diff_dst);
        r.values.insert(r.values.end(), b.values.begin(), b.values.end());
        r.magnitude.insert(r.magnitude.end(), b.magnitude.begin(), b.magnitude.end());
        r.terms.insert(r.terms.end(), b.terms.begin(), b.terms.end());
    }
    return r;
}

// The largest m such that every partial sum of every gradient element of d is an exact integer in
// f32 and in d.dtype (terms * m^2 < 2^p), or 0 when even m = 1 cannot keep them exact.
inline int exact_magnitude(const ConvDescriptor& d) {
    const reference::GradientResult shape = expected(d, make_backward_data(d, 1, 1));
    std::int64_t most = 1;
    for (const std::int64_t t : shape.terms) most = std::max(most, t);
    const int p = std::min(24, accuracy::significand_bits(d.dtype));
    for (const int m : {7, 3, 1})
        if (static_cast<double>(most) * m * m < std::ldexp(1.0, p)) return m;
    return 0;
}

// The backward paths the CPU has for d's pass (the forward paths that apply to the phases for
// backward data; the kernel families for backward weights).
inline std::vector<Path> backward_paths(const ConvDescriptor& d) {
    std::vector<Path> out;
    for (const Path p : {Path::automatic, Path::scalar, Path::im2col_gemm, Path::gemm_1x1, Path::blocked_avx2,
                         Path::blocked_avx512, Path::depthwise_avx2, Path::depthwise_avx512})
        if (why_backward_unavailable(d, p).empty()) out.push_back(p);
    return out;
}

inline std::string backward_reproducer(const ConvDescriptor& d, Path path, std::uint64_t seed, int threads = 0) {
    return to_string(d) + " path=" + std::string(to_string(path)) + " threads=" + std::to_string(threads) +
           " seed=" + std::to_string(seed);
}

}  // namespace convcheck::optimized::testing
