// Internal to the runner: the pieces of the case pipeline (case_pipeline.cpp) that each operation
// of the table (operation_traits.cpp) supplies, and the probe judge they share. The verdict's
// operation-generic pieces are in verdict.hpp.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "convcheck/runner/case_memory.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/runner/check.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/formats/manifest.hpp"
#include "convcheck/formats/npy.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/verdict.hpp"

namespace convcheck::runner::detail {

// A child's limits for a check: --timeout, --leak-check, and the memory limit with the runner's part
// (`runner_bytes`: the case's own buffers and reference, case_memory.hpp).
inline ExecutionLimits execution_limits(const CheckSettings& s, std::int64_t runner_bytes) {
    return {s.leak_check, s.timeout_s, {s.memory_limit_bytes, runner_bytes}};
}

// One run of a case, expectations applied: check_case without determinism mode (case_pipeline.cpp).
CaseResult check_case_once(const Backend& backend, const Case& c, const CheckSettings& settings);
// The data file's expected failures applied to a result: xfail, xpass, or an intermittent one that passed.
void apply_expectations(const Backend& backend, CaseResult& r);
// The stored golden vector a case names (c.vector_case in the set); throws std::invalid_argument.
const vectors::VectorCase& stored_case(const vectors::VectorSet& set, const Case& c);

// ---- discrete convolution: its traits (conv_check.cpp) -------------------------------------------
void conv_validate(const Case& c);
DataType conv_output_dtype(const Case& c);
// The claims of describe every convolution reads (discrete convolution, its passes and transposed
// convolution, each on its own descriptor): dtype, rank, data and filter format; "" when claimed.
std::string tensors_unclaimed(const PluginInfo& info, DataType dtype, int rank, DataFormat data, FilterFormat filter);
// A "conv:" descriptor's claims: its memory layout, tensors_unclaimed, then ABI 1.2's (its pass in
// prop_kinds, mixed dtypes, extensions: abi_claims.hpp).
std::string conv_unclaimed(const PluginInfo& info, const Case& c);
void check_conv(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                const CaseMemory& needs, CaseResult& r);
// Invalid mode: the backend must refuse a descriptor that breaks a rule (check_invalid.cpp).
void check_conv_invalid(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);
// What the plugin's describe claims against what the case needs, the operation included; "" when claimed.
std::string unclaimed(const PluginInfo& info, const ConvDescriptor& d);
// [n, c, spatial...] of a flat NCX output index, and whether an output's receptive field reaches
// into the padding (or past a cropped edge) on any axis.
std::vector<std::int64_t> output_coordinates(const ConvDescriptor& d, std::int64_t flat);
bool touches_border(const ConvDescriptor& d, const std::vector<std::int64_t>& coordinates);
OutputLocation conv_location(const ConvDescriptor& d);  // d must outlive it
// Completes e, whose failing outputs count_failures counted while cmp was made: the comparison, the worst output's
// coordinates, and for a failed bound (bound_mode) how far the bound would have to grow.
void complete_error_report(const ConvDescriptor& d, const accuracy::Comparison& cmp, bool bound_mode, ErrorReport& e);
std::string mismatch_reason(const ConvDescriptor& d, const ErrorReport& e, accuracy::Mode mode,
                            std::span<const double> got, std::span<const double> want, std::int64_t unwritten);

// ---- discrete convolution: its case data and executions (conv_case_data.cpp) ---------------------
struct Buffers {
    GuardedBuffer src, weights, bias, dst;
};
// Canonical data (src NCX, weights OIX, bias [O]) in the case's layouts and dtype; dst "never written".
Buffers make_buffers(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                     const std::vector<double>& bias);
// The execution of buffers b (descriptor and buffers; timing, limits and the leak check at their defaults).
ConvExecution conv_execution(const ConvDescriptor& d, const Buffers& b);
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
// An f64 (or i64) array's values in order.
std::vector<double> f64_values(const npy::Array& a);

// ---- discrete convolution: its other modes -------------------------------------------------------
// Stress mode: every data kind of stress_fill.hpp, each under bound mode's contract (check_stress.cpp).
void check_conv_stress(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// Precision mode: exact results that need every input bit; names a reduced input precision
// (TF32, bf16) when the backend's result is the one it gives (check_precision.cpp).
void check_conv_precision(const Backend& backend, const Case& c, const CheckSettings& s,
                          const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// Why exact data cannot be judged under a declared input precision (TF32, bf16) that applies to the
// case: some src or weight value needs more significand bits than it keeps; "" when every value fits.
std::string inputs_beyond_declared_precision(const accuracy::Contract& contract, const std::vector<double>& src,
                                             const std::vector<double>& weights);
void check_conv_probe(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                      const CaseMemory& needs, CaseResult& r);
// Sampled mode: the large suite's tensors past 2^31 elements or bytes, judged on a sample of outputs
// plus a scan of every dst element for the canary (check_sampled.cpp).
void check_conv_sampled(const Backend& backend, const Case& c, const CheckSettings& s,
                        const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);

// ---- the backward passes of discrete convolution (conv_backward_check.cpp, conv_backward_data.cpp) --
// Exact and bound mode apply; every other mode is declined with the reason.
std::string backward_mode_not_applicable(accuracy::Mode mode);
// conv_unclaimed, and the runner's own limit: its backward buffers are dense, so a strided tensor or
// OXI weights are declined with the reason (never sent dense).
std::string backward_unclaimed(const PluginInfo& info, const Case& c);
void check_conv_backward(const Backend& backend, const Case& c, const CheckSettings& s,
                         const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// A backward pass's canonical inputs (src NCX, weights OIX, diff_dst NCX, each value already in
// the dtype) for the case's mode: exact mode's small integers, chosen so that every partial sum of
// the pass is exact in the contract's types, else why they cannot be; bound mode's uniform [-1, 1].
struct BackwardInputs {
    std::vector<double> src, weights, diff_dst;
    std::string not_exact;  // exact mode: why no such data exists for this case; "" otherwise
};
BackwardInputs backward_inputs(const ConvDescriptor& d, const accuracy::Contract& contract, accuracy::Mode mode,
                               std::uint64_t seed);
// The backend's gradients, canonical order (diff_src NCX, diff_weights OIX, diff_bias [O]): one
// isolated execution of the pass on guarded buffers in the case's layouts (recorded in s.log when
// set); an output the backend never wrote reads back as NaN and is counted in `unwritten`. bench
// times `repeats` executions after `warmups`.
struct BackwardOutputs {
    std::vector<double> got;        // diff_src, or diff_weights followed by diff_bias when has_bias
    std::int64_t unwritten = 0;
};
ChildOutcome run_backward(const Backend& backend, const ConvDescriptor& d, const BackwardInputs& in,
                          const CheckSettings& s, const CaseMemory& needs, BackwardOutputs& out, int warmups = 0,
                          int repeats = 1);
// A gradient element by its flat index in BackwardOutputs::got's order: "diff_src[n,c,x...]",
// "diff_weights[o,i,k...]" or "diff_bias[o]" (conv_backward_check.cpp).
std::string gradient_element(const ConvDescriptor& d, std::int64_t flat);
// Probe mode for a backward pass: one run per probed diff_dst element (conv_backward_probe.cpp).
void check_backward_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                          const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// One term of the forward's index set: x = y*s - pb + k*d on every axis, x inside the input, y inside the
// output, as flat canonical indices (src NCX, weights OIX, dst NCX). The probes of the forward and backward
// passes and of transposed convolution put a zero opposite their NaN with it (probe_partners.cpp): the first
// term that holds the given element, or none when every tap of it reads padding.
struct IndexPair {
    std::int64_t src = -1, weights = -1, dst = -1;
};
std::optional<IndexPair> first_pair_with_dst(const ConvDescriptor& d, std::int64_t dst);
std::optional<IndexPair> first_pair_with_weights(const ConvDescriptor& d, std::int64_t weights);
std::optional<IndexPair> first_pair_with_src(const ConvDescriptor& d, std::int64_t src);
// Sampled mode for a backward pass (the large suite): inputs written in place, a sample of gradient
// elements judged by the reference one at a time, every gradient element scanned for the canary
// (conv_backward_sampled.cpp).
void check_backward_sampled(const Backend& backend, const Case& c, const CheckSettings& s,
                            const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// The reference's gradients in the order BackwardOutputs::got holds them (conv_backward_check.cpp).
reference::GradientResult backward_reference(const ConvDescriptor& d, const BackwardInputs& in);
// A stored golden vector of a backward pass (vectors/sets/backward, c.vector_dir): its inputs and its
// truth (each gradient's f64 value, magnitude and terms, concatenated as BackwardOutputs::got is), read
// from the arrays alone. Throws when the stored descriptor is not the case's.
struct StoredBackward {
    BackwardInputs in;
    std::vector<double> values, magnitude;
    std::vector<std::int64_t> terms;
};
StoredBackward stored_backward_data(const Case& c);

// The verdict of a pass whose outputs are sums the reference gives with magnitudes and term counts
// (the backward passes, transposed convolution): compares `got` exactly or under the contract's
// bound, sets r's error, status, kind and reason (the first failing output by element(flat), got,
// want and its terms; `outputs` names them, "gradient elements"), the statistics and the leak check.
struct SummedOutputs {
    const std::vector<double>& want;
    const std::vector<double>& magnitude;
    const std::vector<std::int64_t>& terms;
    const std::vector<double>& got;
    std::int64_t unwritten = 0;
    const std::vector<double>* bounds = nullptr;  // bound mode: each output's own bound (else the contract's)
};
void judge_summed_outputs(const accuracy::Contract& contract, bool exact, const SummedOutputs& o, const char* outputs,
                          const std::function<std::string(std::int64_t)>& element, const ChildOutcome& outcome,
                          const CheckSettings& s, CaseResult& r);

// ---- transposed convolution (conv_transposed_check.cpp, conv_transposed_data.cpp; docs/transposed.md)
// Exact, bound and probe mode apply; every other mode is declined with the reason.
std::string transposed_mode_not_applicable(accuracy::Mode mode);
void transposed_validate(const Case& c);
DataType transposed_output_dtype(const Case& c);
// The plugin's claims, read on the transposed descriptor itself: ABI 1.3, then its dtype, rank and
// formats (tensors_unclaimed). Nothing of discrete convolution's: not prop_kinds (they name the passes
// of discrete convolution), so a plugin that claims transposed convolution and not the forward pass
// gets every transposed case.
std::string transposed_unclaimed(const PluginInfo& info, const Case& c);
// Invalid mode (check_invalid.cpp): the backend must refuse a transposed descriptor that breaks a rule.
void check_transposed_invalid(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);
void check_conv_transposed(const Backend& backend, const Case& c, const CheckSettings& s,
                           const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// A transposed convolution's canonical inputs, each value in the dtype: src NCX ([N][C][in...]), weights
// [C][O/G][k...] (its forward convolution's OIX), bias [O] or empty. Exact mode: small integers that keep
// every partial sum exact (backward_inputs of the forward's backward data, the bias in [-1, 1]), else why
// none exist; bound mode: uniform [-1, 1].
struct TransposedInputs {
    std::vector<double> src, weights, bias;
    std::string not_exact;
};
TransposedInputs transposed_inputs(const TransposedDescriptor& t, const accuracy::Contract& contract,
                                   accuracy::Mode mode, std::uint64_t seed);
// The backend's dst in canonical NCX order ([N][O][out...]): one isolated execution on guarded buffers
// in the case's layouts (recorded in s.log when set); never-written outputs read as NaN, counted.
struct TransposedOutputs {
    std::vector<double> got;
    std::int64_t unwritten = 0;
};
ChildOutcome run_transposed(const Backend& backend, const TransposedDescriptor& t, const TransposedInputs& in,
                            const CheckSettings& s, const CaseMemory& needs, TransposedOutputs& out, int warmups = 0,
                            int repeats = 1);
// A stored golden vector (vectors/sets/transposed): its inputs and truth (dst_f64, magnitude, terms),
// from the arrays alone. Throws when the stored descriptor is not the case's.
struct StoredTransposed {
    TransposedInputs in;
    std::vector<double> values, magnitude;
    std::vector<std::int64_t> terms;
};
StoredTransposed stored_transposed_data(const Case& c);
// Probe mode: one run per probed src element (conv_transposed_probe.cpp).
void check_transposed_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                            const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);

// ---- CC: its traits (cc_check.cpp), case data and executions (cc_case_data.cpp) -----------------
void cc_validate(const Case& c);
DataType cc_output_dtype(const Case& c);
std::string cc_mode_not_applicable(accuracy::Mode mode);
void check_cc(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
              const CaseMemory& needs, CaseResult& r);
struct CcData {
    std::vector<float> src, theta, bias;  // theta empty for analytic kernels, bias without has_bias
};
// Drawn from the case's seed, or a stored golden vector's (checked against the descriptor).
CcData cc_case_data(const Case& c, const CcDescriptor& d);
// A stored f32 array's values (loaded and checked by the typed formats loader); empty when not stored.
std::vector<float> stored_floats(const npy::Array& a);
// A guarded f32 buffer holding `values` (cc_case_data.cpp).
GuardedBuffer guarded_copy(const std::vector<float>& values);
struct CcOutputs {
    std::vector<double> got;
    std::int64_t unwritten = 0;  // outputs the backend never wrote
};
// One isolated execution on `src` with data's theta and bias (execute_cc); `out` is set when it came
// back ok.
ChildOutcome run_cc_backend(const Backend& backend, const CcDescriptor& d, const CcData& data,
                            const std::vector<float>& src, const CheckSettings& s, const CaseMemory& needs,
                            CcOutputs& out);

// ---- the CC backward pass (cc_backward_check.cpp, cc_backward_data.cpp; docs/cc-backward.md) ----
// Bound and probe mode; a plugin before ABI 1.4 has no CC backward (declined with that reason).
std::string cc_backward_mode_not_applicable(accuracy::Mode mode);
std::string cc_backward_unclaimed(const PluginInfo& info, const Case& c);
void check_cc_backward(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// The backward pass's inputs: the forward's src and theta (cc_case_data) and diff_dst, uniform in
// [-1, 1] from the case's seed (a stream of its own).
std::vector<float> cc_backward_diff_dst(const CcDescriptor& d, std::uint64_t seed);
// A stored CC backward vector's src, theta (the returned data; no bias: it enters no gradient) and diff_dst
// (cc_backward_stored.cpp); throws std::invalid_argument when the stored layer is not d.
CcData stored_cc_backward_data(const Case& c, const CcDescriptor& d, std::vector<float>& diff_dst);
// The tensor and coordinates of a flat index into the concatenated gradients: diff_src[n, c, y, x],
// diff_theta[i], diff_bias[o].
struct CcGradientIndex {
    std::string tensor;
    std::vector<std::int64_t> coordinates;
};
CcGradientIndex cc_gradient_index(const CcDescriptor& d, std::int64_t flat);
std::string cc_gradient_element(const CcDescriptor& d, std::int64_t flat);
// The gradients read back, concatenated: diff_src [N,Cin,H,W], diff_theta (kernel=net), diff_bias (bias=1).
struct CcGradients {
    std::vector<double> got;
    std::int64_t unwritten = 0;
};
ChildOutcome run_cc_backward(const Backend& backend, const CcDescriptor& d, const CcData& data,
                             const std::vector<float>& diff_dst, const CheckSettings& s, const CaseMemory& needs,
                             CcGradients& out);
// The reference's gradients concatenated as above, with their magnitudes, terms (diff_theta: its roundings)
// and each element's bound under the CC backward contract (cc_backward_check.cpp).
struct CcBackwardExpected {
    std::vector<double> values, magnitude, bounds;
    std::vector<std::int64_t> terms;
};
CcBackwardExpected cc_backward_expected(const CcDescriptor& d, const CcData& data, const std::vector<float>& diff_dst,
                                        const accuracy::Contract& contract);
// A reference result's gradients concatenated (diff_src, diff_theta, diff_bias).
std::vector<double> cc_gradients(const reference::cc::CcBackward& g);
// Probe mode (cc_backward_probe.cpp): a NaN in diff_dst, then in src, one run each; the gradients the
// reference's NaN reaches must be exactly the backend's, the others within `want.bounds`.
struct CcBackwardInputs {
    const CcData& data;
    const std::vector<float>& diff_dst;
    const CcBackwardExpected& want;  // on the inputs without a NaN
};
void check_cc_backward_probe(const Backend& backend, const Case& c, const CcDescriptor& d, const CcBackwardInputs& in,
                             const CheckSettings& s, const accuracy::Contract& contract, const CaseMemory& needs,
                             CaseResult& r);

// ---- probe mode, discrete convolution and CC alike (check_probe.cpp) ------------------------------
// One backend run per probed src element. A ProbeJudge sums the runs: outputs that got NaN outside
// the receptive field, outputs inside it that did not, outputs the NaN does not reach over the error
// bound, where each lies, and the worst output of every run.
struct ProbeRun {
    std::int64_t src_element = 0;                    // where the NaN is (a flat index into the probed tensor)
    std::span<const double> want_with_nan, got;      // the reference's and the backend's result, NaN in place
    std::span<const double> want, magnitude;         // the reference's result without the NaN
    std::span<const std::int64_t> terms;
    std::span<const double> weight_error;            // CC: per output (accuracy.hpp); empty for conv
    std::int64_t unwritten = 0;                      // outputs the backend never wrote
    std::span<const char> may_reach;                 // empty, or outputs a NaN may reach (compare_probe)
    std::span<const double> bounds = {};             // empty, or each output's allowed |got - want| (CC backward)
};
// How a probe's messages name the probed tensor and the outputs the NaN must reach: the forward
// probes src and its receptive field; a backward pass probes diff_dst and the elements the forward
// pairs it with.
struct ProbeWords {
    const char* probed = "src";
    const char* field = "its receptive field";      // the first failing run's words
    const char* field_summed = "the receptive field";  // the counts summed over the runs
    std::function<std::string(std::int64_t)> name_of;  // an output's name ("diff_src[0,1,2]"); empty: its coordinates
    // the probed element's name ("src[0,1,2,3]", when the runs probe more than one tensor); empty:
    // "<probed> element <flat index>"
    std::function<std::string(std::int64_t)> probed_name = {};
};
class ProbeJudge {
public:
    ProbeJudge(const accuracy::Contract& contract, OutputLocation where, ProbeWords words = {});
    void add(const ProbeRun& run);
    // Sets r.error; and, when a run failed and r has not failed already, the status, kind and reason:
    // the first failing run in its own words, then the counts summed over the runs, then the worst
    // output the NaN does not reach when it exceeds the bound.
    void finish(CaseResult& r) const;

private:
    void locate(std::int64_t flat);  // counts a failing output at the border or inside
    std::string element_name(std::int64_t flat) const;
    std::string probed_name(std::int64_t flat) const;
    accuracy::Contract contract_;
    OutputLocation where_;
    ProbeWords words_;
    ErrorReport report_;
    std::string first_problem_;
    Kind first_kind_ = Kind::none;
};

}  // namespace convcheck::runner::detail
