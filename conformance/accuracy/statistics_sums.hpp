// The statistics' model and their running sums (statistics.hpp), shared by the whole-tensor judge_statistics and the
// sliced comparison (accuracy.hpp's SlicedBoundComparison): the sums are added one output at a time in output
// order, so a tensor handed over in slices gives the bits of the whole tensor at once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/accuracy/statistics.hpp"

namespace convcheck::accuracy::detail {

// sigma's formula (statistics.hpp) and the vacuity test with the contract's constants looked up once and the parts
// that depend only on the term count n kept from one output to the next (a forward convolution's n changes only at
// the border): the statistics visit every output, and the same arithmetic in the same order gives the same bits as
// rounding_noise_scale and bound_is_vacuous.
class NoiseModel {
public:
    explicit NoiseModel(const Contract& c)
        : u_acc(accumulation_roundoff(c)), u_out(unit_roundoff(c.output_dtype)),
          eta(error_bound(c, 0.0, 0.0, 0)),  // half the smallest subnormal of the output type
          // a declared input precision: each product x w (1 + a)(1 + b) adds x w (a + b), variance
          // <= (2/3) u_in^2 (x w)^2, and sum (x w)^2 <= M^2
          u_in(input_roundoff(c)),
          // the bias added after a first rounding to the output type: that rounding of the sum S* errs by up to half
          // an ulp of it, uniformly, variance <= u_out^2 S*^2 / 3 <= u_out^2 M^2 / 3
          first_rounding(c.bias_after_output_rounding ? u_out * u_out / 3.0 : 0.0),
          largest(largest_finite(c.output_dtype)),
          // an f64 case: the reference's own sum rounds as the backend's does (its products are no longer exact),
          // so the difference carries the reference's rounding noise of the same model as well
          f64(c.output_dtype == DataType::f64) {}

    double sigma(double exact, double magnitude, std::int64_t terms) {
        if (terms != terms_) set_terms(terms);
        return std::sqrt(magnitude_factor_ * magnitude * magnitude + u_out * u_out * exact * exact / 3.0 + eta * eta);
    }

    bool vacuous(double bound, std::int64_t terms) {
        if (terms != terms_) set_terms(terms);
        return !factor_below_one_ || !(bound < largest);
    }

    // sigma's parts for judge_blocks.hpp's noise_block: the factor of M^2 for n terms, u_out^2 and eta^2
    double factor(std::int64_t terms) {
        if (terms != terms_) set_terms(terms);
        return magnitude_factor_;
    }
    double u_out_squared() const { return u_out * u_out; }
    double eta_squared() const { return eta * eta; }

private:
    // the parts that depend on n alone
    void set_terms(std::int64_t terms) {
        terms_ = terms;
        const double n = double(std::max<std::int64_t>(terms, 1));
        const double reference = f64 ? 2.0 * n / 3.0 * 0x1p-106 : 0.0;
        magnitude_factor_ = 2.0 * n / 3.0 * u_acc * u_acc + reference + 2.0 / 3.0 * u_in * u_in + first_rounding;
        factor_below_one_ = accumulation_factor(terms, u_acc) < 1.0;
    }

    double u_acc, u_out, eta, u_in, first_rounding, largest;
    bool f64;
    std::int64_t terms_ = -1;  // n of the parts below (none yet: no count is negative)
    double magnitude_factor_ = 0.0;
    bool factor_below_one_ = false;
};


// The statistics' sums over a tensor's outputs, added a slice at a time in output order; finish() applies the rules.
class StatisticsSums {
public:
    StatisticsSums(const Contract& c, bool statistical);
    // The next outputs in output order: `bounds` (judge_blocks.hpp's GivenBounds or ComputedBounds) gives their
    // per-output bounds a block at a time, `scale` their M and n (a whole-tensor bound: the tensor's). got: the
    // backend's result widened to double, or its f32 values where they lie (each widened as it is read).
    template <class Got, class Bounds>
    void add(std::span<const double> want, std::span<const double> magnitude, TermCounts terms, const BoundScale& scale,
             std::span<const Got> got, Bounds& bounds);
    // The statistics of the `elements` outputs added: the rules applied, the vacuous outputs judged or unchecked.
    Statistics finish(std::int64_t elements) const;

private:
    const Contract& c_;
    NoiseModel model_;
    bool statistical_, saturates_;
    Statistics s_;  // the counts and sums so far
};

}  // namespace convcheck::accuracy::detail
