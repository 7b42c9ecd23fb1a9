// A buffer's values widened to f32, exactly (f16 and bf16 are subsets of f32): for code that accumulates
// 16-bit data in f32 on copies (the optimized and mutants transposed convolutions).
#pragma once

#include <cstdint>
#include <vector>

#include "convcheck/core/dtype.hpp"

namespace convcheck {

// The first `count` values of a buffer of `dtype` as f32.
std::vector<float> widened_to_f32(const void* data, DataType dtype, std::int64_t count);

}  // namespace convcheck
