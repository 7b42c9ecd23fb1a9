// The accuracy contract (DESIGN.md): how a backend's output is compared with the reference's
// exact result. The rule is data (a Contract), not tolerances scattered through tests.
//
// Bound mode: for output y with exact value y*, magnitude M = sum|x*w| (+|bias|) and n terms,
//     |y - y*| <= u_out * |y*| + phi_n(u_acc) * M + eta_out
// phi_n(u) <= gamma_n(u) = n*u / (1 - n*u) is convcheck::accumulation_factor (convcheck/core/rounding_error.hpp):
// about n*u, proven for any summation order.
// u_out, u_acc: unit roundoffs of the output and accumulation types (f32 2^-24, bf16 2^-8,
// f16 2^-11). eta_out is half the smallest subnormal of the output type: the absolute error of
// rounding into the subnormal range (the standard model fl(x) = x(1+delta) + eta; DESIGN.md's
// formula omits it, and without it an exact result that rounds to a subnormal could "fail").
// Exact mode: integer fills small enough that every partial sum is exact; any difference fails.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/float8.hpp"
#include "convcheck/core/post_op_nan.hpp"
#include "convcheck/core/rounding_error.hpp"
#include "convcheck/accuracy/statistics.hpp"

namespace convcheck::accuracy {

// exact, bound and probe as above; stress: bound mode's contract (per-output bound and statistics)
// on data kinds that stress rounding (stress_fill.hpp); precision: exact results that need every
// significand bit of the inputs (precision_fill.hpp); invalid: a descriptor that breaks one rule of
// the spec, which the backend must refuse (the invalid-case suite, docs/runner.md).
enum class Mode { exact, bound, probe, stress, precision, invalid, sampled };
const char* to_string(Mode mode);
// "exact", "bound", ... -> the mode; false on anything else.
bool parse_mode_name(const std::string& text, Mode* mode);
// A suite's mode letter: b(ound), e(xact), p(robe), s(tress), r (precision: "p" is taken), i(nvalid),
// l (sampled: the large suite's tensors past 2^31 elements or bytes, "s" is taken).
bool mode_from_letter(char letter, Mode* mode);
// The reverse: a mode's letter.
char mode_letter(Mode mode);
// "exact, bound, probe, stress, precision, invalid, sampled" (for messages and option checks).
const std::vector<std::string>& mode_names();
// Whether the mode's data makes the exact result the only right answer (exact, precision).
bool compares_exactly(Mode mode);

// Which magnitude a bound scales with (docs/accuracy.md, "Declared algorithms"): each output's own
// M and n (the default), or, for a backend that declares a whole-tensor bound (Winograd, FFT: their
// error scales with the tensor's largest magnitudes; TOSA's local_bound = false), the largest M and
// the largest n over the case's output tensor, for every output.
enum class BoundKind { per_output, whole_tensor };

struct Contract {
    DataType output_dtype = DataType::f32;
    DataType accumulation_dtype = DataType::f32;  // what the backend declares it accumulates in
    bool accumulation_is_f64 = false;  // the backend accumulates in double (u_acc = 2^-53): overrides the above
    BoundKind bound_kind = BoundKind::per_output;  // declared "bound": {"kind": "whole_tensor"}
    // Declared "input_precision": the backend rounds src and weights to this many significand bits
    // before multiplying (TF32 11, bf16 8); 0: it multiplies the inputs as given.
    int input_significand_bits = 0;
    // Declared "bias": {"added": "after_output_rounding"}: the backend rounds the sum to the output type, then adds
    // the bias in the output type and rounds again (cuDNN's convolution, then a separate bias add); set only for a
    // case with a bias.
    bool bias_after_output_rounding = false;
    // Declared "post_op_nan": what the backend's relu, clip, max and min post-ops make of a NaN (docs/post-ops.md);
    // by default the NaN propagates (IEEE 754-2019 maximum / minimum).
    PostOpNanPolicy post_op_nan = {};
    // Declared "fp8_conversion": {"overflow": "saturating"}: an fp8 output past the largest normal is the largest
    // normal, sign kept (OCP's saturating mode; NVIDIA's cvt .satfinite), not E4M3's NaN or E5M2's infinity
    // (core/float8.hpp, docs/fp8.md). Applies only where the output type is fp8.
    Fp8Overflow fp8_overflow = Fp8Overflow::non_saturating;
};
// The largest finite value of an output type (f32's FLT_MAX, f16's 65504, bf16's 0x7F7F, fp8's largest normal).
double largest_finite(DataType dtype);
// Whether the contract's fp8 overflow rule is the declared saturating one and applies (the output type is fp8).
bool fp8_saturates(const Contract& c);
// The exact value `exact` rounded once to the output type under the contract (an fp8 output's overflow rule as
// declared): exact mode's one right answer.
double round_to_output(const Contract& c, double exact);
// Whether a backend under this contract is held to the exact result where the mode's data makes it the only right
// answer: not under a declared whole-tensor bound (a transform-domain algorithm's result is never exact; exact and
// precision mode's data is then judged by that bound: docs/accuracy.md).
bool holds_to_exact_results(const Contract& c);
// Unit roundoff and significand bits of the declared accumulation type.
double accumulation_roundoff(const Contract& c);
int accumulation_significand_bits(const Contract& c);
// The declared input precision's unit roundoff u_in = 2^-p_in where it is narrower than the case's
// dtype (output_dtype: one dtype for every tensor), else 0 (rounding to it changes nothing).
double input_roundoff(const Contract& c);
// The declared input precision's name as backends.json spells it: "tf32" (11 bits), "bf16" (8 bits).
std::string input_precision_name(const Contract& c);
// The bound's name in results (error.judged_by): "per_output", "whole_tensor", "input_precision:tf32",
// "whole_tensor+input_precision:bf16" (the input precision only where it applies to the case's dtype), with
// "+bias_after_output_rounding" under that declaration, "+fp8_saturating" under a declared saturating fp8 conversion
// where the output is fp8.
std::string bound_name(const Contract& c);

// phi_n(u) is convcheck::accumulation_factor (convcheck/core/rounding_error.hpp).
// The allowed |y - y*| for one output, of magnitude M and n terms (for a whole-tensor bound, the
// caller passes the tensor's largest M and n: error_bounds does):
//     u_out |y*| + ((1 + u_in)^2 (1 + phi_n(u_acc)) - 1) M + eta_out
// which with u_in = 0 (no declared input precision) is the bound above (derivation: docs/accuracy.md,
// "Declared algorithms and input precision"). With the bias added after a first rounding to the output type
// (Contract::bias_after_output_rounding), with R = ((1 + u_in)^2 (1 + phi_n(u_acc)) - 1):
//     u_out |y*| + (1 + u_out) ((1 + u_out) R + u_out) M + (2 + u_out) eta_out
// (docs/accuracy.md, "Bias added after rounding").
double error_bound(const Contract& c, double exact, double magnitude, std::int64_t terms);
// Every output's bound under the contract: error_bound with each output's own M and n, or with the
// tensor's largest M and n for a whole-tensor bound.
std::vector<double> error_bounds(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                                 TermCounts terms);
// The M and n a bound uses for output i: its own, or the tensor's largest (whole-tensor bound).
struct BoundScale {
    bool whole_tensor = false;
    double max_magnitude = 0.0;
    std::int64_t max_terms = 0;
    double magnitude(double own) const { return whole_tensor ? max_magnitude : own; }
    std::int64_t terms(std::int64_t own) const { return whole_tensor ? max_terms : own; }
};
BoundScale bound_scale(const Contract& c, std::span<const double> magnitude, TermCounts terms);

// CC layers (docs/cc.md, "CC accuracy contract"): the backend computes the weights W = K_theta(D)
// itself, in its own precision, so its W~ differs from the reference's W. With
// weight_error E = sum |N| deltaW >= sum |N (W~ - W)| (reference/cc/weight_error.hpp), the
// accumulated value y^ = fl_acc(sum N W~ + b) and the output y~ = fl_out(y^):
//     |y^ - y*| <= |sum N (W~ - W)| + |fl_acc(sum N W~ + b) - (sum N W~ + b)|
//              <= E + phi_n(u_acc) (sum |N W~| + |b|)
//              <= E + phi_n(u_acc) (M + E)                    (|N W~| <= |N W| + |N| deltaW)
//     |y~ - y*| <= |fl_out(y^) - y^| + |y^ - y*| <= u_out |y*| + (1 + u_out) |y^ - y*| + eta_out
// so
//     |y~ - y*| <= u_out |y*| + (1 + u_out) (E + phi_n(u_acc) (M + E)) + eta_out
// (with E = 0 this is error_bound() with its phi term's first-order-dropped (1 + u_out) restored).
double cc_error_bound(const Contract& c, double exact, double magnitude, std::int64_t terms, double weight_error);
// The last step of both: an accumulated value within `accumulated` of the exact one, rounded to the
// output type: u_out |y*| + (1 + u_out) accumulated + eta_out.
double output_error_bound(const Contract& c, double exact, double accumulated);

// How bound mode judges one output: |got - want| / bound, which fails above 1 (or when NaN);
// 0 when the exact value overflows the output type and got is that infinity; infinity when got is
// not finite otherwise. Under a declared saturating fp8 conversion `want` is first clamped to the output's finite
// range: the saturating conversion is the clamp of the unbounded rounding, and a clamp moves no two values
// further apart, so the bound on the unbounded rounding holds for the clamped one. compare_bound and compare_bound_cc apply it to every output.
double bound_fraction(const Contract& c, double want, double got, double bound);

// Statistics of one comparison; what the JSON `error` record carries.
struct Comparison {
    std::int64_t elements = 0;
    std::int64_t mismatches = 0;
    double max_abs = 0.0;              // max |got - want| over finite pairs
    double max_bound_fraction = 0.0;   // max |got - want| / bound (bound mode); 0 or inf in exact mode
    std::array<std::int64_t, 11> bound_fraction_histogram{};  // [0,.1), ..., [.9,1), [1,inf)
    std::int64_t worst_index = -1;     // flat NCX index of the worst output (-1: none)
    double worst_got = 0.0, worst_want = 0.0, worst_bound = 0.0;
    std::int64_t first_mismatch = -1;  // flat index of the first failing output
    Statistics statistics;             // bound mode: vacuous outputs and the statistical checks
    bool passed() const { return mismatches == 0; }
};

// The comparisons below are the one place an output's pass or fail is decided. Each calls on_mismatch (when given)
// once for every output it fails, with the output's flat index, in order: the runner counts where the failures
// lie with it, and decides nothing again.
using OnMismatch = std::function<void(std::int64_t)>;

// got: the backend's output widened to double, in the same order as want (NCX for conv).
// A NaN or infinity in `got` where `want` rounds to a finite value is a mismatch.
Comparison compare_bound(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                         TermCounts terms, std::span<const double> got,
                         const OnMismatch& on_mismatch = {});
// The same with the backend's f32 result read where it lies (a dense NCX f32 dst: no copy widened to double first);
// each value is widened as it is read, so every verdict and number is the one the double overload gives.
Comparison compare_bound(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                         TermCounts terms, std::span<const float> got, const OnMismatch& on_mismatch = {});
// compare_bound on a tensor handed over a slice at a time, in output order: the runner's reference of a large
// convolution comes an image at a time, judged as it comes, so no array of the whole tensor's exact values is ever
// held. finish() gives the Comparison compare_bound gives the whole tensor, bit for bit (each output's bound,
// fraction and statistics' terms are its own; every sum is added in output order). Per-output bounds only: a
// whole-tensor bound needs every output's M before the first is judged. Each slice's term counts cover it (a
// pattern restarts at the slice's first output).
class SlicedBoundComparison {
public:
    SlicedBoundComparison(const Contract& c, std::int64_t elements, OnMismatch on_mismatch = {});
    ~SlicedBoundComparison();
    SlicedBoundComparison(const SlicedBoundComparison&) = delete;
    SlicedBoundComparison& operator=(const SlicedBoundComparison&) = delete;
    // the next want.size() outputs; on_mismatch hears each failing output's index in the whole tensor
    void add(std::span<const double> want, std::span<const double> magnitude, TermCounts terms,
             std::span<const float> got);
    // after every output was added
    Comparison finish();

private:
    struct State;
    std::unique_ptr<State> state_;
    OnMismatch on_mismatch_;
    Comparison r_;
    std::int64_t offset_ = 0;
};
// The CC comparison: as compare_bound, with cc_error_bound and weight_error per output.
Comparison compare_bound_cc(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                            std::span<const std::int64_t> terms, std::span<const double> weight_error,
                            std::span<const double> got, const OnMismatch& on_mismatch = {});
// Bound mode with each output's allowed |got - want| given (a contract derived elsewhere: the CC
// backward pass's, docs/cc-backward.md); no statistical checks (the bounds are not one rounding model).
Comparison compare_bound_given(const Contract& c, std::span<const double> want, std::span<const double> magnitude,
                               TermCounts terms, std::span<const double> got,
                               std::vector<double> bounds, const OnMismatch& on_mismatch = {});
Comparison compare_exact(std::span<const double> want, std::span<const double> got,
                         const OnMismatch& on_mismatch = {});

// Exact-mode data for a discrete convolution, canonical order (src NCX, weights OIX, bias [O]).
// Values are small integers; each output channel's weights have at most `max_nonzero_taps`
// non-zero entries, so every partial sum of every output is an integer of magnitude
// < 2^min(p_acc, p_out) (p: significand bits), exactly representable in the accumulation and
// output types, whatever the summation order; the inputs (at most 15) are exact in every float dtype,
// so a mixed descriptor's tensors hold them too. Deterministic for (descriptor, seed).
struct ExactFill {
    std::vector<double> src, weights, bias;
    std::int64_t max_src = 0, max_weight = 0, max_bias = 0, max_nonzero_taps = 0;
};
ExactFill make_exact_fill(const ConvDescriptor& d, const Contract& c, std::uint64_t seed);

// Bound-mode data: uniform in [-1, 1] (bias too), each value already rounded to its tensor's dtype.
struct RandomFill {
    std::vector<double> src, weights, bias;
};
RandomFill make_random_fill(const ConvDescriptor& d, std::uint64_t seed);
// The value libstdc++'s std::uniform_real_distribution<double>(-1, 1) makes of one word of std::mt19937_64 (one word
// a draw), before the rounding to a dtype: make_random_fill's values, word by word, with any standard library.
double uniform_value_of_word(std::uint64_t word);
// make_random_fill's values a run at a time, in its order (src, then weights, then bias), for a caller that stores
// them as they come instead of holding a tensor of doubles (the runner writes a large f32 src straight into the
// plugin's buffer): draws of the same total count give the same values however they are split.
class RandomFillStream {
public:
    explicit RandomFillStream(std::uint64_t seed);
    ~RandomFillStream();
    RandomFillStream(const RandomFillStream&) = delete;
    RandomFillStream& operator=(const RandomFillStream&) = delete;
    // the next values.size() values, each rounded to `dtype` (the tensor's)
    void draw(DataType dtype, std::span<double> values);

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Significand bits (hidden bit included): f32 24, f16 11, bf16 8, f64 53.
int significand_bits(DataType dtype);

}  // namespace convcheck::accuracy
