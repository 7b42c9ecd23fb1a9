// What the GEMM evaluators' tests (gemm_summation_test.cpp, gemm_backward_sums_test.cpp) compare the definition
// with: data whose sums round, and bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace gemm_test {

inline constexpr double kU64 = 0x1p-53;

// Values of mixed sign spread over 2^-12 .. 2^12, each held by f16 (11 bits) or coarser, so every product is
// exact in double and the sums round.
inline std::vector<double> spread_values(std::int64_t count, std::mt19937_64& rng) {
    std::uniform_int_distribution<int> significand(-1024, 1024), exponent(-12, 12);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double& x : v) x = std::ldexp(significand(rng) / 1024.0, exponent(rng));
    return v;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// v in hexadecimal floating point: every bit shown
inline std::string text(double v) {
    char t[32];
    std::snprintf(t, sizeof t, "%a", v);
    return t;
}

}  // namespace gemm_test
