// What the backend tests share: the loaded plugin, the ABI call wrappers with their runner-side
// checks (inputs untouched, nothing past dst, every dst element written), and one case's check
// against the reference under the accuracy contract and the data file's declarations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abi_descriptor.hpp"
#include "accuracy.hpp"
#include "contract.hpp"
#include "descriptor.hpp"
#include "expectations.hpp"
#include "plugin_instance.hpp"

namespace convcheck::backend_test {

using runner::PluginInstance;  // the runner's loader, the instance created in this process
extern std::unique_ptr<PluginInstance> plugin;  // loaded in main, before the tests are registered
extern std::string plugin_path;
extern runner::Expectations declarations;  // the data file (backends.json), read by the runner's reader

using runner::to_abi;  // the runner's own conversion (abi_descriptor.hpp)
// Whether the plugin's describe claims d's dtype, rank and formats.
bool claims(const convcheck_plugin_info& info, const ConvDescriptor& d);
// "<backend> <descriptor> seed <s> mode <m>": one line that reproduces a case.
std::string reproducer(const ConvDescriptor& d, std::uint64_t seed, accuracy::Mode mode);
// Asks the plugin; returns "" when supported, else its reason (never empty).
std::string query(const ConvDescriptor& d);

struct Outcome {
    std::vector<double> dst;  // NCX
    std::string implementation;
};
// Runs the plugin on canonical data (src NCX, weights OIX, bias [O]); throws on an error value or a
// broken runner-side promise.
Outcome execute(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                const std::vector<double>& bias);

// ABI 1.2: conv_prepare (with the weights and bias, or without), then `executes` conv_plan_execute
// calls, each into a fresh dst, with the same runner-side checks; conv_plan_destroy.
struct PlanOutcome {
    std::vector<std::vector<double>> dst;  // NCX, one per execute
    convcheck_plan_info info{};
};
PlanOutcome execute_plan(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                         const std::vector<double>& bias, bool weights_at_prepare, int executes);

// The runner's contract for d's dtype (runner/contract.hpp): the data file's declarations, else the
// plugin's own accumulation type.
accuracy::Contract contract_for(const ConvDescriptor& d);
// Runs d once in `mode` and checks the outcome against the reference and the declarations.
void check_case(const ConvDescriptor& d, accuracy::Mode mode, std::uint64_t seed);

// The child side of Findings.OnednnBf16NegativePaddingRCorruptsMemory (findings.cpp): 0 right,
// 1 wrong, 2 another implementation, 3 an error. main runs it for `--finding-child=O2`.
int o2_child();

}  // namespace convcheck::backend_test
