// What the backend tests share: the plugin under test, its calls, each isolated in a child process
// with the runner's checks (inputs untouched, nothing written outside dst), and one case's check
// against the reference under the accuracy contract and the data file's declarations.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/runner/contract.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/runner/expectations.hpp"
#include "convcheck/runner/isolation.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::backend_test {

// The plugin under test. Only the runner's loader runs in this process (dlopen and the entry point);
// every call of an instance (create, describe, query, prepare, execute, destroy) runs in a child
// process of the runner's isolation (isolation.hpp, operation_calls.hpp): a plugin that crashes,
// hangs, writes out of bounds or into an input fails the test in progress, and the program goes on.
class PluginUnderTest {
public:
    // Loads the plugin and negotiates it in a child; throws runner::PluginError.
    PluginUnderTest(const std::string& path, runner::InstanceOptions options);
    const runner::Plugin& plugin() const { return plugin_; }
    const convcheck_api& api() const { return plugin_.api(); }
    const runner::PluginInfo& info() const { return info_; }
    const runner::InstanceOptions& options() const { return options_; }

private:
    runner::Plugin plugin_;
    runner::InstanceOptions options_;
    runner::PluginInfo info_;
};
extern std::unique_ptr<PluginUnderTest> plugin;  // loaded in main, before the tests are registered
extern std::string plugin_path;
extern runner::Expectations declarations;  // the data file (backends.json), read by the runner's reader

using runner::to_abi;  // the runner's own conversion (abi_descriptor.hpp)
// Why the plugin's describe does not claim d (its operation and pass, dtype, rank, formats, layout), in the
// runner's words ("the plugin does not claim data format nxc"), or "" when it claims it: the runner's own
// check (case_pipeline.hpp), so this test sends a plugin exactly the cases `convcheck run` would.
std::string unclaimed(const runner::PluginInfo& info, const ConvDescriptor& d);
bool claims(const runner::PluginInfo& info, const ConvDescriptor& d);
// "<backend> <descriptor> seed <s> mode <m>": one line that reproduces a case.
std::string reproducer(const ConvDescriptor& d, std::uint64_t seed, accuracy::Mode mode);
// Asks the plugin (conv_query in a child); returns "" when supported, else its reason (never empty).
// Throws std::runtime_error when the query fails, crashes or hangs.
std::string query(const ConvDescriptor& d);

// In a child's body: an error value as its message, freed through the plugin; "" for success (NULL).
std::string take_error(const convcheck_api& api, convcheck_error* error);
// Runs `body` on a fresh instance in a child (create, body, destroy, isolated as every call here):
// body returns "" when the plugin kept the promise it checks, else what it did. Returns "" or that,
// or how the child ended when the plugin failed there ("crashed (crash): SIGSEGV in query: ...").
std::string in_child(const std::function<std::string(const convcheck_api&, convcheck_plugin*)>& body);
// Fails the test with the finding of in_child when there is one.
#define EXPECT_KEPT(finding)                          \
    do {                                              \
        const std::string broken_promise = (finding); \
        EXPECT_TRUE(broken_promise.empty()) << broken_promise; \
    } while (0)

// The plugin declined the case it was asked to execute (what(): its reason).
struct Declined : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Outcome {
    std::vector<double> dst;  // NCX
    std::string implementation;
};
// Runs the plugin on canonical data (src NCX, weights OIX, bias [O]) in a child, as the runner does
// (execute_conv on guarded buffers: inputs read-only, guard pages after every buffer, a canary
// before dst); a plugin with a plan (ABI 1.2) runs through it, and its one-shot conv_execute must
// give the same outputs bit for bit. The child asks conv_query first: throws Declined when the plugin
// declines the case, std::runtime_error when it returns an error value, crashes, hangs, or its two
// paths differ.
// num_threads: the instance's thread count for this call (0: the plugin's default), else the program's.
Outcome execute(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                const std::vector<double>& bias, std::optional<int> num_threads = std::nullopt);

// ABI 1.2, the same through the plan: conv_prepare (with the weights and bias, or without), then
// `executes` conv_plan_execute calls, the one-shot conv_execute beside them (same outputs, bit for
// bit), conv_plan_destroy. Throws as execute does, and when the plugin has no plan.
struct PlanOutcome {
    std::vector<double> dst;  // NCX, after the last execute
    std::uint64_t workspace_bytes = 0, plan_bytes = 0;  // what conv_plan_describe reported
};
PlanOutcome execute_plan(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                         const std::vector<double>& bias, bool weights_at_prepare, int executes);

// The runner's contract for d's dtype (runner/include/convcheck/runner/contract.hpp): the data file's declarations, else the
// plugin's own accumulation type.
accuracy::Contract contract_for(const ConvDescriptor& d);
// Runs d once in `mode` and checks the outcome against the reference and the declarations; throws
// as execute does (Declined when the plugin declines d).
void check_case(const ConvDescriptor& d, accuracy::Mode mode, std::uint64_t seed);

}  // namespace convcheck::backend_test
