#include "convcheck/accuracy/accuracy.hpp"

#include "bound_formula.hpp"
#include "judge_blocks.hpp"
#include "statistics_sums.hpp"

#include <algorithm>
#include <stdexcept>
#include <cmath>
#include <future>
#include <limits>
#include <numeric>
#include <random>

namespace convcheck::accuracy {

const char* to_string(Mode mode) {
    switch (mode) {
        case Mode::exact: return "exact";
        case Mode::bound: return "bound";
        case Mode::probe: return "probe";
        case Mode::stress: return "stress";
        case Mode::precision: return "precision";
        case Mode::invalid: return "invalid";
        case Mode::sampled: return "sampled";
    }
    return "?";
}

const std::vector<std::string>& mode_names() {
    static const std::vector<std::string> names = {"exact", "bound", "probe", "stress", "precision", "invalid", "sampled"};
    return names;
}

bool parse_mode_name(const std::string& text, Mode* mode) {
    for (Mode m : {Mode::exact, Mode::bound, Mode::probe, Mode::stress, Mode::precision, Mode::invalid, Mode::sampled})
        if (text == to_string(m)) {
            *mode = m;
            return true;
        }
    return false;
}

bool mode_from_letter(char letter, Mode* mode) {
    switch (letter) {
        case 'b': *mode = Mode::bound; return true;
        case 'e': *mode = Mode::exact; return true;
        case 'p': *mode = Mode::probe; return true;
        case 's': *mode = Mode::stress; return true;
        case 'r': *mode = Mode::precision; return true;
        case 'i': *mode = Mode::invalid; return true;
        case 'l': *mode = Mode::sampled; return true;
    }
    return false;
}

char mode_letter(Mode mode) {
    for (char letter : {'b', 'e', 'p', 's', 'r', 'i', 'l'}) {
        Mode m;
        if (mode_from_letter(letter, &m) && m == mode) return letter;
    }
    return '?';
}

bool compares_exactly(Mode mode) { return mode == Mode::exact || mode == Mode::precision; }

int significand_bits(DataType dtype) {
    switch (dtype) {
        case DataType::f32: return 24;
        case DataType::f16: return 11;
        case DataType::bf16: return 8;
        case DataType::f64: return 53;
        case DataType::f8_e4m3: return 4;
        case DataType::f8_e5m2: return 3;
    }
    return 53;
}

namespace detail {
double half_smallest_subnormal(DataType dtype) {
    switch (dtype) {
        case DataType::f32: return std::ldexp(1.0, -150);
        case DataType::f16: return std::ldexp(1.0, -25);
        case DataType::bf16: return std::ldexp(1.0, -134);
        case DataType::f64: return std::ldexp(1.0, -1074);  // half of it, 2^-1075, is no double: the subnormal itself
        case DataType::f8_e4m3: return std::ldexp(1.0, -10);  // smallest subnormal 2^-9
        case DataType::f8_e5m2: return std::ldexp(1.0, -17);  // smallest subnormal 2^-16
    }
    return 0.0;
}
}  // namespace detail

using detail::BoundFormula;
using detail::half_smallest_subnormal;

bool holds_to_exact_results(const Contract& c) { return c.bound_kind != BoundKind::whole_tensor; }

double accumulation_roundoff(const Contract& c) {
    return c.accumulation_is_f64 ? std::ldexp(1.0, -53) : unit_roundoff(c.accumulation_dtype);
}

int accumulation_significand_bits(const Contract& c) {
    return c.accumulation_is_f64 ? 53 : significand_bits(c.accumulation_dtype);
}

double input_roundoff(const Contract& c) {
    // TF32 and bf16 input precision (a declaration, fpmath) round f32 inputs: an f64 case computes strictly
    if (c.output_dtype == DataType::f64) return 0.0;
    const int bits = c.input_significand_bits;
    return bits > 0 && bits < significand_bits(c.output_dtype) ? std::ldexp(1.0, -bits) : 0.0;
}

std::string input_precision_name(const Contract& c) {
    switch (c.input_significand_bits) {
        case 11: return "tf32";
        case 8: return "bf16";
    }
    return std::to_string(c.input_significand_bits) + "_bits";
}

std::string bound_name(const Contract& c) {
    std::string name = c.bound_kind == BoundKind::whole_tensor ? "whole_tensor" : "";
    if (input_roundoff(c) > 0.0) name += std::string(name.empty() ? "" : "+") + "input_precision:" + input_precision_name(c);
    if (c.bias_after_output_rounding) name += std::string(name.empty() ? "" : "+") + "bias_after_output_rounding";
    if (fp8_saturates(c)) name += std::string(name.empty() ? "" : "+") + "fp8_saturating";
    return name.empty() ? "per_output" : name;
}

bool fp8_saturates(const Contract& c) { return is_fp8(c.output_dtype) && c.fp8_overflow == Fp8Overflow::saturating; }

double round_to_output(const Contract& c, double exact) {
    switch (c.output_dtype) {
        case DataType::f8_e4m3: return f8_e4m3_to_f64(f64_to_f8_e4m3(exact, c.fp8_overflow));
        case DataType::f8_e5m2: return f8_e5m2_to_f64(f64_to_f8_e5m2(exact, c.fp8_overflow));
        default: return round_to(c.output_dtype, exact);
    }
}


double error_bound(const Contract& c, double exact, double magnitude, std::int64_t terms) {
    return BoundFormula(c)(exact, magnitude, terms);
}

BoundScale bound_scale(const Contract& c, std::span<const double> magnitude, TermCounts terms) {
    BoundScale s;
    if (c.bound_kind != BoundKind::whole_tensor) return s;
    s.whole_tensor = true;
    TermCursor n(terms);
    for (std::size_t i = 0; i < magnitude.size(); ++i) {
        if (std::isfinite(magnitude[i])) s.max_magnitude = std::max(s.max_magnitude, magnitude[i]);
        s.max_terms = std::max(s.max_terms, n.next());
    }
    return s;
}

std::vector<double> error_bounds(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                                 TermCounts terms) {
    const BoundScale scale = bound_scale(c, magnitude, terms);
    BoundFormula bound(c);
    std::vector<double> bounds(want.size());
    TermCursor n(terms);
    for (std::size_t i = 0; i < want.size(); ++i)
        bounds[i] = bound(want[i], scale.magnitude(magnitude[i]), scale.terms(n.next()));
    return bounds;
}

double output_error_bound(const Contract& c, double exact, double accumulated) {
    const double u_out = unit_roundoff(c.output_dtype);
    return u_out * std::fabs(exact) + (1.0 + u_out) * accumulated + half_smallest_subnormal(c.output_dtype);
}

double cc_error_bound(const Contract& c, double exact, double magnitude, std::int64_t terms, double weight_error) {
    const double accumulated = weight_error + accumulation_factor(terms, accumulation_roundoff(c)) * (magnitude + weight_error);
    return output_error_bound(c, exact, accumulated);
}

double largest_finite(DataType dtype) {
    switch (dtype) {
        case DataType::f32: return std::numeric_limits<float>::max();
        case DataType::f16: return 65504.0;
        case DataType::bf16: return 3.3895313892515355e38;  // 0x7F7F
        case DataType::f64: return std::numeric_limits<double>::max();
        case DataType::f8_e4m3: return 448.0;
        case DataType::f8_e5m2: return 57344.0;
    }
    return std::numeric_limits<double>::max();
}

namespace {

// bound_fraction's common case: a finite exact value inside a non-fp8 output type's range rounds to a finite value,
// so none of its special cases applies (`largest`: largest_finite of a non-fp8 output type; -1 for fp8, where no
// output is plain)
bool plain_output(double largest, double want) { return std::fabs(want) <= largest; }
double plain_largest(const Contract& c) { return is_fp8(c.output_dtype) ? -1.0 : largest_finite(c.output_dtype); }

}  // namespace

double bound_fraction(const Contract& c, double want, double got, double bound) {
    // the common case first (the same result, without rounding `want` for every output)
    if (plain_output(plain_largest(c), want)) {
        if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
        const double err = std::fabs(got - want);
        return err == 0.0 ? 0.0 : err / bound;
    }
    // a declared saturating fp8 conversion: the right answer past the range is the largest normal (accuracy.hpp)
    if (fp8_saturates(c) && std::isfinite(want)) {
        want = std::clamp(want, -largest_finite(c.output_dtype), largest_finite(c.output_dtype));
    }
    const double rounded = round_to_output(c, want);
    if (std::isinf(rounded) && got == rounded) return 0.0;  // the exact value overflows the output type; inf is right
    if (std::isnan(want) && std::isnan(got)) return 0.0;     // the exact value is NaN (log of a negative value)
    // f8_e4m3 has no infinity: a finite exact value past its range rounds to its NaN (core/float8.hpp)
    if (std::isnan(rounded) && !std::isnan(want) && std::isnan(got)) return 0.0;
    if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
    const double err = std::fabs(got - want);
    return err == 0.0 ? 0.0 : err / bound;
}

namespace {

// Records outputs into a Comparison one at a time, in output order, its running numbers kept in locals (registers)
// until finish() writes them back.
class Recorder {
public:
    Recorder(Comparison& r, const OnMismatch& on_mismatch) : r_(r), on_mismatch_(on_mismatch) {}
    [[gnu::always_inline]] void add(std::int64_t i, double got, double want, double bound, double fraction,
                                    bool mismatch) {
        ++histogram_[fraction >= 1.0 ? 10 : static_cast<int>(fraction * 10.0)];
        if (std::isfinite(got) && std::isfinite(want)) max_abs_ = std::max(max_abs_, std::fabs(got - want));
        if (mismatch) failed(i);
        if (worst_index_ < 0 || fraction > max_fraction_) {
            max_fraction_ = fraction;
            worst_index_ = i;
            worst_got_ = got;
            worst_want_ = want;
            worst_bound_ = bound;
        }
    }
    void finish() {
        r_.bound_fraction_histogram = histogram_;
        r_.max_abs = max_abs_;
        r_.max_bound_fraction = max_fraction_;
        r_.worst_index = worst_index_;
        r_.worst_got = worst_got_, r_.worst_want = worst_want_, r_.worst_bound = worst_bound_;
    }

private:
    [[gnu::noinline]] void failed(std::int64_t i) {
        ++r_.mismatches;
        if (r_.first_mismatch < 0) r_.first_mismatch = i;
        if (on_mismatch_) on_mismatch_(i);
    }

    Comparison& r_;
    const OnMismatch& on_mismatch_;
    std::array<std::int64_t, 11> histogram_ = r_.bound_fraction_histogram;
    double max_abs_ = r_.max_abs, max_fraction_ = r_.max_bound_fraction;
    std::int64_t worst_index_ = r_.worst_index;
    double worst_got_ = r_.worst_got, worst_want_ = r_.worst_want, worst_bound_ = r_.worst_bound;
};

}  // namespace

namespace {

// Outputs from which the statistics run on a thread beside the comparison (a thread costs some tens of us).
constexpr std::size_t kOutputsForThread = std::size_t{1} << 16;

// The per-output comparison of bound mode over outputs [offset, offset + want.size()) of a tensor, recorded into r,
// with `bounds` (judge_blocks.hpp's GivenBounds or ComputedBounds) the allowed |got[i] - want[i]|, asked for a block
// at a time in output order.
// got: the backend's result widened to double, or its f32 values where they lie (each widened as it is read).
// A block of outputs at a time (judge_blocks.hpp): their bounds, then their fractions in one vectorised loop, then
// each output recorded in output order.
template <class Got, class Bounds>
void compare_outputs(Comparison& r, std::int64_t offset, std::span<const double> want, std::span<const Got> got,
                     Bounds& bounds, const Contract& c, const OnMismatch& on_mismatch) {
    // bound_fraction's first case (a finite result, an exact value inside a non-fp8 type's range) from the block's
    // fractions; every other output from bound_fraction itself
    const double largest = plain_largest(c);
    constexpr std::size_t B = detail::kJudgeBlock;
    double bound[B], y[B], fraction[B];
    Recorder recorder(r, on_mismatch);
    for (std::size_t first = 0; first < want.size(); first += B) {
        const std::size_t count = std::min(B, want.size() - first);
        const double* w = want.data() + first;
        bounds.fill(first, count, bound);
        for (std::size_t j = 0; j < count; ++j) y[j] = got[first + j];
        detail::fraction_block(count, w, y, bound, fraction);
        for (std::size_t j = 0; j < count; ++j) {
            const double f = plain_output(largest, w[j]) && std::isfinite(y[j])
                                 ? fraction[j]
                                 : bound_fraction(c, w[j], y[j], bound[j]);
            recorder.add(offset + static_cast<std::int64_t>(first + j), y[j], w[j], bound[j], f, !(f <= 1.0));
        }
    }
    recorder.finish();
}

void check_terms(TermCounts terms, std::size_t outputs) {
    if (!terms.covers(outputs))
        throw std::invalid_argument("compare: " + std::to_string(terms.counts.size()) + " term counts for " +
                                    std::to_string(outputs) + " outputs");
}

// Runs `comparison` here and `statistics` beside it: the two read the same arrays and share nothing else, so on a
// large tensor the statistics take a thread of their own (each pass in output order, the same bits either way).
template <class Comparing, class Counting>
void compare_and_count(std::size_t outputs, Comparing comparison, Counting statistics) {
    std::future<void> beside;
    if (outputs >= kOutputsForThread) beside = std::async(std::launch::async, statistics);
    comparison();
    if (beside.valid()) beside.get();
    else statistics();
}

// Bound mode over every output (compare_outputs), then the vacuous outputs and the statistics (statistics.hpp),
// `statistics()`.
template <class Got, class Bounds, class StatisticsOf>
Comparison compare_with(std::span<const double> want, TermCounts terms, std::span<const Got> got, Bounds bounds,
                        StatisticsOf statistics, const Contract& c, const OnMismatch& on_mismatch) {
    check_terms(terms, want.size());
    Comparison r;
    r.elements = static_cast<std::int64_t>(want.size());
    compare_and_count(
        want.size(), [&] { compare_outputs(r, 0, want, got, bounds, c, on_mismatch); },
        [&] { r.statistics = statistics(); });
    return r;
}

// compare_with with the bounds of an array
Comparison compare_with(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                        TermCounts terms, std::span<const double> got, bool statistical,
                        const std::vector<double>& bounds, const OnMismatch& on_mismatch) {
    return compare_with(
        want, terms, got, detail::GivenBounds(bounds),
        [&] { return judge_statistics(c, want, magnitude, terms, got, bounds, statistical); }, c, on_mismatch);
}

// Each output's bound as error_bounds gives it, computed as the comparison reads it (and again by the statistics,
// on their own thread) rather than stored: an array of them would be 8 bytes per output, written and read twice.
template <class Got>
Comparison compare_bound_computed(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                                  TermCounts terms, std::span<const Got> got, const OnMismatch& on_mismatch) {
    return compare_with(
        want, terms, got, detail::ComputedBounds(c, want, magnitude, terms),
        [&] { return judge_statistics(c, want, magnitude, terms, got, true); }, c, on_mismatch);
}

}  // namespace

Comparison compare_bound(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                         TermCounts terms, std::span<const double> got, const OnMismatch& on_mismatch) {
    return compare_bound_computed(c, want, magnitude, terms, got, on_mismatch);
}

Comparison compare_bound(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                         TermCounts terms, std::span<const float> got, const OnMismatch& on_mismatch) {
    return compare_bound_computed(c, want, magnitude, terms, got, on_mismatch);
}

struct SlicedBoundComparison::State {
    State(const Contract& c, bool statistical) : contract(c), sums(contract, statistical) {}
    Contract contract;
    detail::StatisticsSums sums;
};

SlicedBoundComparison::SlicedBoundComparison(const Contract& c, std::int64_t elements, OnMismatch on_mismatch)
    : state_(std::make_unique<State>(c, true)), on_mismatch_(std::move(on_mismatch)) {
    if (c.bound_kind != BoundKind::per_output)
        throw std::invalid_argument("a sliced comparison judges per-output bounds only, not " + bound_name(c) +
                                    " (a whole-tensor bound takes every output's M before the first is judged)");
    r_.elements = elements;
}

SlicedBoundComparison::~SlicedBoundComparison() = default;

void SlicedBoundComparison::add(std::span<const double> want, std::span<const double> magnitude, TermCounts terms,
                                std::span<const float> got) {
    check_terms(terms, want.size());
    if (magnitude.size() != want.size() || got.size() != want.size() ||
        offset_ + static_cast<std::int64_t>(want.size()) > r_.elements)
        throw std::invalid_argument("compare: a slice of " + std::to_string(want.size()) + " outputs (" +
                                    std::to_string(magnitude.size()) + " magnitudes, " + std::to_string(got.size()) +
                                    " results) at output " + std::to_string(offset_) + " of " +
                                    std::to_string(r_.elements));
    const Contract& c = state_->contract;
    const BoundScale scale = bound_scale(c, magnitude, terms);  // per-output: each output's own M and n
    compare_and_count(
        want.size(),
        [&] {
            detail::ComputedBounds bounds(c, want, magnitude, terms);
            compare_outputs(r_, offset_, want, got, bounds, c, on_mismatch_);
        },
        [&] {
            detail::ComputedBounds bounds(c, want, magnitude, terms);
            state_->sums.add(want, magnitude, terms, scale, got, bounds);
        });
    offset_ += static_cast<std::int64_t>(want.size());
}

Comparison SlicedBoundComparison::finish() {
    if (offset_ != r_.elements)
        throw std::invalid_argument("compare: " + std::to_string(offset_) + " of " + std::to_string(r_.elements) +
                                    " outputs given before the comparison's end");
    r_.statistics = state_->sums.finish(r_.elements);
    return r_;
}

Comparison compare_bound_cc(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            std::span<const std::int64_t> terms, std::span<const double> weight_error,
                            std::span<const double> got, const OnMismatch& on_mismatch) {
    // CC layers keep their own bound (the CC weight error covers the backend's own precision); a
    // declared whole-tensor bound or input precision is about discrete convolution kernels.
    Contract per_output = c;
    per_output.bound_kind = BoundKind::per_output;
    per_output.input_significand_bits = 0;
    std::vector<double> bounds(want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        bounds[i] = cc_error_bound(per_output, want[i], magnitude[i], terms[i], weight_error[i]);
    return compare_with(per_output, want, magnitude, terms, got, false, bounds, on_mismatch);
}

Comparison compare_bound_given(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                               TermCounts terms, std::span<const double> got,
                               std::vector<double> bounds, const OnMismatch& on_mismatch) {
    return compare_with(c, want, magnitude, terms, got, false, bounds, on_mismatch);
}

Comparison compare_exact(std::span<const double> want, std::span<const double> got, const OnMismatch& on_mismatch) {
    Comparison r;
    r.statistics.judged_by = "exact";
    r.elements = static_cast<std::int64_t>(want.size());
    Recorder recorder(r, on_mismatch);
    for (std::size_t i = 0; i < want.size(); ++i) {
        const bool same = got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]));
        recorder.add(static_cast<std::int64_t>(i), got[i], want[i], 0.0,
                     same ? 0.0 : std::numeric_limits<double>::infinity(), !same);
    }
    recorder.finish();
    return r;
}

ExactFill make_exact_fill(const ConvDescriptor& d, const Contract& c, std::uint64_t seed) {
    ExactFill f;
    // An fp8 output: the partial sums are exact in the accumulation type and the result is rounded once to dst
    // (to nearest even, an e4m3 overflow to NaN), which exact mode checks bit for bit; others stay exact in dst.
    const bool fp8_out = is_fp8(c.output_dtype);
    const int p = fp8_out ? std::min(accumulation_significand_bits(c), 24)
                          : std::min(accumulation_significand_bits(c), significand_bits(c.output_dtype));
    const std::int64_t limit = std::int64_t(1) << p;  // every partial sum stays below this in magnitude
    // Input magnitudes: up to 3 (src) and 2 (weights) for 16-bit outputs, 7 and 7 for f32; with an fp8 tensor
    // the bias up to 8 (every integer up to 8 is exact in f8_e5m2, which has 3 significand bits).
    f.max_src = p >= 24 ? 7 : 3;
    f.max_weight = p >= 24 ? 7 : 2;
    f.max_bias = d.has_bias ? (p >= 24 ? (d.has_fp8() ? 8 : 15) : 4) : 0;
    std::int64_t kernel = 1;
    for (int a = 0; a < d.rank; ++a) kernel *= d.kernel_size[a];
    const std::int64_t taps = d.in_channels_per_group() * kernel;
    // |sum| <= bias + L * max_src * max_weight < limit
    f.max_nonzero_taps = std::min<std::int64_t>(taps, (limit - 1 - f.max_bias) / (f.max_src * f.max_weight));

    std::mt19937_64 rng(seed);
    auto uniform_int = [&](std::int64_t m) { return double(std::uniform_int_distribution<std::int64_t>(-m, m)(rng)); };
    f.src.resize(d.batch * d.in_channels * [&] {
        std::int64_t n = 1;
        for (int a = 0; a < d.rank; ++a) n *= d.input_size[a];
        return n;
    }());
    for (auto& v : f.src) v = uniform_int(f.max_src);
    f.weights.assign(d.out_channels * taps, 0.0);
    std::vector<std::int64_t> positions(taps);
    for (std::int64_t o = 0; o < d.out_channels; ++o) {
        std::iota(positions.begin(), positions.end(), 0);
        std::shuffle(positions.begin(), positions.end(), rng);
        for (std::int64_t j = 0; j < f.max_nonzero_taps; ++j) f.weights[o * taps + positions[j]] = uniform_int(f.max_weight);
    }
    if (d.has_bias) {
        f.bias.resize(d.out_channels);
        for (auto& v : f.bias) v = uniform_int(f.max_bias);
    }
    return f;
}

}  // namespace convcheck::accuracy
