// Test helpers: buffers in a descriptor's dtype and formats from canonical doubles, the optimized
// output read back in canonical NCX order, and one-line reproducers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/testing/tensor.hpp"

namespace convcheck::optimized::testing {

struct Buffers {
    Tensor src, weights, bias, dst;
};

// src NCX, weights OIX, bias [O] (canonical doubles) -> buffers of d.dtype in d's formats.
inline Buffers make_buffers(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                            const std::vector<double>& bias) {
    Buffers b{Tensor(d.dtype, d.src_dims()), Tensor(d.dtype, d.weights_dims()), Tensor(d.dtype, {d.bias_elements()}),
              Tensor(d.dtype, d.dst_dims())};
    reference::ncx_to_src(d, src, b.src.data());
    reference::oix_to_weights(d, weights, b.weights.data());
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) b.bias.set(o, bias[o]);
    return b;
}

// Runs the optimized plan on `b` with the given options; returns the output in NCX doubles.
inline std::vector<double> run_optimized(const ConvDescriptor& d, Buffers& b, Options options) {
    const ConvPlan plan(d, b.weights.data(), d.has_bias ? b.bias.data() : nullptr, options);
    plan.execute(b.src.data(), b.dst.data());
    return reference::dst_to_ncx(d, b.dst.data());
}

inline std::string reproducer(const ConvDescriptor& d, Path path, std::uint64_t seed) {
    return to_string(d) + " path=" + std::string(to_string(path)) + " seed=" + std::to_string(seed);
}

// Each of `paths` that this CPU has agrees exactly with the reference on `text`, on integer data of
// `seed` (exact fill: a missing, extra or misplaced tap changes the result), run on `threads` threads
// (0: TBB's default), with `options` otherwise; a failure names the first path that does not, with a reproducer.
inline ::testing::AssertionResult paths_agree_exactly(const std::string& text, std::uint64_t seed,
                                                      const std::vector<Path>& paths, int threads = 1,
                                                      Options options = {}) {
    const ConvDescriptor d = parse_descriptor(text);
    const accuracy::Contract contract{d.dtype, DataType::f32};
    const accuracy::ExactFill exact = accuracy::make_exact_fill(d, contract, seed);
    const auto want = reference::fast_convolution_summation(d, exact.src, exact.weights, exact.bias);
    for (const Path path : paths) {
        if (path != Path::automatic && !why_unavailable(d, path).empty()) continue;
        Buffers e = make_buffers(d, exact.src, exact.weights, exact.bias);
        options.threads = threads;
        options.forced_path = path;
        if (!accuracy::compare_exact(want.dst, run_optimized(d, e, options)).passed())
            return ::testing::AssertionFailure() << reproducer(d, path, seed);
    }
    return ::testing::AssertionSuccess();
}

// The blocked paths this CPU has, on `text`, at 1 and 2 threads, agree exactly with the reference on integer
// data of `seed` with src lying between two runs of NaN (a read before or after src makes some output NaN),
// and the plan's implementation() begins with the path's name followed by `kernel` (" rows", " rows pairs",
// " src_in_place").
inline ::testing::AssertionResult blocked_agree_reading_only_src(const std::string& text, std::uint64_t seed,
                                                                 const std::string& kernel) {
    const ConvDescriptor d = parse_descriptor(text);
    const accuracy::ExactFill exact = accuracy::make_exact_fill(d, accuracy::Contract{d.dtype, DataType::f32}, seed);
    const auto want = reference::fast_convolution_summation(d, exact.src, exact.weights, exact.bias);
    for (const Path path : {Path::blocked_avx2, Path::blocked_avx512}) {
        if (!why_unavailable(d, path).empty()) continue;
        Buffers b = make_buffers(d, exact.src, exact.weights, exact.bias);
        const std::size_t n = static_cast<std::size_t>(d.src_elements()), guard = 4096;
        std::vector<float> guarded(guard + n + guard, std::numeric_limits<float>::quiet_NaN());
        std::copy_n(static_cast<const float*>(b.src.data()), n, guarded.begin() + guard);
        for (int threads : {1, 2}) {
            const ConvPlan plan(d, b.weights.data(), d.has_bias ? b.bias.data() : nullptr, Options{threads, path});
            if (plan.implementation().rfind(std::string(to_string(path)) + kernel, 0) != 0)
                return ::testing::AssertionFailure() << text << " runs " << plan.implementation();
            plan.execute(guarded.data() + guard, b.dst.data());
            if (!accuracy::compare_exact(want.dst, reference::dst_to_ncx(d, b.dst.data())).passed())
                return ::testing::AssertionFailure() << reproducer(d, path, seed) << " threads=" << threads;
        }
    }
    return ::testing::AssertionSuccess();
}

// `text`: a 3x3 layer, pads 1, o output channels, in=HxW. With src 1 + i % 5 and an infinite weight on every
// kw = 0 tap, the outputs at column 0 of rows [first_row, last_row] read that tap only in the padding: the
// reference (which adds the taps inside the input only) keeps them finite, and every blocked path this CPU
// has must give exactly its values there.
inline ::testing::AssertionResult left_column_stays_finite(const std::string& text, std::int64_t first_row,
                                                           std::int64_t last_row) {
    const ConvDescriptor d = parse_descriptor(text);
    std::vector<double> src(static_cast<std::size_t>(d.src_elements())), weights(d.weights_elements()), bias;
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = 1.0 + static_cast<double>(i % 5);
    // weights [O][I][3][3]: index i % 3 == 0 is kw = 0 (9 taps per (o, i), and 9 % 3 == 0)
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = i % 3 == 0 ? std::numeric_limits<double>::infinity() : 1.0;
    const auto want = reference::fast_convolution_summation(d, src, weights, bias);
    const std::int64_t H = d.output_size(0), W = d.output_size(1);
    for (const Path path : {Path::blocked_avx2, Path::blocked_avx512}) {
        if (!why_unavailable(d, path).empty()) continue;
        Buffers b = make_buffers(d, src, weights, bias);
        const std::vector<double> got = run_optimized(d, b, Options{1, path});
        for (std::int64_t o = 0; o < d.out_channels; ++o)
            for (std::int64_t oh = first_row; oh <= last_row; ++oh) {
                const std::size_t at = static_cast<std::size_t>((o * H + oh) * W);
                if (!std::isfinite(want.dst[at]))
                    return ::testing::AssertionFailure() << "the reference is not finite at o=" << o << " oh=" << oh;
                if (got[at] != want.dst[at])
                    return ::testing::AssertionFailure() << text << " " << to_string(path) << " o=" << o << " oh=" << oh
                                                         << ": got " << got[at] << ", want " << want.dst[at];
            }
    }
    return ::testing::AssertionSuccess();
}

}  // namespace convcheck::optimized::testing
