// The table of operations: everything the case pipeline (case_pipeline.cpp) needs to know about an
// operation, so that claims -> case data -> isolated execute -> verdict -> expectations is written
// once for all of them. Adding an operation or a pass is one entry in operation_traits.cpp plus the
// functions it names: its reference, its case data and comparison, its plugin entry points
// (operation_calls.hpp). docs/adding-an-operation.md walks through it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/runner/bundle_arrays.hpp"
#include "convcheck/runner/case.hpp"
#include "convcheck/runner/case_memory.hpp"
#include "convcheck/runner/isolation.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

struct Backend;
struct CheckSettings;

// What `convcheck bench` asks of one timed case (time_case, check.hpp): the case is already
// validated, claimed, in bound mode and under the memory limit (`needs` is its peak).
struct TimedRun {
    int warmups = 0, repeats = 1;
    double timeout_s = 30.0;
    std::int64_t memory_limit_bytes = 0;
    CaseMemory needs;
};

// Every job of the runner that differs between operations is a field here; nothing outside this
// table dispatches on Case::op (docs/adding-an-operation.md lists the fields in order).
struct OperationTraits {
    Op op;
    const char* name;    // "conv", "cc", "conv_bwd_data": the case record's "op"
    const char* words;   // "discrete convolution": what messages call it
    std::uint32_t claim;  // its bit in convcheck_plugin_info.operations (CONVCHECK_OP_CONV)
    // ---- reading and writing a case (suites.cpp, case.cpp) ----
    // The descriptor's prefix before ':' ("conv", "cc"). A pass of an operation shares it: the first
    // entry with the prefix reads the string, and its `read` sets the pass's op (a "conv:"
    // descriptor's dir=).
    const char* prefix;
    // Parses a descriptor string as written, without validating it (an invalid-mode case breaks a
    // rule on purpose), into c.op and the case's descriptor fields. Throws ConvError naming the key.
    void (*read)(const std::string& text, Case& c);
    // The canonical descriptor string (Case::descriptor(); what reproducers and records print).
    std::string (*descriptor)(const Case& c);
    // The rule an invalid-mode case breaks, "" when it breaks none. Null: the operation has no invalid
    // cases (a suite entry in mode invalid is refused when the suite is read).
    std::string (*broken_rule)(const Case& c);
    // Why a suite entry in `mode` is refused when the suite is read (exit 2), "" when it is not; e.g.
    // CC's real-scale window the backend may decide either way. Null: none is.
    std::string (*refused_entry)(const Case& c, accuracy::Mode mode);
    // Parses and validates the case's descriptor; throws ConvError naming the rule it breaks.
    void (*validate)(const Case& c);
    // Whether the plugin claims the case's pass of the operation (ABI 1.2's prop_kinds: forward
    // inference or training, backward data, backward weights); "" when it does. A decline here marks the
    // result pass_not_claimed. Null: the operation has no passes to claim.
    std::string (*pass_unclaimed)(const PluginInfo& info, const Case& c);
    // What the plugin's describe does not claim about the case beyond the operation itself (dtype,
    // rank, formats); "" when claimed. Null: the operation bit is all there is to claim.
    std::string (*unclaimed)(const PluginInfo& info, const Case& c);
    // Why a mode does not apply to the operation; "" when it does. Null: every mode applies.
    std::string (*mode_not_applicable)(accuracy::Mode mode);
    // The output's data type (the accuracy contract is chosen by it).
    DataType (*output_dtype)(const Case& c);
    // The runner's peak for checking a case (case_memory.hpp).
    CaseMemory (*memory)(const Case& c);
    // Invalid mode: the backend must refuse a case that breaks a rule. Null: the operation has no
    // invalid cases (then invalid mode is refused by mode_not_applicable).
    void (*check_invalid)(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);
    // Every other mode: the case's data, the reference, the backend's isolated executions and the
    // comparison. Claims, the mode, the memory limit and the contract are settled before it runs.
    void (*check)(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                  const CaseMemory& needs, CaseResult& r);
    // ---- the jobs around a check ----
    // Shrinking (shrink.cpp): the candidates one step smaller than c, all valid, largest reduction
    // first, everything but the descriptor kept (seed, mode, fill). Null: the operation is not shrunk.
    std::vector<Case> (*smaller)(const Case& c);
    // Failure bundles (failure_bundle.cpp): one recorded execution's arrays: its inputs, the reference
    // on exactly those bytes (expected, expected_f64, magnitude, terms) and the backend's output.
    // Null: a failing case gets a bundle with its manifest only.
    BundleArrays (*bundle_arrays)(const Case& c, const RecordedExecution& e);
    // The benchdnn command line of the case, or "" with *why set (the bundle's "benchdnn_unavailable").
    std::string (*benchdnn)(const Case& c, std::string* why);
    // Determinism mode (determinism.cpp): names the output element at a flat index into the bytes the
    // execution log records (RecordedExecution::dst, in the case's layouts and output_dtype), e.g.
    // "[0, 3, 2, 1]" or "diff_weights[1, 0, 2]". Null: determinism mode declines the operation.
    std::string (*output_element)(const Case& c, std::int64_t flat);
    // `convcheck bench` (time_case): `run.warmups` untimed and `run.repeats` timed executions on
    // bound-mode data in one isolated child; null: bench leaves the operation out.
    ChildOutcome (*time)(const Backend& backend, const Case& c, const TimedRun& run);
    // Multiply-accumulates of one execution (bench's GFLOP/s), 0 when not counted.
    std::int64_t (*macs)(const Case& c);
    // `convcheck list`'s suite design (suite_design.hpp) counts this discrete-convolution geometry;
    // null: the case is not in the design (it has no such geometry).
    const ConvDescriptor* (*design_geometry)(const Case& c);
    // The case record's "features" (results.cpp, docs/results-schema.md): rank, groups, padding, ...
    nlohmann::json (*features)(const Case& c);
    // Determinism mode's element of the recorded dst where it is not output_dtype's (quantized convolution's
    // integers): its bytes, and its value as text. Null: output_dtype's.
    int (*output_bytes)(const Case& c) = nullptr;
    std::string (*output_value)(const Case& c, const std::byte* element) = nullptr;
};

// The traits of one operation, and all of them (in the order of enum Op).
const OperationTraits& operation(Op op);
std::span<const OperationTraits> operations();

// The entry that reads a descriptor string: the first whose "<prefix>:" it starts with; a string with
// no operation's prefix is the first entry's (discrete convolution: "c=1,o=1,in=3,k=3" is read
// as "conv:c=1,..."), whose reader names what it cannot parse.
const OperationTraits& operation_of_descriptor(const std::string& text);

// "the plugin does not claim <words>" when its describe lacks the operation's bit, else "".
std::string unclaimed_operation(const PluginInfo& info, Op op);
// True when the plugin claims the operation of op's descriptor prefix but not op's own bit: op is a
// pass with a bit of its own (CC backward, ABI 1.4) the plugin does not compute; such a case counts as
// declined for its pass (CaseResult::pass_not_claimed, coverage per pass).
bool is_unclaimed_pass(const PluginInfo& info, Op op);

}  // namespace convcheck::runner
