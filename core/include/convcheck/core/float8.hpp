// The two 8-bit floating-point formats of the OCP 8-bit Floating Point Specification (OFP8), revision 1.0,
// and their exact conversions.
//
// The spec (section 4): "E4M3 ... exponent bias 7 ... Infinities N/A ... NaN S.1111.111 ... Max normal
// S.1111.110 = 1.75 * 2^8 = 448 ... Min normal S.0001.000 = 2^-6 ... Max subnorm S.0000.111 = 0.875 * 2^-6 ...
// Min subnorm S.0000.001 = 2^-9"; "E5M2 ... exponent bias 15 ... Infinities S.11111.00 ... NaN S.11111.{01, 10,
// 11} ... Max normal S.11110.11 = 1.75 * 2^15 = 57344 ... Min normal S.00001.00 = 2^-14 ... Max subnorm
// S.00000.11 = 0.75 * 2^-14 ... Min subnorm S.00000.01 = 2^-16". Zeros are S.0000.000 / S.00000.00 (+0 and -0).
//
// Conversion into either format (the spec's section 5): round to nearest, ties to even, as if the exponent
// range were unbounded; a result whose magnitude then exceeds the largest normal overflows. The spec names two
// modes for overflow: non-saturating (E4M3: NaN, E5M2: infinity) and saturating (the largest normal, sign
// kept). An infinite input is an overflow too (non-saturating: E4M3 NaN, E5M2 infinity; saturating: the
// largest normal); a NaN input gives a NaN. convcheck's reference converts non-saturating, which is oneDNN's
// choice for f8_e4m3 and f8_e5m2 (src/common/float8.cpp: "values in [448;464] round to 448 ... So we overflow
// above 464" -> S.1111.111; E5M2 "overflow above 61184" -> S.11111.00). The saturating mode (Fp8Overflow::saturating,
// NVIDIA's cvt .satfinite) judges a backend that declares it ("fp8_conversion": {"overflow": "saturating"},
// docs/fp8.md): it is the non-saturating conversion with every overflow replaced by the largest normal.
#pragma once

#include <cstdint>

namespace convcheck {

enum class Fp8Overflow { non_saturating, saturating };

// Exact widening: every code's value (NaN codes give a quiet NaN with the code's sign).
double f8_e4m3_to_f64(std::uint8_t bits);
double f8_e5m2_to_f64(std::uint8_t bits);

// Narrowing in one rounding step. The NaN written is E4M3's S.1111.111 and E5M2's quiet S.11111.10.
std::uint8_t f64_to_f8_e4m3(double value, Fp8Overflow overflow = Fp8Overflow::non_saturating);
std::uint8_t f64_to_f8_e5m2(double value, Fp8Overflow overflow = Fp8Overflow::non_saturating);

}  // namespace convcheck
