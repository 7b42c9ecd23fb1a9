// error_bound's formula (accuracy.hpp) with the contract's constants looked up once and the parts that depend only
// on the term count n kept from one output to the next: a comparison evaluates it for every output (40 M of them for
// conv1 of ResNet-50 at batch 50), and a forward convolution's n changes only at the border. The same arithmetic in
// the same order gives the same bits as one call of error_bound (which is this formula, too).
#pragma once

#include <cmath>
#include <cstdint>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/core/rounding_error.hpp"

namespace convcheck::accuracy::detail {

// Half the smallest positive subnormal of the output type (accuracy.cpp).
double half_smallest_subnormal(DataType dtype);

class BoundFormula {
public:
    explicit BoundFormula(const Contract& c)
        : u_in_(input_roundoff(c)), u_acc_(accumulation_roundoff(c)), u_out_(unit_roundoff(c.output_dtype)),
          eta_(half_smallest_subnormal(c.output_dtype)), bias_after_output_rounding_(c.bias_after_output_rounding),
          f64_(c.output_dtype == DataType::f64) {}

    double operator()(double exact, double magnitude, std::int64_t terms) {
        if (terms != terms_) set_terms(terms);
        return apply(constants(), exact, magnitude, g64_, underflow_, relative_);
    }

    // The formula's parts: the contract's constants, and those that depend on n alone (for judge_blocks.hpp's
    // bound_block, which applies `apply` to a block of outputs).
    struct Constants {
        double u_out, eta;
        bool bias_after_output_rounding;
    };
    Constants constants() const { return {u_out_, eta_, bias_after_output_rounding_}; }
    struct TermParts {
        double g64, underflow, relative;
    };
    TermParts parts(std::int64_t terms) {
        if (terms != terms_) set_terms(terms);
        return {g64_, underflow_, relative_};
    }

    [[gnu::always_inline]] static inline double apply(const Constants& k, double exact, double magnitude, double g64,
                                                      double underflow, double relative) {
        // The reference's own error (docs/accuracy.md, "The reference's own error"): `exact` and `magnitude` are
        // the reference's f64 sums, each within gamma_n(2^-53) of the exact ones (M* <= magnitude / (1 - g64)); the
        // bound below is the one for the exact y* and M*, with M* bounded by the computed magnitude, plus the
        // distance (1 + u_out) rho >= |y* - exact| (and u_out times it, for u_out |y*|).
        const double exact_magnitude = (magnitude + underflow) / (1.0 - g64);  // >= M*
        const double rho = g64 * exact_magnitude + underflow;                  // >= |exact - y*|
        const double reference = (1.0 + k.u_out) * rho;
        if (k.bias_after_output_rounding) {
            // s^ (within R M of the exact sum S*) rounded to t = fl_out(s^): |t - S*| <= (1 + u_out) R M + u_out
            // |S*| + eta, |S*| <= M; then y = fl_out(t + b): |y - y*| <= u_out |y*| + (1 + u_out) |t - S*| + eta
            return k.u_out * std::fabs(exact) +
                   (1.0 + k.u_out) * ((1.0 + k.u_out) * relative + k.u_out) * exact_magnitude +
                   (2.0 + k.u_out) * k.eta + reference;
        }
        return k.u_out * std::fabs(exact) + relative * exact_magnitude + k.eta + reference;
    }

private:
    // the parts that depend on n alone
    void set_terms(std::int64_t terms) {
        terms_ = terms;
        // An f64 case's products round too (docs/accuracy.md, "f64 cases"): gamma_n(2^-53) still covers n products
        // and their sums (Higham's dot-product bound), plus an absolute 2^-1074 for each product that underflows.
        g64_ = gamma(terms, 0x1p-53);
        underflow_ = f64_ ? std::ldexp(double(terms), -1074) : 0.0;
        // Inputs rounded to u_in: each product x~ w~ = x w (1 + a)(1 + b), |a|, |b| <= u_in, then the
        // accumulation's phi_n over sum |x~ w~| <= (1 + u_in)^2 M (docs/accuracy.md).
        const double g = accumulation_factor(terms, u_acc_);
        relative_ = u_in_ == 0.0 ? g : (1.0 + u_in_) * (1.0 + u_in_) * (1.0 + g) - 1.0;
    }

    double u_in_, u_acc_, u_out_, eta_;
    bool bias_after_output_rounding_, f64_;
    std::int64_t terms_ = -1;  // n of the parts below (none yet: no count is negative)
    double g64_ = 0.0, underflow_ = 0.0, relative_ = 0.0;
};

}  // namespace convcheck::accuracy::detail
