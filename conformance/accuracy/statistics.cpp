#include "convcheck/accuracy/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "convcheck/accuracy/accuracy.hpp"
#include "bound_formula.hpp"
#include "judge_blocks.hpp"
#include "statistics_sums.hpp"

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

double rounding_noise_scale(const Contract& c, double exact, double magnitude, std::int64_t terms) {
    return detail::NoiseModel(c).sigma(exact, magnitude, terms);
}

bool bound_is_vacuous(const Contract& c, double bound, std::int64_t terms) { return detail::NoiseModel(c).vacuous(bound, terms); }

namespace detail {

StatisticsSums::StatisticsSums(const Contract& c, bool statistical)
    : c_(c), model_(c), statistical_(statistical), saturates_(fp8_saturates(c)) {}

// A block of outputs at a time (judge_blocks.hpp): each output's parts in output order, then the block's sigma and z
// in one vectorised loop, then the sums in output order: the bits of one output at a time.
template <class Got, class Bounds>
void StatisticsSums::add(std::span<const double> want, std::span<const double> magnitude, TermCounts terms,
                         const BoundScale& scale, std::span<const Got> got, Bounds& bounds) {
    TermCursor next_terms(terms);
    // the sums in locals (kept in registers), each added in output order
    std::int64_t outputs = s_.outputs, vacuous_counted = s_.vacuous_counted;
    double sum_squares = s_.sum_squares, sum = s_.sum, sum_toward_zero = s_.sum_toward_zero;
    double vacuous_sum_squares = s_.vacuous_sum_squares, vacuous_sum = s_.vacuous_sum;
    double vacuous_zero_sum_squares = s_.vacuous_zero_sum_squares;
    constexpr std::size_t B = kJudgeBlock;
    double bound[B], factor[B], scaled[B], y[B], sigma[B], z[B], z_squared[B], z_toward_zero[B];
    unsigned char counted[B], vacuous[B];
    for (std::size_t first = 0; first < want.size(); first += B) {
        const std::size_t count = std::min(B, want.size() - first);
        const double* w = want.data() + first;
        bounds.fill(first, count, bound);
        for (std::size_t j = 0; j < count; ++j) {
            const std::size_t i = first + j;
            const std::int64_t n = scale.terms(next_terms.next());
            vacuous[j] = model_.vacuous(bound[j], n);
            if (vacuous[j]) {
                ++s_.vacuous_outputs;
                s_.max_vacuous_terms = std::max(s_.max_vacuous_terms, n);
            }
            y[j] = got[i];
            factor[j] = model_.factor(n);
            scaled[j] = scale.magnitude(magnitude[i]);
            // a saturated fp8 output (declared saturating conversion): its error is the clamp's, not rounding noise;
            // the same outputs the non-saturating rule leaves out as NaN or infinity
            counted[j] = statistical_ && std::isfinite(y[j]) && std::isfinite(w[j]) &&
                         !(saturates_ && !std::isfinite(round_to(c_.output_dtype, w[j])));
        }
        if (!statistical_) continue;
        // z, z^2 and z sign(y*) in one vectorised loop (the sign without a branch: the signs of random data
        // mispredict half the time)
        noise_block(count, w, scaled, factor, y, model_.u_out_squared(), model_.eta_squared(), sigma, z, z_squared,
                    z_toward_zero);
        // each sum in output order, three additions an output; the vacuous outputs' sums (rare) in a loop of their
        // own, which leaves every output's three sums in registers
        bool any_vacuous = false;
        for (std::size_t j = 0; j < count; ++j) {
            any_vacuous |= vacuous[j] != 0;
            if (!counted[j]) continue;
            ++outputs;
            sum_squares += z_squared[j];
            sum += z[j];
            sum_toward_zero += z_toward_zero[j];
        }
        if (!any_vacuous) continue;
        for (std::size_t j = 0; j < count; ++j) {
            if (!counted[j] || !vacuous[j]) continue;
            ++vacuous_counted;
            vacuous_sum_squares += z_squared[j];
            vacuous_sum += z[j];
            vacuous_zero_sum_squares += (w[j] / sigma[j]) * (w[j] / sigma[j]);
        }
    }
    s_.outputs = outputs;
    s_.sum_squares = sum_squares;
    s_.sum = sum;
    s_.sum_toward_zero = sum_toward_zero;
    s_.vacuous_counted = vacuous_counted;
    s_.vacuous_sum_squares = vacuous_sum_squares;
    s_.vacuous_sum = vacuous_sum;
    s_.vacuous_zero_sum_squares = vacuous_zero_sum_squares;
}

Statistics StatisticsSums::finish(std::int64_t elements) const {
    const Contract& c = c_;
    const bool statistical = statistical_;
    Statistics s = s_;
    const std::string bound_by = bound_name(c);
    s.judged_by = bound_by;
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
        s.judged_by = s.vacuous_outputs == elements ? "statistics" : bound_by + "+statistics";
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
    why << s.vacuous_outputs << " of " << elements << " outputs have a vacuous per-output bound (phi_n(u_acc) = "
        << text(accumulation_factor(s.max_vacuous_terms, accumulation_roundoff(c))) << " for n = " << s.max_vacuous_terms
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

template void StatisticsSums::add<double, GivenBounds>(std::span<const double>, std::span<const double>, TermCounts,
                                                       const BoundScale&, std::span<const double>, GivenBounds&);
template void StatisticsSums::add<double, ComputedBounds>(std::span<const double>, std::span<const double>, TermCounts,
                                                          const BoundScale&, std::span<const double>, ComputedBounds&);
template void StatisticsSums::add<float, ComputedBounds>(std::span<const double>, std::span<const double>, TermCounts,
                                                         const BoundScale&, std::span<const float>, ComputedBounds&);

}  // namespace detail

namespace {

// judge_statistics with `bounds` (judge_blocks.hpp's GivenBounds or ComputedBounds), the outputs' per-output
// bounds, asked for a block at a time in output order.
template <class Got, class Bounds>
Statistics judge(const Contract& c, std::span<const double> want, std::span<const double> magnitude, TermCounts terms,
                 std::span<const Got> got, Bounds bounds, bool statistical) {
    detail::StatisticsSums sums(c, statistical);
    sums.add(want, magnitude, terms, bound_scale(c, magnitude, terms), got, bounds);
    return sums.finish(static_cast<std::int64_t>(want.size()));
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
