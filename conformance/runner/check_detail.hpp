// Internal to the runner: the pieces of a case check shared by discrete convolution (check.cpp)
// and CC (check_cc.cpp).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "case_memory.hpp"
#include "check.hpp"
#include "manifest.hpp"

namespace convcheck::runner::detail {

std::string format_double(double v);
std::string coordinates_text(const std::vector<std::int64_t>& c);
// How many of `elements` outputs still hold the "never written" fill (all bytes 0xFF, a NaN in
// every dtype).
std::int64_t unwritten_elements(const void* dst, std::int64_t elements, int element_bytes);
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
ChildOutcome run_backend(const Backend& backend, const ConvDescriptor& d, const Buffers& b, const CheckSettings& s,
                         const CaseMemory& needs);
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
// A passed bound-mode comparison whose statistics fail becomes a failure; one whose outputs the
// contract cannot check (a vacuous bound the statistics cannot judge) says so in its reason
// (statistics.hpp). The case record's error.judged_by carries the outcome.
void apply_statistics(const accuracy::Comparison& cmp, CaseResult& r);
// The stored golden vector a case names (c.vector_case in the set); throws std::invalid_argument.
const vectors::VectorCase& stored_case(const vectors::VectorSet& set, const Case& c);
void check_cc(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);

}  // namespace convcheck::runner::detail
