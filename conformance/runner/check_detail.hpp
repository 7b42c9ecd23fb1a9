// Internal to the runner: the pieces of a case check shared by discrete convolution (check.cpp)
// and CC (check_cc.cpp).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "case_memory.hpp"
#include "check.hpp"
#include "manifest.hpp"

namespace convcheck::runner::detail {

std::string format_double(double v);
std::string coordinates_text(const std::vector<std::int64_t>& c);
// [n, c, spatial...] of a flat NCX output index of a discrete convolution.
std::vector<std::int64_t> output_coordinates(const ConvDescriptor& d, std::int64_t flat);
// Whether an output's receptive field reaches into the padding (or past a cropped edge) on any axis.
bool touches_border(const ConvDescriptor& d, const std::vector<std::int64_t>& coordinates);
// How many of `elements` outputs still hold the "never written" fill (all bytes 0xFF, a NaN in
// every dtype).
std::int64_t unwritten_elements(const void* dst, std::int64_t elements, int element_bytes);
// The same with where: how many, and the first and last such element (buffer offsets; -1 when none).
struct Unwritten {
    std::int64_t count = 0, first = -1, last = -1;
};
Unwritten unwritten_region(const void* dst, std::int64_t elements, int element_bytes);
// Outputs that are NaN where the reference is not.
std::int64_t nan_outputs(std::span<const double> got, std::span<const double> want);
// The kind of a failed comparison: outputs never written, else NaN outputs, else a mismatch.
Kind mismatch_kind(std::int64_t unwritten, std::int64_t nan_outputs);
// Refuses the case (unsupported, over_memory_limit) when the runner's part does not fit under the
// memory limit; false when it fits.
bool refused_for_memory(const CaseMemory& needs, const CheckSettings& s, CaseResult& r);
// Turns a child outcome that is not "ok" into the case's status; false when it was ok.
bool outcome_status(const ChildOutcome& o, CaseResult& r);
// A leak found by the leak check fails a case that otherwise passed.
void leak_status(const ChildOutcome& o, const CheckSettings& s, CaseResult& r);

void check_conv(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);
// What the plugin's describe claims against what the case needs; "" when claimed.
std::string unclaimed(const PluginInfo& info, const ConvDescriptor& d);
// Invalid mode: the backend must refuse a descriptor that breaks a rule (check_invalid.cpp).
void check_conv_invalid(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);
// One run of a case, expectations applied: check_case without determinism mode.
CaseResult check_case_once(const Backend& backend, const Case& c, const CheckSettings& settings);
// The data file's expected failures applied to a result: xfail, xpass, or an intermittent one that passed.
void apply_expectations(const Backend& backend, CaseResult& r);

// The pieces of check.cpp that the stress and precision modes (check_stress.cpp,
// check_precision.cpp) run their data through.
struct Buffers {
    GuardedBuffer src, weights, bias, dst;
};
Buffers make_buffers(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                     const std::vector<double>& bias);
// With one_shot (and a plugin with a plan), the one-shot conv_execute also runs, into a second dst
// that must match the plan's (isolation.hpp).
ChildOutcome run_backend(const Backend& backend, const ConvDescriptor& d, const Buffers& b, const CheckSettings& s,
                         const CaseMemory& needs, bool one_shot = true);
std::int64_t unwritten_elements(const ConvDescriptor& d, const void* dst);
ErrorReport error_report(const ConvDescriptor& d, const accuracy::Comparison& cmp, std::span<const double> want,
                         std::span<const double> got, bool bound_mode, const accuracy::Contract& contract,
                         std::span<const double> magnitude, std::span<const std::int64_t> terms);
std::string mismatch_reason(const ConvDescriptor& d, const ErrorReport& e, accuracy::Mode mode,
                            std::span<const double> got, std::span<const double> want, std::int64_t unwritten);
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
// A passed bound-mode comparison whose statistics fail becomes a failure; one whose outputs the
// contract cannot check (a vacuous bound the statistics cannot judge) says so in its reason
// (statistics.hpp). The case record's error.judged_by carries the outcome.
void apply_statistics(const accuracy::Comparison& cmp, CaseResult& r);
// The stored golden vector a case names (c.vector_case in the set); throws std::invalid_argument.
const vectors::VectorCase& stored_case(const vectors::VectorSet& set, const Case& c);
void check_cc(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);

// Probe mode, discrete convolution and CC alike (check_probe.cpp): one backend run per probed src
// element. A ProbeJudge sums the runs: outputs that got NaN outside the receptive field, outputs
// inside it that did not, outputs the NaN does not reach over the error bound, where each lies, and
// the worst output of every run.
struct OutputLocation {
    std::function<std::vector<std::int64_t>(std::int64_t)> coordinates;  // flat index -> [n, c, spatial...]
    std::function<bool(std::int64_t)> touches_border;  // the output's receptive field or window reaches the border
};
struct ProbeRun {
    std::int64_t src_element = 0;                    // where the NaN is
    std::span<const double> want_with_nan, got;      // the reference's and the backend's result, NaN in place
    std::span<const double> want, magnitude;         // the reference's result without the NaN
    std::span<const std::int64_t> terms;
    std::span<const double> weight_error;            // CC: per output (accuracy.hpp); empty for conv
    std::int64_t unwritten = 0;                      // outputs the backend never wrote
};
class ProbeJudge {
public:
    ProbeJudge(const accuracy::Contract& contract, OutputLocation where);
    void add(const ProbeRun& run);
    // Sets r.error; and, when a run failed and r has not failed already, the status, kind and reason:
    // the first failing run in its own words, then the counts summed over the runs, then the worst
    // output the NaN does not reach when it exceeds the bound.
    void finish(CaseResult& r) const;

private:
    void locate(std::int64_t flat);  // counts a failing output at the border or inside
    accuracy::Contract contract_;
    OutputLocation where_;
    ErrorReport report_;
    std::string first_problem_;
    Kind first_kind_ = Kind::none;
};
// Sampled mode: the large suite's tensors past 2^31 elements or bytes, judged on a sample of outputs
// plus a scan of every dst element for the canary (check_sampled.cpp).
void check_conv_sampled(const Backend& backend, const Case& c, const CheckSettings& s,
                        const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
void check_conv_probe(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                      const CaseMemory& needs, CaseResult& r);

}  // namespace convcheck::runner::detail
