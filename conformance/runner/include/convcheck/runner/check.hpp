// Checking one case against a backend, through the one case pipeline (case_pipeline.cpp) that
// every operation of the table (operation_traits.hpp) goes through: the plugin's claims, the data
// for the case's mode and the reference's exact result, the backend's result from an isolated child
// (isolation.hpp, operation_calls.hpp), the verdict under the accuracy contract (verdict.hpp), and
// the expected-failure rules of the data file.
#pragma once

#include <string>
#include <vector>

#include "convcheck/runner/case.hpp"
#include "convcheck/runner/contract.hpp"
#include "convcheck/runner/determinism.hpp"
#include "convcheck/runner/execution_log.hpp"
#include "convcheck/runner/expectations.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "convcheck/runner/memory_limit.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

class OfflineExecution;  // offline.hpp

// A loaded, negotiated backend and everything a case check needs from it.
struct Backend {
    const Plugin* plugin = nullptr;
    PluginInfo info;
    InstanceOptions options;
    std::string spec;  // what the user gave to --backend: reproducers repeat it
    const Expectations* expectations = nullptr;
    // An offline run (offline.hpp): no plugin; the case's execution is export's or judge's stand-in, and
    // `spec` is the claims file given to export ("" for none).
    OfflineExecution* offline = nullptr;
};

struct CheckSettings {
    double timeout_s = 30.0;
    bool leak_check = false;                     // 5 create..destroy cycles per case, heap measured
    std::int64_t leak_threshold_bytes = 1024;    // more than this per cycle is a leak
    int random_probes = 1;                       // probe mode: random elements besides the first and last
    // What one case may cost: the runner's part (refused when it does not fit) plus the plugin
    // child's own memory (killed past the rest). memory_limit.hpp.
    std::int64_t memory_limit_bytes = default_memory_limit();
    Determinism determinism;       // several runs per case, outputs compared bitwise (determinism.hpp)
    ExecutionLog* log = nullptr;   // when set, every execution's buffers are recorded in it (execution_log.hpp)
    std::vector<accuracy::Profile> profiles;  // --profile: other suites' published rules beside the verdict
};

// The contract for this backend and output dtype (contract.hpp: the one contract).
accuracy::Contract contract_for(const Backend& backend, DataType output_dtype);

// Runs the case and decides its status (xfail / xpass applied). Never throws for a backend's fault.
// In determinism mode (settings.determinism.on()) it runs the case several times (determinism.cpp).
CaseResult check_case(const Backend& backend, const Case& c, const CheckSettings& settings);

// The command that runs this case again: `convcheck run --backend <spec> --case '<descriptor>' --seed <n>
// --mode <mode>` (+ --fill), or for a stored golden vector, whose data comes from the set and not from the
// seed, `convcheck run --backend <spec> --suite '<set folder>' --case-name '<set>/<case>' --mode <mode>`.
std::string reproducer(const Backend& backend, const Case& c);

}  // namespace convcheck::runner

namespace convcheck::runner {

// Times one discrete-convolution case on bound-mode data: `warmups` untimed, then `repeats` timed
// executions in one isolated child (ChildOutcome::times_ms holds them). A case whose data does not
// fit under the memory limit is unsupported, with the reason.
ChildOutcome time_case(const Backend& backend, const Case& c, int warmups, int repeats, double timeout_s,
                       std::int64_t memory_limit_bytes = default_memory_limit());

}  // namespace convcheck::runner
