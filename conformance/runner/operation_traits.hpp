// The table of operations: everything the case pipeline (case_pipeline.cpp) needs to know about an
// operation, so that claims -> case data -> isolated execute -> verdict -> expectations is written
// once for all of them. Adding an operation or a pass is one entry in operation_traits.cpp plus the
// functions it names: its reference, its case data and comparison, its plugin entry points
// (operation_calls.hpp). docs/adding-an-operation.md walks through it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "accuracy.hpp"
#include "case.hpp"
#include "case_memory.hpp"
#include "plugin_loader.hpp"

namespace convcheck::runner {

struct Backend;
struct CheckSettings;

struct OperationTraits {
    Op op;
    const char* name;    // "conv", "cc": the descriptor's prefix and the case record's "op"
    const char* words;   // "discrete convolution": what messages call it
    std::uint32_t claim;  // its bit in convcheck_plugin_info.operations (CONVCHECK_OP_CONV)
    // Parses and validates the case's descriptor; throws ConvError naming the rule it breaks.
    void (*validate)(const Case& c);
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
};

// The traits of one operation, and all of them (in the order of enum Op).
const OperationTraits& operation(Op op);
std::span<const OperationTraits> operations();

// "the plugin does not claim <words>" when its describe lacks the operation's bit, else "".
std::string unclaimed_operation(const PluginInfo& info, Op op);

}  // namespace convcheck::runner
