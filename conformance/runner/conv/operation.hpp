// Internal to the runner: discrete convolution's pieces of the case pipeline (its entry in
// operation_traits.cpp): its traits and check (check.cpp), case data and executions (data.cpp, calls.cpp),
// and its other modes (stress.cpp, precision.cpp, probe.cpp, sampled.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../case_pipeline.hpp"
#include "convcheck/runner/conv_buffers.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/post_ops.hpp"

namespace convcheck::runner::detail {

// ---- discrete convolution: its traits (check.cpp) ---------------------------------------------------
void conv_validate(const Case& c);
DataType conv_output_dtype(const Case& c);
// A "conv:" descriptor's claims: its memory layout, tensors_unclaimed, then ABI 1.2's (its pass in
// prop_kinds, mixed dtypes, extensions: abi_claims.hpp).
std::string conv_unclaimed(const PluginInfo& info, const Case& c);
// Whether the plugin claims the "conv:" descriptor's pass (dir=, ABI 1.2's prop_kinds: abi_claims.hpp).
std::string conv_pass_unclaimed(const PluginInfo& info, const Case& c);
void check_conv(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                const CaseMemory& needs, CaseResult& r);
// Invalid mode: the backend must refuse a descriptor that breaks a rule (check_invalid.cpp).
void check_conv_invalid(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);
// [n, c, spatial...] of a flat NCX output index, and whether an output's receptive field reaches
// into the padding (or past a cropped edge) on any axis.
std::vector<std::int64_t> output_coordinates(const ConvDescriptor& d, std::int64_t flat);
bool touches_border(const ConvDescriptor& d, const std::vector<std::int64_t>& coordinates);
OutputLocation conv_location(const ConvDescriptor& d);  // d must outlive it
std::string mismatch_reason(const ConvDescriptor& d, const ErrorReport& e, accuracy::Mode mode,
                            std::span<const double> got, std::span<const double> want, std::int64_t unwritten);

// ---- discrete convolution: its case data and executions (data.cpp) ---------------------
// One isolated execution on b (execute_conv), recorded in the execution log when there is one. With
// one_shot (and a plugin with a plan), the one-shot conv_execute also runs, into a second dst that
// must match the plan's (operation_calls.hpp).
ChildOutcome run_backend(const Backend& backend, const ConvDescriptor& d, const Buffers& b, const CheckSettings& s,
                         const CaseMemory& needs, bool one_shot = true);
std::int64_t unwritten_elements(const ConvDescriptor& d, const void* dst);
// A stored golden vector's inputs in buffers, and its stored truth.
struct StoredConvData {
    std::string name;  // "<set>/<case>"
    Buffers buffers;
    std::vector<double> want_rounded;  // the stored dst, in the dtype
    std::vector<double> want, magnitude;  // dst_f64, magnitude
    std::vector<std::int64_t> terms;
};
StoredConvData stored_conv_data(const Case& c);

// Whether reference_sums takes the GEMM evaluator for a generated case of descriptor d in `mode`.
bool gemm_reference_sums(const ConvDescriptor& d, accuracy::Mode mode);
// Whether a backward pass's generated case takes its sums from the GEMM evaluators (backward/check.cpp): bound
// mode with src, weights and diff_dst in f32, f16 or bf16, where this CPU runs them.
bool gemm_backward_reference_sums(const ConvDescriptor& d, accuracy::Mode mode);
// Whether a generated forward case keeps one plane's term counts instead of one per output (conv/check.cpp): the GEMM
// evaluator's sums without scales or post-ops.
bool plane_term_counts_only(const ConvDescriptor& d, accuracy::Mode mode);
// The reference's sums for a generated exact- or bound-mode case (conv/reference_sums.cpp): bound mode's f32, f16
// and bf16 cases on the GEMM evaluator (reference/gemm_summation.hpp) where this CPU runs it, every other case
// on the definition's bits (fast_convolution_summation). With `plane_terms`, the GEMM evaluator leaves the result's
// terms empty and gives one output plane's counts there, for every plane (accuracy::TermCounts reads them so);
// the definition's evaluator fills terms and leaves *plane_terms empty.
reference::ConvResult reference_sums(const ConvDescriptor& d, accuracy::Mode mode, std::span<const double> src,
                                     std::span<const double> weights, std::span<const double> bias,
                                     std::vector<std::int64_t>* plane_terms = nullptr);
// Whether a generated case is judged an image at a time (compare_an_image_at_a_time): bound mode on the GEMM
// evaluator's sums without scales or post-ops, a dense NCX f32 src and dst read where they lie, per-output bounds,
// and no profiles asked for (they take the whole tensor).
bool judged_an_image_at_a_time(const ConvDescriptor& d, accuracy::Mode mode, const accuracy::Contract& contract,
                               bool profiles);
// Bound mode's comparison of the backend's dense NCX f32 dst with the reference's sums made a slice of whole images
// at a time and judged as they come (accuracy::SlicedBoundComparison): the Comparison reference_sums and
// compare_bound give the whole tensor, bit for bit, while the runner holds one slice's exact values and magnitudes
// instead of the tensor's (two doubles per output).
// src: the dense NCX f32 src the backend read (its buffer: mapped read-only in the plugin's child).
accuracy::Comparison compare_an_image_at_a_time(const ConvDescriptor& d, const accuracy::Contract& contract,
                                                std::span<const float> src, std::span<const double> weights,
                                                std::span<const double> bias, std::span<const float> got);
// Bound mode's random fill (accuracy::make_random_fill's values) for a dense NCX f32 src: src drawn a run at a
// time straight into its buffer, never held in double; weights and bias also left in canonical double.
Buffers make_random_buffers(const ConvDescriptor& d, std::uint64_t seed, std::vector<double>& weights,
                            std::vector<double>& bias);

// ---- discrete convolution: its other modes -------------------------------------------------------
// Stress mode: every data kind of stress_fill.hpp, each under bound mode's contract (conv/stress.cpp).
void check_conv_stress(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// Precision mode: exact results that need every input bit; names a reduced input precision
// (TF32, bf16) when the backend's result is the one it gives (conv/precision.cpp).
void check_conv_precision(const Backend& backend, const Case& c, const CheckSettings& s,
                          const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// Why exact data cannot be judged under a declared input precision (TF32, bf16) that applies to the
// case: some src or weight value needs more significand bits than it keeps; "" when every value fits.
std::string inputs_beyond_declared_precision(const accuracy::Contract& contract, const std::vector<double>& src,
                                             const std::vector<double>& weights);
void check_conv_probe(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                      const CaseMemory& needs, CaseResult& r);
// Sampled mode: the large suite's tensors past 2^31 elements or bytes, judged on a sample of outputs
// plus a scan of every dst element for the canary (conv/sampled.cpp).
void check_conv_sampled(const Backend& backend, const Case& c, const CheckSettings& s,
                        const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);

// ---- discrete convolution: fused post-ops (conv/post_ops.cpp, docs/post-ops.md) ----------------------
// "" when the plugin claims every op of d's chain (ABI 1.6), else why not.
std::string post_ops_unclaimed(const PluginInfo& info, const ConvDescriptor& d);
// The operands and the prior dst of d's chain, drawn from the seed (exact mode: small integers).
reference::PostOpData make_post_op_data(const ConvDescriptor& d, accuracy::Mode mode, std::uint64_t seed);
// Exact mode: "" when every value after every op of the exact results y is exact in the accumulation type
// (and no op is transcendental), else why the case cannot be judged exactly.
std::string post_ops_not_exact(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                               std::span<const double> y);
// Bound mode: each output's allowed |got - want|, the convolution's bound carried through the chain.
// One output's value v (exact, before the chain; after it on return) within e of the backend's, carried through
// the chain as above: the bound after the last op, before the rounding to dst (post_op_bounds and the quantized
// general output share it).
// `first`: the op to start at (probe mode: after the op whose NaN policy made a number of a NaN, e = 0);
// `end`: the op to stop before (every op by default).
double carry_post_op_bound(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                           std::int64_t at, double& v, double e, std::string* undetermined = nullptr,
                           std::size_t first = 0, std::size_t end = SIZE_MAX);
// With a dst scale other than 1 (scales.hpp), the value after the chain is divided by it, with two more f32
// roundings (1 / dst_scale and the product) on the bound before dst's rounding.
// `zero_judged` (probe mode's signed zero, docs/post-ops.md, "NaN and signed zero"), when given: 1 for each output
// whose chain ends in relu with alpha 0 (or a clip with a bound of 0) and whose value before that op lies on the
// zero side by more than the bound carried to it (below 0, or past the clip's zero bound): every backend's result
// there is a zero, and its sign is judged (relu's the declared one, post_op_signed_zero; clip's its bound's); 0
// elsewhere.
std::vector<double> post_op_bounds(const ConvDescriptor& d, const accuracy::Contract& c,
                                   const reference::PostOpData& data, std::span<const double> y,
                                   std::span<const double> magnitude, std::span<const std::int64_t> terms,
                                   std::string* undetermined = nullptr, double dst_scale = 1.0,
                                   std::vector<char>* zero_judged = nullptr);
// Probe mode: "" when the NaN policy of every op of d's chain is known (declared for relu, clip, max and min; fixed
// by its arithmetic for the rest), else why the case is declined.
std::string post_ops_not_probed(const ConvDescriptor& d);
// Probe mode: the chain applied to one run's results under the contract's declared NaN policy. `with_nan` (the
// convolution with the NaN in place) becomes the chain's result where the NaN reaches, `want`'s (the chain's
// result without the NaN) elsewhere; where the policy turns the NaN into a number, `want` and `bounds` (the
// bounds carried through the chain without the NaN) become that number and its bound through the rest.
void probe_post_ops(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                    std::span<double> with_nan, std::span<double> want, std::span<double> bounds);
// The pieces of that bound, for its tests: how far eltwise op can move values within e of v (inf where the
// interval reaches past the op's domain); sup |f'| over [a, b] of the ops judged by one (hardswish_ab, mish);
// whether [a, b] reaches past op's domain.
double eltwise_spread(const PostOp& op, double v, double e);
double lipschitz(const PostOp& op, double a, double b);
bool outside_domain(const PostOp& op, double a, double b);

// ---- discrete convolution: scales (conv/scales.cpp, docs/scales.md) -----------------------------------------
// d with its per-channel scales drawn from the seed when wsc=oc asks for them; d itself otherwise.
ConvDescriptor with_drawn_scales(const ConvDescriptor& d, std::uint64_t seed);
// "" unless d has scales and the plugin's ABI predates the scales extension (1.7).
std::string scales_unclaimed(const PluginInfo& info, const ConvDescriptor& d);
// Exact mode: "" when a dst scale that is a power of two and scale products exact in f32 make the scaled results
// (want: scaled_summation's, before any post-op) the one right answer, else why the case needs bound mode.
std::string scales_not_exact(const ConvDescriptor& d, const reference::ConvResult& want);
// The f32 roundings of the scale multiplications, counted as terms of the bound (two for src_scale * weights_scale
// and its product with the sum, two for the dst scale).
void count_scale_roundings(const ConvDescriptor& d, std::vector<std::int64_t>& terms);

}  // namespace convcheck::runner::detail
