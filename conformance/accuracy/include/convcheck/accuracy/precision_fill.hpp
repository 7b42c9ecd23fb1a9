// Precision mode's data (docs/accuracy.md, "Precision mode"): exact results that need every
// significand bit of the inputs, so a backend that rounds f32 inputs to TF32 or bf16 inside (oneDNN's
// fpmath mode, PyTorch's allow_tf32) fails deterministically, and the message says which.
//
// Each output channel has one non-zero weight tap. Even output channels: the tap reads src channel
// 0 of its group, whose values use every significand bit (+-(1 + m 2^(1-p)) 2^k, m odd), and the
// weight is a power of two. Odd output channels (with >= 2 input channels per group): the tap reads
// src channel 1, whose values are powers of two, and the weight uses every bit. Every product is then
// exact in p bits, every other product is 0 and the bias is 0: each exact result is one p-bit value,
// the only right answer in any accumulation type of >= p significand bits, whatever the order.
#pragma once

#include <cstdint>

#include "convcheck/accuracy/accuracy.hpp"

namespace convcheck::accuracy {

RandomFill make_precision_fill(const ConvDescriptor& d, std::uint64_t seed);

// `value` rounded to nearest (ties to even) to `bits` significand bits, exponent range unlimited:
// TF32 is 11 bits (f32's exponent, a 10-bit fraction), bf16 8 bits.
double round_significand(double value, int bits);

// The reduced input precisions the diagnosis tries: {name, significand bits}.
struct ReducedPrecision {
    const char* name;
    int bits;
};
inline constexpr ReducedPrecision kReducedPrecisions[] = {{"TF32 (10-bit fraction)", 11}, {"bf16 (7-bit fraction)", 8}};

}  // namespace convcheck::accuracy
