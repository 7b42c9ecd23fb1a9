// The constant every rounding-error bound of convcheck is written with: the accuracy contract's per-output
// bound (conformance/accuracy) and the reference's CC bounds (reference/cc) use this one definition.
#pragma once

#include <cstdint>
#include <limits>

namespace convcheck {

// gamma_n(u) = n u / (1 - n u) (Higham, Accuracy and Stability of Numerical Algorithms, Lemma 3.1):
// (1 + d_1)...(1 + d_n) = 1 + theta with |theta| <= gamma_n(u) when every |d_i| <= u; +infinity when
// n u >= 1 (no bound can be promised).
inline double gamma(std::int64_t n, double u) {
    const double nu = static_cast<double>(n) * u;
    if (nu >= 1.0) return std::numeric_limits<double>::infinity();
    return nu / (1.0 - nu);
}

}  // namespace convcheck
