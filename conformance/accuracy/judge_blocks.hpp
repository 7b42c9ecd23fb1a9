// The per-output arithmetic of bound mode's judging, a block of outputs at a time (judge_blocks.cpp): the
// comparison (accuracy.cpp) and the statistics (statistics.cpp) gather each output's parts in output order, hand
// the block's divisions and square roots to these loops, then add up their results in output order again.
#pragma once

#include <cstddef>
#include <span>

#include "bound_formula.hpp"
#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/accuracy/statistics.hpp"

namespace convcheck::accuracy::detail {

// Outputs a block holds: the gathered parts of 256 outputs take 10 KiB of the stack.
inline constexpr std::size_t kJudgeBlock = 256;

// sigma_i = sqrt(factor_i M_i^2 + u_out^2 y*_i^2 / 3 + eta^2) and z_i = (y_i - y*_i) / sigma_i (statistics.hpp),
// with u_out_squared = u_out * u_out and eta_squared = eta * eta: the operations, in the order, of
// NoiseModel::sigma; and the statistics' terms z_i * z_i and z_i * sign(y*_i) (sign 1, -1 or 0, a double).
void noise_block(std::size_t count, const double* want, const double* magnitude, const double* factor,
                 const double* got, double u_out_squared, double eta_squared, double* sigma, double* z,
                 double* z_squared, double* z_toward_zero);

// fraction_i = |y_i - y*_i| / bound_i, or 0 where the two are equal: bound_fraction's arithmetic for a finite
// y_i and an exact value inside a non-fp8 output type's range (its callers take the other outputs one by one).
void fraction_block(std::size_t count, const double* want, const double* got, const double* bound, double* fraction);

// bound_i = BoundFormula::apply(k, y*_i, M_i, g64_i, underflow_i, relative_i): error_bound's arithmetic.
void bound_block(std::size_t count, const BoundFormula::Constants& k, const double* want, const double* magnitude,
                 const double* g64, const double* underflow, const double* relative, double* bound);

// The per-output bounds of a comparison, a block at a time in output order: given in an array, or computed as
// error_bounds computes them (under bound_scale), without an array of them.
class GivenBounds {
public:
    explicit GivenBounds(std::span<const double> bounds) : bounds_(bounds) {}
    void fill(std::size_t first, std::size_t count, double* bound) {
        for (std::size_t j = 0; j < count; ++j) bound[j] = bounds_[first + j];
    }

private:
    std::span<const double> bounds_;
};

class ComputedBounds {
public:
    ComputedBounds(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                   TermCounts terms)
        : formula_(c), scale_(bound_scale(c, magnitude, terms)), next_(terms), want_(want), magnitude_(magnitude) {}
    // outputs [first, first + count), the blocks asked for in output order
    void fill(std::size_t first, std::size_t count, double* bound) {
        double m[kJudgeBlock], g64[kJudgeBlock], underflow[kJudgeBlock], relative[kJudgeBlock];
        for (std::size_t j = 0; j < count; ++j) {
            const BoundFormula::TermParts p = formula_.parts(scale_.terms(next_.next()));
            m[j] = scale_.magnitude(magnitude_[first + j]);
            g64[j] = p.g64;
            underflow[j] = p.underflow;
            relative[j] = p.relative;
        }
        bound_block(count, formula_.constants(), want_.data() + first, m, g64, underflow, relative, bound);
    }

private:
    BoundFormula formula_;
    BoundScale scale_;
    TermCursor next_;
    std::span<const double> want_, magnitude_;
};

}  // namespace convcheck::accuracy::detail
