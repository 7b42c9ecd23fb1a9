// The constants every rounding-error bound of convcheck is written with: the accuracy contract's per-output
// bound (conformance/accuracy) and the reference's CC bounds (reference/cc) use these definitions.
#pragma once

#include <algorithm>
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

// phi_n(u): the factor of M = sum |terms| that bounds the error of an accumulation of n terms at unit roundoff u
// (docs/accuracy.md, "Bound mode"): n counts the sum's terms (products and bias) and up to four roundings after it
// (the scales' products, runner/conv/scales.cpp). The smaller of two proven bounds:
//  - gamma_n(u), Higham's Lemma 3.1: every term carries at most n factors (1 + d);
//  - (1 + (n - 4) u)(1 + u)^4 - 1 for n >= 4: a sum of p terms in any order, with or without FMA, errs by at most
//    p u M (Jeannerod and Rump, SIAM J. Matrix Anal. Appl. 34 (2013) 338-344, for rounded products; Lange and
//    Rump, BIT 57 (2017) 927-941, for exact ones, added by FMA), with no restriction on p; each of k <= 4 further
//    roundings, a product or a sum with a term counted in M, turns a relative error e into (1 + e)(1 + u) - 1, and
//    with p = n - k the result (1 + (n - k) u)(1 + u)^k - 1 grows with k for n >= 4.
// Near n u = 1/2 the second is half the first: an f16 or bf16 accumulation of hundreds of terms keeps a bound
// below M, where gamma_n admits any result between -M and M. Without underflow, as gamma_n.
inline double accumulation_factor(std::int64_t n, double u) {
    const double g = gamma(n, u);
    if (n < 4) return g;
    const double after_sum = (1.0 + u) * (1.0 + u) * (1.0 + u) * (1.0 + u);
    return std::min(g, (1.0 + static_cast<double>(n - 4) * u) * after_sum - 1.0);
}

}  // namespace convcheck
