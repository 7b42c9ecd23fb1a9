// Designed suites (docs/selftest.md, "Designed suites"): the attributes a suite should balance, what
// value of each a descriptor has, descriptors built to have chosen values, and the two measures of
// a suite's design: the distribution of each attribute's values and the coverage of value pairs.
// The full sweep draws each attribute from a stated share (suite_full.cpp); the pairwise suite puts
// every feasible pair of values in at least one case (suite_pairwise.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::runner {

// The factors and their values. A descriptor's value of each factor:
//   rank       1, 2, 3
//   groups     plain (g = 1), grouped (1 < g < C), depthwise (g = C = O), depthwise_multiplier (g = C < O)
//   dilation   dense, dilated (some d > 1)
//   stride     unit, strided (some s > 1, none beyond the dilated kernel), beyond_kernel (some s > (k-1)d+1)
//   pads       none, symmetric, asymmetric (some pb != pe, none negative), negative (some pad < 0)
//   kernel     inside (the dilated kernel fits the input on every axis), beyond_input (not on some axis)
//   layout     ncx/oix, ncx/xio, nxc/oix, nxc/xio
//   dtype      f32, f16, bf16
//   bias       0, 1
inline constexpr int kFactors = 9;
struct Factor {
    const char* name;
    std::vector<const char*> values;
};
const std::array<Factor, kFactors>& design_factors();

using Attributes = std::array<int, kFactors>;  // one value index per factor

Attributes classify(const ConvDescriptor& d);
// Whether some descriptor has these values (no padding cannot let a kernel reach beyond the input).
bool feasible(const Attributes& a);
// A valid descriptor with exactly the values `a` (checked by classify), small sizes drawn from rng,
// and per-axis attributes unequal where the rank allows (asymmetric kernels, dilations, strides).
// Throws std::invalid_argument when `a` is not feasible.
ConvDescriptor realize(const Attributes& a, std::mt19937_64& rng);

struct PairCoverage {
    std::int64_t covered = 0, total = 0;    // feasible pairs of values of two factors
    std::vector<std::string> missing;       // "pads=none & kernel=beyond_input", ...
    struct OfFactors {                      // the same counts for the value pairs of two factors
        int first = 0, second = 0;          // indices into design_factors(), first < second
        std::int64_t covered = 0, total = 0;
    };
    std::vector<OfFactors> by_factors;      // every two factors, in design_factors() order
};
// Whether the descriptor's values lie in the design's factors (an fp8 dtype does not: the design's dtypes are f32,
// f16 and bf16); pair_coverage and distribution count only those that do.
bool in_design(const ConvDescriptor& d);
PairCoverage pair_coverage(const std::vector<ConvDescriptor>& descriptors);

// Per factor, how many descriptors have each value: counts[factor][value].
std::vector<std::vector<std::int64_t>> distribution(const std::vector<ConvDescriptor>& descriptors);

}  // namespace convcheck::runner
