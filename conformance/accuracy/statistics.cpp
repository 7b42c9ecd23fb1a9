#include "convcheck/accuracy/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "convcheck/accuracy/accuracy.hpp"
#include "bound_formula.hpp"
#include "judge_blocks.hpp"

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

// judge_statistics with `bounds` (judge_blocks.hpp's GivenBounds or ComputedBounds), the outputs' per-output
// bounds, asked for a block at a time in output order.
// got: the backend's result widened to double, or its f32 values where they lie (each widened as it is read).
// A block of outputs at a time (judge_blocks.hpp): each output's parts in output order, then the block's sigma and z
// in one vectorised loop, then the sums in output order: the bits of one output at a time.
template <class Got, class Bounds>
Statistics judge(const Contract& c, std::span<const double> want, std::span<const double> magnitude, TermCounts terms,
                 std::span<const Got> got, Bounds bounds, bool statistical) {
    Statistics s;
    const std::string bound_by = bound_name(c);
    s.judged_by = bound_by;
    const BoundScale scale = bound_scale(c, magnitude, terms);  // a whole-tensor bound: the tensor's M, n
    NoiseModel model(c);
    const bool saturates = fp8_saturates(c);
    TermCursor next_terms(terms);
    // the sums in locals (kept in registers), each added in output order
    std::int64_t outputs = 0, vacuous_counted = 0;
    double sum_squares = 0.0, sum = 0.0, sum_toward_zero = 0.0;
    double vacuous_sum_squares = 0.0, vacuous_sum = 0.0, vacuous_zero_sum_squares = 0.0;
    constexpr std::size_t B = detail::kJudgeBlock;
    double bound[B], factor[B], scaled[B], y[B], sigma[B], z[B];
    unsigned char counted[B], vacuous[B];
    for (std::size_t first = 0; first < want.size(); first += B) {
        const std::size_t count = std::min(B, want.size() - first);
        const double* w = want.data() + first;
        bounds.fill(first, count, bound);
        for (std::size_t j = 0; j < count; ++j) {
            const std::size_t i = first + j;
            const std::int64_t n = scale.terms(next_terms.next());
            vacuous[j] = model.vacuous(bound[j], n);
            if (vacuous[j]) {
                ++s.vacuous_outputs;
                s.max_vacuous_terms = std::max(s.max_vacuous_terms, n);
            }
            y[j] = got[i];
            factor[j] = model.factor(n);
            scaled[j] = scale.magnitude(magnitude[i]);
            // a saturated fp8 output (declared saturating conversion): its error is the clamp's, not rounding noise;
            // the same outputs the non-saturating rule leaves out as NaN or infinity
            counted[j] = statistical && std::isfinite(y[j]) && std::isfinite(w[j]) &&
                         !(saturates && !std::isfinite(round_to(c.output_dtype, w[j])));
        }
        if (!statistical) continue;
        detail::noise_block(count, w, scaled, factor, y, model.u_out_squared(), model.eta_squared(), sigma, z);
        for (std::size_t j = 0; j < count; ++j) {
            if (!counted[j]) continue;
            // 1, -1 or 0 without a branch (the signs of random data mispredict half the time)
            const double sign = double(int(w[j] > 0) - int(w[j] < 0));
            ++outputs;
            sum_squares += z[j] * z[j];
            sum += z[j];
            sum_toward_zero += z[j] * sign;
            if (vacuous[j]) {
                ++vacuous_counted;
                vacuous_sum_squares += z[j] * z[j];
                vacuous_sum += z[j];
                vacuous_zero_sum_squares += (w[j] / sigma[j]) * (w[j] / sigma[j]);
            }
        }
    }
    s.outputs = outputs;
    s.sum_squares = sum_squares;
    s.sum = sum;
    s.sum_toward_zero = sum_toward_zero;
    s.vacuous_counted = vacuous_counted;
    s.vacuous_sum_squares = vacuous_sum_squares;
    s.vacuous_sum = vacuous_sum;
    s.vacuous_zero_sum_squares = vacuous_zero_sum_squares;
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
    return judge(c, want, magnitude, terms, got, detail::GivenBounds(bound), statistical);
}

namespace {

template <class Got>
Statistics judge_computed(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                          TermCounts terms, std::span<const Got> got, bool statistical) {
    // as error_bounds: under the tensor's M, n when whole-tensor
    return judge(c, want, magnitude, terms, got, detail::ComputedBounds(c, want, magnitude, terms), statistical);
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
