// The statistical half of bound mode (docs/accuracy.md, "Statistics" and "Vacuous bounds").
//
// The per-output bound is a worst case: it cannot see an error that is small everywhere but always
// in one direction, nor errors everywhere far above what rounding produces, and where phi_n(u_acc)
// >= 1 (n*u_acc about 1 or more) it checks nothing at all. Beside it, over the T outputs of a case, with each
// error normalised by the rounding-noise scale of the probabilistic model (sigma, below):
//     z_i = (y_i - y*_i) / sigma_i
//     sigma_i^2 = ((2 n_i / 3) u_acc^2 + (2/3) u_in^2) M_i^2 + (1/3) u_out^2 y*_i^2 + eta_out^2
// (u_in: a declared input precision's roundoff, else 0; M_i, n_i: the tensor's largest under a
// declared whole-tensor bound)
// the honest-rounding model gives E[z_i] = 0 and E[z_i^2] <= 1, and the limits are TOSA's with its
// per-output variance (0.4 ksb) replaced by ours (1):
//     variance   sum z_i^2              <= 4 T
//     bias       |sum z_i|              <= sqrt(10 * 4 T)
//     toward 0   |sum z_i sign(y*_i)|   <= sqrt(10 * 4 T)
// applied when T >= kStatisticsMinOutputs. Outputs whose per-output bound is vacuous are judged by
// the statistics alone, and only where the statistics would reject an all-zero result; else they
// are "unchecked": the case is not counted as passed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace convcheck::accuracy {

struct Contract;

// The outputs' term counts n: one per output, or a shorter pattern repeated along the outputs (output i has
// counts[i % counts.size()]): a forward convolution's count depends on the output's spatial position only, so one
// plane's counts, repeated for every (n, oc), give every output's without an array of them (reference/
// gemm_summation.hpp). A per-output array is the pattern of period the tensor's size.
struct TermCounts {
    std::span<const std::int64_t> counts;
    TermCounts(std::span<const std::int64_t> per_output_or_pattern) : counts(per_output_or_pattern) {}
    TermCounts(const std::vector<std::int64_t>& per_output_or_pattern) : counts(per_output_or_pattern) {}
    // whether the counts give `outputs` outputs theirs: the pattern repeats a whole number of times
    bool covers(std::size_t outputs) const { return counts.empty() ? outputs == 0 : outputs % counts.size() == 0; }
};
// Reads TermCounts in output order without a division per output.
class TermCursor {
public:
    explicit TermCursor(const TermCounts& t) : begin_(t.counts.data()), end_(t.counts.data() + t.counts.size()), at_(begin_) {}
    std::int64_t next() {
        const std::int64_t n = *at_;
        if (++at_ == end_) at_ = begin_;
        return n;
    }

private:
    const std::int64_t* begin_;
    const std::int64_t* end_;
    const std::int64_t* at_;
};

// Statistics apply to cases with at least this many outputs (TOSA: T >= 1000 tests per set). At
// T = 1000 a bias of 0.2 sigma per output reaches the bias limit (0.2 * 1000 = sqrt(40 * 1000)).
inline constexpr std::int64_t kStatisticsMinOutputs = 1000;

struct Statistics {
    std::int64_t outputs = 0;          // T: outputs with a finite result and a finite exact value
    std::int64_t vacuous_outputs = 0;  // outputs whose per-output bound is vacuous (bound_is_vacuous)
    std::int64_t max_vacuous_terms = 0;  // the largest n among them (for the message)
    double sum_squares = 0.0, sum = 0.0, sum_toward_zero = 0.0;  // sum z^2, sum z, sum z*sign(y*)
    std::int64_t vacuous_counted = 0;                           // vacuous outputs among the T
    double vacuous_sum_squares = 0.0, vacuous_sum = 0.0;        // the same over the vacuous outputs
    double vacuous_zero_sum_squares = 0.0;  // sum (y*/sigma)^2 over them: what an all-zero result scores
    // What judged the case: the bound's name (bound_name: "per_output", "whole_tensor",
    // "input_precision:tf32", ...; alone when there are too few outputs for statistics), that name
    // + "+statistics", "statistics" (every per-output bound vacuous), "unchecked" (some outputs have
    // a vacuous bound and the statistics cannot judge them); "exact" for an exact comparison.
    std::string judged_by = "per_output";
    std::string failure;    // why the statistics fail the case, or ""
    std::string unchecked;  // why outputs are unchecked (judged_by == "unchecked"), or ""
    double growth = 0.0;    // failing statistics: the factor sigma would have to grow by to pass
    bool bias_rules = true;  // false under a declared input precision or whole-tensor bound: variance rule only
    bool applied() const { return judged_by == "statistics" || judged_by.ends_with("+statistics"); }
    bool passed() const { return failure.empty(); }
};

// The rounding-noise scale sigma of one output (above).
double rounding_noise_scale(const Contract& c, double exact, double magnitude, std::int64_t terms);

// A per-output bound that checks nothing: not below the output type's largest finite value, or with
// phi_n(u_acc) >= 1 (n*u_acc about 1 or more), where it is >= M >= |y*| whatever the data: it admits 0, and
// every value between, for every output.
bool bound_is_vacuous(const Contract& c, double bound, std::int64_t terms);

// Fills the statistics of a bound-mode comparison. `bound` holds each output's per-output bound;
// with `statistical` false only the vacuous outputs are counted (CC layers: the model above does
// not cover their weight error).
Statistics judge_statistics(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            TermCounts terms, std::span<const double> got,
                            std::span<const double> bound, bool statistical);
// The same, with each output's per-output bound computed as it is read (error_bound, under bound_scale: the values
// error_bounds gives), instead of read from an array of them.
Statistics judge_statistics(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            TermCounts terms, std::span<const double> got, bool statistical);
// ... with the backend's f32 result read where it lies (a dense NCX f32 dst), each value widened as it is read.
Statistics judge_statistics(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            TermCounts terms, std::span<const float> got, bool statistical);

}  // namespace convcheck::accuracy
