// judge_blocks.hpp's loops. Each lane does what the scalar formula does, operation for operation: IEEE
// multiplication, addition, division and square root round correctly in every lane, so a vector gives each output
// the bits the scalar code gives it. Built for AVX2 (four doubles a vector) and for the baseline (two), picked once
// at run time, as reference/src/chunk_sums.cpp's loops are. Neither target has FMA, and this file is built with
// -ffp-contract=off (no product contracted into a sum) and -fno-math-errno (a square root that sets no errno is one
// instruction, which vectorises; nothing here reads errno).
#include "judge_blocks.hpp"

#include <cmath>

namespace convcheck::accuracy::detail {

namespace {

[[gnu::always_inline]] inline void noise_loop(std::size_t count, const double* __restrict want,
                                              const double* __restrict magnitude, const double* __restrict factor,
                                              const double* __restrict got, double u_out_squared, double eta_squared,
                                              double* __restrict sigma, double* __restrict z,
                                              double* __restrict z_squared, double* __restrict z_toward_zero) {
    for (std::size_t j = 0; j < count; ++j) {
        const double s = std::sqrt(factor[j] * magnitude[j] * magnitude[j] +
                                   u_out_squared * want[j] * want[j] / 3.0 + eta_squared);
        sigma[j] = s;
        z[j] = (got[j] - want[j]) / s;
    }
    for (std::size_t j = 0; j < count; ++j) {
        z_squared[j] = z[j] * z[j];
        // sign(y*): 1, -1 or 0 (a NaN: 0), as a double
        const double sign = static_cast<double>(int(want[j] > 0.0) - int(want[j] < 0.0));
        z_toward_zero[j] = z[j] * sign;
    }
}

[[gnu::always_inline]] inline void fraction_loop(std::size_t count, const double* __restrict want,
                                                 const double* __restrict got, const double* __restrict bound,
                                                 double* __restrict fraction) {
    for (std::size_t j = 0; j < count; ++j) {
        const double err = std::fabs(got[j] - want[j]);
        fraction[j] = err == 0.0 ? 0.0 : err / bound[j];
    }
}

[[gnu::always_inline]] inline void bound_loop(std::size_t count, const BoundFormula::Constants& k,
                                              const double* __restrict want, const double* __restrict magnitude,
                                              const double* __restrict g64, const double* __restrict underflow,
                                              const double* __restrict relative, double* __restrict bound) {
    // one loop for each form of the formula (inside each, the compiler knows which); the constants in registers (no
    // store to `bound` can change them)
    const BoundFormula::Constants constants = k;
    if (constants.bias_after_output_rounding) {
        for (std::size_t j = 0; j < count; ++j)
            bound[j] = BoundFormula::apply(constants, want[j], magnitude[j], g64[j], underflow[j], relative[j]);
    } else {
        for (std::size_t j = 0; j < count; ++j)
            bound[j] = BoundFormula::apply(constants, want[j], magnitude[j], g64[j], underflow[j], relative[j]);
    }
}

[[gnu::target("avx2")]] void bound_avx2(std::size_t count, const BoundFormula::Constants& k, const double* want,
                                         const double* magnitude, const double* g64, const double* underflow,
                                         const double* relative, double* bound) {
    bound_loop(count, k, want, magnitude, g64, underflow, relative, bound);
}

void bound_baseline(std::size_t count, const BoundFormula::Constants& k, const double* want, const double* magnitude,
                    const double* g64, const double* underflow, const double* relative, double* bound) {
    bound_loop(count, k, want, magnitude, g64, underflow, relative, bound);
}

[[gnu::target("avx2")]] void noise_avx2(std::size_t count, const double* want, const double* magnitude,
                                         const double* factor, const double* got, double u_out_squared,
                                         double eta_squared, double* sigma, double* z, double* z_squared,
                                         double* z_toward_zero) {
    noise_loop(count, want, magnitude, factor, got, u_out_squared, eta_squared, sigma, z, z_squared, z_toward_zero);
}

void noise_baseline(std::size_t count, const double* want, const double* magnitude, const double* factor,
                    const double* got, double u_out_squared, double eta_squared, double* sigma, double* z,
                    double* z_squared, double* z_toward_zero) {
    noise_loop(count, want, magnitude, factor, got, u_out_squared, eta_squared, sigma, z, z_squared, z_toward_zero);
}

[[gnu::target("avx2")]] void fraction_avx2(std::size_t count, const double* want, const double* got,
                                            const double* bound, double* fraction) {
    fraction_loop(count, want, got, bound, fraction);
}

void fraction_baseline(std::size_t count, const double* want, const double* got, const double* bound,
                       double* fraction) {
    fraction_loop(count, want, got, bound, fraction);
}

bool avx2() {
#if defined(__x86_64__) || defined(__i386__)
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
#else
    return false;
#endif
}

}  // namespace

void noise_block(std::size_t count, const double* want, const double* magnitude, const double* factor,
                 const double* got, double u_out_squared, double eta_squared, double* sigma, double* z,
                 double* z_squared, double* z_toward_zero) {
    (avx2() ? noise_avx2 : noise_baseline)(count, want, magnitude, factor, got, u_out_squared, eta_squared, sigma, z,
                                           z_squared, z_toward_zero);
}

void bound_block(std::size_t count, const BoundFormula::Constants& k, const double* want, const double* magnitude,
                 const double* g64, const double* underflow, const double* relative, double* bound) {
    (avx2() ? bound_avx2 : bound_baseline)(count, k, want, magnitude, g64, underflow, relative, bound);
}

void fraction_block(std::size_t count, const double* want, const double* got, const double* bound, double* fraction) {
    (avx2() ? fraction_avx2 : fraction_baseline)(count, want, got, bound, fraction);
}

}  // namespace convcheck::accuracy::detail
