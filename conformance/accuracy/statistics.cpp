#include "convcheck/accuracy/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "convcheck/accuracy/accuracy.hpp"
#include "bound_formula.hpp"

namespace convcheck::accuracy {

namespace {

// TOSA's factors: the variance limit is 4 times the model's variance, the bias limit sqrt(10) times
// the standard deviation that variance limit allows (Chebyshev: a false bias failure has
// probability <= 1/10 even with no distribution assumed; about 3e-10 for a Gaussian sum).
constexpr double kVarianceFactor = 4.0;
constexpr double kBiasFactor = 10.0;

std::string text(double v) {
    std::ostringstream s;
    s.precision(4);
    s << v;
    return s.str();
}

struct Rules {
    std::string failure;
    double growth = 0.0;
};

// The three rules over T outputs with the given sums; the first that fails names itself. The two bias
// rules only with `signed_rules`: their limit holds for a sum of independent errors.
Rules apply_rules(std::int64_t T, double sum_squares, double sum, double sum_toward_zero, const char* which,
                  bool signed_rules) {
    Rules r;
    const double variance_limit = kVarianceFactor * double(T);
    const double bias_limit = std::sqrt(kBiasFactor * variance_limit);
    const std::string over = std::string(" over ") + which + std::to_string(T) + " outputs";
    if (sum_squares > variance_limit) {
        r.failure = "error variance" + over + ": sum z^2 = " + text(sum_squares) + " > " + text(variance_limit) +
                    " (4 T): the errors are far above what rounding in the declared precision produces";
        r.growth = std::max(r.growth, std::sqrt(sum_squares / variance_limit));
    }
    if (!signed_rules) return r;
    if (std::fabs(sum) > bias_limit) {
        if (r.failure.empty())
            r.failure = "signed error bias" + over + ": sum z = " + text(sum) + ", limit +-" + text(bias_limit) +
                        " (sqrt(40 T)): the errors lean " + (sum > 0 ? "upward" : "downward") +
                        ", as a directed rounding would";
        r.growth = std::max(r.growth, std::fabs(sum) / bias_limit);
    }
    if (std::fabs(sum_toward_zero) > bias_limit) {
        if (r.failure.empty())
            r.failure = "magnitude bias" + over + ": sum z*sign(y*) = " + text(sum_toward_zero) + ", limit +-" +
                        text(bias_limit) + " (sqrt(40 T)): the results are pulled " +
                        (sum_toward_zero < 0 ? "toward zero (truncation instead of rounding?)" : "away from zero");
        r.growth = std::max(r.growth, std::fabs(sum_toward_zero) / bias_limit);
    }
    return r;
}

}  // namespace

namespace {

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
        return !gamma_below_one_ || !(bound < largest);
    }

private:
    // the parts that depend on n alone
    void set_terms(std::int64_t terms) {
        terms_ = terms;
        const double n = double(std::max<std::int64_t>(terms, 1));
        const double reference = f64 ? 2.0 * n / 3.0 * 0x1p-106 : 0.0;
        magnitude_factor_ = 2.0 * n / 3.0 * u_acc * u_acc + reference + 2.0 / 3.0 * u_in * u_in + first_rounding;
        gamma_below_one_ = gamma(terms, u_acc) < 1.0;
    }

    double u_acc, u_out, eta, u_in, first_rounding, largest;
    bool f64;
    std::int64_t terms_ = -1;  // n of the parts below (none yet: no count is negative)
    double magnitude_factor_ = 0.0;
    bool gamma_below_one_ = false;
};

}  // namespace

double rounding_noise_scale(const Contract& c, double exact, double magnitude, std::int64_t terms) {
    return NoiseModel(c).sigma(exact, magnitude, terms);
}

bool bound_is_vacuous(const Contract& c, double bound, std::int64_t terms) { return NoiseModel(c).vacuous(bound, terms); }

namespace {

// judge_statistics with bound_of(i, n), output i's per-output bound (n: its term count under the bound's scale),
// asked once per output in output order.
// got: the backend's result widened to double, or its f32 values where they lie (each widened as it is read).
template <class Got, class BoundOf>
Statistics judge(const Contract& c, std::span<const double> want, std::span<const double> magnitude, TermCounts terms,
                 std::span<const Got> got, BoundOf bound_of, bool statistical) {
    Statistics s;
    const std::string bound_by = bound_name(c);
    s.judged_by = bound_by;
    const BoundScale scale = bound_scale(c, magnitude, terms);  // a whole-tensor bound: the tensor's M, n
    NoiseModel model(c);
    const bool saturates = fp8_saturates(c);
    TermCursor next_terms(terms);
    for (std::size_t i = 0; i < want.size(); ++i) {
        const std::int64_t n = scale.terms(next_terms.next());
        const bool vacuous = model.vacuous(bound_of(i, n), n);
        if (vacuous) {
            ++s.vacuous_outputs;
            s.max_vacuous_terms = std::max(s.max_vacuous_terms, n);
        }
        const double y = got[i];
        if (!statistical || !std::isfinite(y) || !std::isfinite(want[i])) continue;
        // a saturated fp8 output (declared saturating conversion): its error is the clamp's, not rounding noise; the
        // same outputs the non-saturating rule leaves out as NaN or infinity
        if (saturates && !std::isfinite(round_to(c.output_dtype, want[i]))) continue;
        const double sigma = model.sigma(want[i], scale.magnitude(magnitude[i]), n);
        const double z = (y - want[i]) / sigma;
        const double sign = want[i] > 0 ? 1.0 : want[i] < 0 ? -1.0 : 0.0;
        ++s.outputs;
        s.sum_squares += z * z;
        s.sum += z;
        s.sum_toward_zero += z * sign;
        if (vacuous) {
            ++s.vacuous_counted;
            s.vacuous_sum_squares += z * z;
            s.vacuous_sum += z;
            s.vacuous_zero_sum_squares += (want[i] / sigma) * (want[i] / sigma);
        }
    }
    const bool enough = statistical && s.outputs >= kStatisticsMinOutputs;
    // A declared input precision or whole-tensor algorithm rounds values that many outputs share (a
    // weight rounded to TF32, a transformed Winograd filter enters every output of its channel): the
    // signed sums are then not sums of independent errors, and only the variance rule applies.
    const bool signed_rules = c.bound_kind == BoundKind::per_output && input_roundoff(c) == 0.0;
    s.bias_rules = signed_rules;
    if (enough) {
        const Rules all = apply_rules(s.outputs, s.sum_squares, s.sum, s.sum_toward_zero, "", signed_rules);
        s.failure = all.failure;
        s.growth = all.growth;
    }
    if (s.vacuous_outputs == 0) {
        s.judged_by = enough ? bound_by + "+statistics" : bound_by;
        return s;
    }
    // Outputs with a vacuous bound: the statistics judge them only where they would reject zeros.
    const double zero_limit = kVarianceFactor * double(s.vacuous_counted);
    const bool discriminating = statistical && s.vacuous_counted >= kStatisticsMinOutputs &&
                                s.vacuous_zero_sum_squares > zero_limit;
    if (discriminating) {
        s.judged_by = s.vacuous_outputs == std::int64_t(want.size()) ? "statistics" : bound_by + "+statistics";
        if (s.failure.empty()) {
            const Rules v = apply_rules(s.vacuous_counted, s.vacuous_sum_squares, s.vacuous_sum, 0.0,
                                        "the vacuous-bound ", signed_rules);
            s.failure = v.failure;
            s.growth = v.growth;
        }
        return s;
    }
    s.judged_by = "unchecked";
    std::ostringstream why;
    why << s.vacuous_outputs << " of " << want.size() << " outputs have a vacuous per-output bound (gamma_n(u_acc) = "
        << text(gamma(s.max_vacuous_terms, accumulation_roundoff(c))) << " for n = " << s.max_vacuous_terms
        << " terms at u_acc = 2^" << std::ilogb(accumulation_roundoff(c)) << ": it admits any result between -M and M)";
    if (!statistical) why << " and no statistics apply to this operation";
    else if (s.vacuous_counted < kStatisticsMinOutputs)
        why << " and too few of them (" << s.vacuous_counted << " < " << kStatisticsMinOutputs << ") for the statistics";
    else
        why << " and on this data the statistics would not reject an all-zero result there (sum (y*/sigma)^2 = "
            << text(s.vacuous_zero_sum_squares) << " <= " << text(zero_limit) << ")";
    s.unchecked = why.str();
    return s;
}

}  // namespace

Statistics judge_statistics(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            TermCounts terms, std::span<const double> got,
                            std::span<const double> bound, bool statistical) {
    return judge(c, want, magnitude, terms, got, [bound](std::size_t i, std::int64_t) { return bound[i]; },
                 statistical);
}

namespace {

template <class Got>
Statistics judge_computed(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                          TermCounts terms, std::span<const Got> got, bool statistical) {
    const BoundScale scale = bound_scale(c, magnitude, terms);  // as error_bounds: the tensor's M, n when whole-tensor
    detail::BoundFormula bound(c);
    return judge(c, want, magnitude, terms, got,
                 [&](std::size_t i, std::int64_t n) { return bound(want[i], scale.magnitude(magnitude[i]), n); },
                 statistical);
}

}  // namespace

Statistics judge_statistics(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            TermCounts terms, std::span<const double> got, bool statistical) {
    return judge_computed(c, want, magnitude, terms, got, statistical);
}

Statistics judge_statistics(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            TermCounts terms, std::span<const float> got, bool statistical) {
    return judge_computed(c, want, magnitude, terms, got, statistical);
}

}  // namespace convcheck::accuracy
