// Internal to the runner: the backward passes of discrete convolution (backward data, backward
// weights): check.cpp, data.cpp, calls.cpp, probe.cpp, sampled.cpp, stored.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../conv/operation.hpp"
#include "convcheck/reference/backward.hpp"

namespace convcheck::runner::detail {

// ---- the backward passes of discrete convolution (check.cpp, data.cpp) -----------------------------
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
// "diff_weights[o,i,k...]" or "diff_bias[o]" (backward/check.cpp).
std::string gradient_element(const ConvDescriptor& d, std::int64_t flat);
// Probe mode for a backward pass: one run per probed diff_dst element (backward/probe.cpp).
void check_backward_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                          const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// Sampled mode for a backward pass (the large suite): inputs written in place, a sample of gradient
// elements judged by the reference one at a time, every gradient element scanned for the canary
// (backward/sampled.cpp).
void check_backward_sampled(const Backend& backend, const Case& c, const CheckSettings& s,
                            const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// The reference's gradients in the order BackwardOutputs::got holds them (backward/check.cpp): for a case in
// `mode`, the GEMM evaluators' sums where gemm_backward_reference_sums says so, else the definition's bits.
reference::GradientResult backward_reference(const ConvDescriptor& d, accuracy::Mode mode, const BackwardInputs& in);
// A stored golden vector of a backward pass (vectors/sets/backward, c.vector_dir): its inputs and its
// truth (each gradient's f64 value, magnitude and terms, concatenated as BackwardOutputs::got is), read
// from the arrays alone. Throws when the stored descriptor is not the case's.
struct StoredBackward {
    BackwardInputs in;
    std::vector<double> values, magnitude;
    std::vector<std::int64_t> terms;
};
StoredBackward stored_backward_data(const Case& c);

}  // namespace convcheck::runner::detail
