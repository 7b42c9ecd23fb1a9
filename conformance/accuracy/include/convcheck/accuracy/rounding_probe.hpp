// The rounding probe of quantized convolution (docs/quantized.md): designed accumulators, scales and zero points at
// which the four requantization rules of the reference (reference/requantize.hpp) give different integers, and which of
// the rules a backend's answers on them fit. A backend declares the rule it follows; the probe tells the rule
// it actually follows, and where the two part, the first case with what each rule gives.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "convcheck/reference/requantize.hpp"

namespace convcheck::accuracy {

struct RoundingProbeCase {
    std::int32_t acc;
    double scale;      // a power of two: the exact value acc * scale is a tie or a known fraction
    std::int32_t zero_point;  // the output's: an odd one moves a tie's even neighbour
    const char* what;  // why the case is there
};

// Ties of both signs after right shifts of 1, 2 and 3 (where the tie rules part: toward +inf, away from zero,
// to even), a non-tie that only double rounding gets wrong (its first rounding carries into the second), and ties
// with an odd zero point (rounding before or after adding it). Every pair of the four rules differs on at least
// one case.
std::span<const RoundingProbeCase> rounding_probe_cases();

// The rules whose result on every probe case is `observed` (in rounding_probe_cases' order, one value per
// case, the zero point included, before saturation); empty when the backend follows none of them.
std::vector<reference::Requantization> rules_consistent_with(std::span<const std::int64_t> observed);

// "" when `observed` is what `declared` gives on every case; else one line naming the first case where it is
// not: the accumulator, the scale, the exact value, the observed integer and what each rule gives, then the
// rules the answers fit (or that they fit none).
std::string rounding_probe_mismatch(reference::Requantization declared, std::span<const std::int64_t> observed);

}  // namespace convcheck::accuracy
