// The bound carries the reference's own f64 error (docs/accuracy.md, "The reference's own error"): a backend
// that accumulates in f64 in the definition's own order (convolution_summation's values, honest to the last
// bit it can be) passes when the reference's sums come from the GEMM evaluator, whose order of additions is
// Eigen's; and the term is there: every bound is at least (1 + u_out) gamma_n(2^-53) M beyond the others.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/core/rounding_error.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/gemm_summation.hpp"

using namespace convcheck;

namespace {

// Mixed signs over 2^-20 .. 2^20 (11 significand bits): exact products, sums that round and cancel.
std::vector<double> spread(std::int64_t count, std::mt19937_64& rng) {
    std::uniform_int_distribution<int> significand(-1024, 1024), exponent(-20, 20);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double& x : v) x = std::ldexp(significand(rng) / 1024.0, exponent(rng));
    return v;
}

}  // namespace

TEST(ReferenceError, AnF64BackendInTheDefinitionsOrderPassesAgainstTheGemmEvaluator) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA: the runner uses the definition's bits";
    accuracy::Contract c;
    c.accumulation_is_f64 = true;  // u_acc = 2^-53: the reference's own error is as large as the backend's allowance
    for (const char* text : {"c=600,o=4,in=12x12,k=3x3,pb=1x1,pe=1x1,bias=1", "n=2,c=256,o=8,in=9x9,k=1x1",
                             "n=2,c=12,o=6,g=3,in=31x17,k=5x3,s=2x1,d=1x2,pb=2x-1,pe=3x2,bias=1"}) {
        const ConvDescriptor d = parse_descriptor(text);
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            std::mt19937_64 rng(seed);
            const auto src = spread(d.src_elements(), rng), weights = spread(d.weights_elements(), rng),
                       bias = spread(d.bias_elements(), rng);
            const auto backend = reference::convolution_summation(d, src, weights, bias);  // sequential f64 sums
            const auto want = reference::gemm_convolution_summation(d, src, weights, bias);
            const auto cmp = accuracy::compare_bound(c, want.dst, want.magnitude, want.terms, backend.dst);
            EXPECT_TRUE(cmp.passed()) << text << " seed " << seed << ": " << cmp.mismatches << " outputs fail, worst "
                                      << cmp.max_bound_fraction << "x the bound";
        }
    }
}

TEST(ReferenceError, EveryBoundCarriesTheReferencesTerm) {
    accuracy::Contract c;
    c.accumulation_is_f64 = true;
    const double u64 = 0x1p-53, u_out = unit_roundoff(c.output_dtype);
    for (const std::int64_t n : {1, 9, 4609}) {
        const double M = 3.0, y = 0.0;
        // without the reference's term: phi_n(u_acc) M + eta (eta: the bound at M = 0); with it, at least
        // (1 + u_out) gamma_n(2^-53) M more
        const double eta = accuracy::error_bound(c, y, 0.0, n);
        EXPECT_GE(accuracy::error_bound(c, y, M, n) - eta, accumulation_factor(n, u64) * M + (1.0 + u_out) * gamma(n, u64) * M) << n;
    }
}
