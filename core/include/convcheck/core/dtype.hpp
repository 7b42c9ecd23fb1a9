// Data types of the canonical descriptor and exact conversions between them.
//
// f16 is IEEE 754 binary16 (1 sign, 5 exponent, 10 fraction bits); bf16 is the upper half of a
// binary32 (1 sign, 8 exponent, 7 fraction bits). Narrowing rounds to nearest, ties to even;
// NaN stays NaN (quiet, sign kept), infinities stay infinities, values past the largest finite
// magnitude round to infinity exactly as IEEE 754 says, subnormals and -0 are kept.
// f8_e4m3 and f8_e5m2 are the OCP 8-bit floating-point formats (core/float8.hpp says how they convert: round to
// nearest even, non-saturating: an E4M3 overflow is its NaN, an E5M2 overflow infinity).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace convcheck {

// The values are the plugin ABI's convcheck_dtype values (CONVCHECK_F32 .. CONVCHECK_F64, CONVCHECK_F8_E4M3,
// CONVCHECK_F8_E5M2); 4 to 6 are the ABI's integer types, which are not float descriptor types. f64 is IEEE 754
// binary64, the reference's own arithmetic: a value of it is a double, read and written without a rounding.
enum class DataType : int { f32 = 0, f16 = 1, bf16 = 2, f64 = 3, f8_e4m3 = 7, f8_e5m2 = 8 };

// f8_e4m3 or f8_e5m2.
bool is_fp8(DataType dtype);

// "f32", "f16", "bf16", "f64", "f8_e4m3", "f8_e5m2".
std::string_view to_string(DataType dtype);
// Parses those names; returns false on anything else.
bool parse_data_type(std::string_view text, DataType* dtype);
// Bytes of one element in storage.
int size_of(DataType dtype);
// Unit roundoff of the type: 2^-24 (f32), 2^-11 (f16), 2^-8 (bf16), 2^-53 (f64), 2^-4 (f8_e4m3), 2^-3 (f8_e5m2).
double unit_roundoff(DataType dtype);

// Widening: exact (every f16 and bf16 value is a float).
float f16_to_f32(std::uint16_t bits);
float bf16_to_f32(std::uint16_t bits);

// Narrowing from float, round to nearest even.
std::uint16_t f32_to_f16(float value);
std::uint16_t f32_to_bf16(float value);

// Narrowing from double in ONE rounding step (no double rounding through float):
// this is the reference's "round the exact result to the output type" step.
std::uint16_t f64_to_f16(double value);
std::uint16_t f64_to_bf16(double value);

// The value `value` takes after rounding once to `dtype`, as a double.
double round_to(DataType dtype, double value);

// Reads / writes element `index` of a buffer of `dtype` as a double (exact on read).
double load_as_double(const void* data, DataType dtype, std::int64_t index);
void store_from_double(void* data, DataType dtype, std::int64_t index, double value);

}  // namespace convcheck
