// Special fills: exact-mode data designed for one rounding question each (docs/accuracy.md, "Special
// fills"). The standard exact fill keeps every result exactly representable in the output type, so
// it never asks how a backend rounds into that type; these fills do, and each output still has
// exactly one right answer: the f32 (or wider) accumulation of a single product is exact (or one
// rounding), and the result is rounded ONCE to the output type, round to nearest even.
//
// The shape of every special fill: each output channel o has one non-zero weight, at the kernel tap
// that lands inside the input for the most outputs and at one input channel of its group, and the
// bias is zero, so every output is 0 (the tap in the padding) or one product x * w. Then
//   ties       |x * w| is an odd integer in (2^p, 2^(p+1)), p the output's significand bits: a tie.
//              Even o: x*3 with x = 3 mod 4, so nearest-even rounds toward zero; odd o: x*5, away
//              from zero. Ties-away fails the even channels, truncation (and ties-to-zero) the odd.
//   overflow   even o: |x * w| = 2 * max finite: +-inf; odd o: a product strictly between the
//              largest finite value M and M + ulp/2: it rounds to +-M (not to inf, not saturated).
//   subnormal  even input channels hold subnormals (times small integers: subnormal results, lost
//              by a backend that reads subnormal inputs as zero, DAZ); odd input channels hold
//              normal values times 2^-4 (subnormal results from normal inputs, lost by a backend
//              that flushes subnormal results to zero, FTZ). Output o reads a channel of o's parity.
// Data are a function of (descriptor, contract, fill, seed) only.
#pragma once

#include <cstdint>
#include <string>

#include "convcheck/accuracy/accuracy.hpp"

namespace convcheck::accuracy {

enum class Fill { standard, ties, overflow, subnormal };
inline constexpr Fill kAllFills[] = {Fill::standard, Fill::ties, Fill::overflow, Fill::subnormal};

// "standard", "ties", "overflow", "subnormal".
const char* to_string(Fill fill);
// Parses the names above; false on anything else.
bool parse_fill(const std::string& text, Fill* fill);

// Why `fill` cannot give one right answer for d under contract c (empty when it can). The ties fill
// needs an accumulation type with at least p + 3 significand bits (f16/bf16 outputs accumulated in
// f32, f32 outputs in f64), so that x * 5 < 2^(p+1) is exact before the output rounding.
std::string fill_not_applicable(Fill fill, const ConvDescriptor& d, const Contract& c);

// Exact-mode data for `fill`: make_exact_fill for Fill::standard, else the designed data above.
// Precondition: fill_not_applicable(fill, d, c) is empty.
ExactFill make_fill(const ConvDescriptor& d, const Contract& c, Fill fill, std::uint64_t seed);

}  // namespace convcheck::accuracy
