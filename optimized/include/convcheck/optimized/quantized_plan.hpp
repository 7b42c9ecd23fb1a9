// The optimized quantized (integer) convolution (docs/quantized.md, docs/optimized.md): a plan that validates a
// quantized descriptor, packs the weights once and runs on u8/s8 buffers in the descriptor's formats. On a CPU
// with AVX-512 VNNI, u8/s8 src with s8 weights and no weights zero point run on VPDPBUSD (exact s32 sums of u8 x s8
// products; an s8 src moved to u8 and corrected per output channel); every other case runs on int16 copies (src
// and weights minus their zero points, exact int16 x int16 products summed in int32). Then the bias and the
// requantization rule the caller names; implementation() says which path.
//
//   optimized::QuantizedPlan plan(q, weights_scales, weights, bias, {.threads = 2});
//   plan.execute(src, dst);
//
// Integer sums are exact, so the result is the same for any thread count and any order. Written apart from
// the reference (its rules are this file's own), which the tests check it against.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "convcheck/core/quantized_descriptor.hpp"

namespace convcheck::optimized {

// How an s32 accumulator becomes a u8/s8 output (ABI 1.5's convcheck_requantization).
enum class QuantizedRounding {
    double_rounding,   // gemmlowp: Q31 multiplier, high half rounded ties up, then a shift rounded ties away
    single_rounding,   // one 64-bit product and one shift, ties up
    nearest_even_f32,  // f32(acc) * f32(M), the nearest integer, ties to even, then + the zero point
    nearest_even_f32_with_zero_point,  // f32(acc) * f32(M) + the zero point in f32, then the nearest integer
};
std::string_view to_string(QuantizedRounding rounding);
bool parse_quantized_rounding(std::string_view text, QuantizedRounding* rounding);

struct QuantizedOptions {
    int threads = 0;  // 0: TBB's default; otherwise an arena of exactly this many
    QuantizedRounding rounding = QuantizedRounding::nearest_even_f32_with_zero_point;  // oneDNN's
};

class QuantizedPlan {
public:
    // q is validated (ConvError); strided tensors and OXI weights are refused (why_layout_unsupported).
    // weights_scales: one, or one per output channel. weights: in q's filter format and type; bias: O int32
    // values or null when !has_bias. Both are read here only.
    QuantizedPlan(const QuantizedDescriptor& q, std::span<const float> weights_scales, const void* weights,
                  const std::int32_t* bias, QuantizedOptions options = {});
    ~QuantizedPlan();
    QuantizedPlan(QuantizedPlan&&) noexcept;
    QuantizedPlan& operator=(QuantizedPlan&&) noexcept;

    // src in q's data format and type; dst likewise.
    void execute(const void* src, void* dst) const;
    std::string implementation() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace convcheck::optimized
