// Internal to the runner: transposed convolution (docs/transposed.md): check.cpp, data.cpp,
// calls.cpp, probe.cpp, jobs.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../backward/operation.hpp"  // a transposed convolution is its forward's backward data
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::runner::detail {

// ---- transposed convolution (check.cpp, data.cpp; docs/transposed.md) ------------------------------
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
// Probe mode: one run per probed src element (transposed/probe.cpp).
void check_transposed_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                            const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);

}  // namespace convcheck::runner::detail
