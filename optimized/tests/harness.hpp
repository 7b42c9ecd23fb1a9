// Test helpers: buffers in a descriptor's dtype and formats from canonical doubles, the optimized
// output read back in canonical NCX order, and one-line reproducers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "convcheck/reference/convolution.hpp"
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
// (0: TBB's default); a failure names the first path that does not, with a reproducer.
inline ::testing::AssertionResult paths_agree_exactly(const std::string& text, std::uint64_t seed,
                                                      const std::vector<Path>& paths, int threads = 1) {
    const ConvDescriptor d = parse_descriptor(text);
    const accuracy::Contract contract{d.dtype, DataType::f32};
    const accuracy::ExactFill exact = accuracy::make_exact_fill(d, contract, seed);
    const auto want = reference::convolution_summation(d, exact.src, exact.weights, exact.bias);
    for (const Path path : paths) {
        if (path != Path::automatic && !why_unavailable(d, path).empty()) continue;
        Buffers e = make_buffers(d, exact.src, exact.weights, exact.bias);
        if (!accuracy::compare_exact(want.dst, run_optimized(d, e, Options{threads, path})).passed())
            return ::testing::AssertionFailure() << reproducer(d, path, seed);
    }
    return ::testing::AssertionSuccess();
}

}  // namespace convcheck::optimized::testing
