// Opening a backend for a run: resolve the name, load the plugin, negotiate in a child, read the
// declarations file. And running a list of cases against it, shrinking failures.
#pragma once

#include <csignal>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/runner/check.hpp"
#include "convcheck/runner/expectations.hpp"
#include "convcheck/runner/shrink.hpp"

namespace convcheck::runner {

struct BackendSession {
    Plugin plugin;
    Expectations expectations;
    Backend backend;  // points into this session: keep the session alive while using it
    std::string expectations_path;  // the declarations file read, or "" for none
};

// Throws PluginError (load or negotiation failed) or std::invalid_argument (a bad expectations file).
// `options`: "key=value" items; `expectations_path` "" means the default file, "none" means none.
std::unique_ptr<BackendSession> open_backend(const std::string& spec, const std::vector<std::string>& options,
                                             int num_threads, const std::string& expectations_path,
                                             double timeout_s);

struct RunSettings {
    CheckSettings check;
    bool shrink = true;
    ShrinkLimits shrink_limits;
    bool fail_fast = false;  // stop after the first failing case
    // --dump-failures: the folder each failing case's bundle is written into (failure_bundle.hpp), or "".
    std::string dump_failures;
    // Set (by a signal handler) to stop: no case starts after it is set, and a case in progress when it
    // was set is left out (its child may have been killed), so every result reported is a real one.
    const volatile std::sig_atomic_t* stop = nullptr;
    // Cases checked at once (jobs.hpp): each in its own thread of the runner, with its own children.
    int jobs = 1;
};

// One case of run_cases: checked, shrunk when it failed, its failure bundle written. Nothing when the
// run was stopped (settings.stop) while it ran: the case may have been cut short. `wanted`, when
// given, is asked once the case is checked: false skips the shrinking and the bundle (a parallel
// --fail-fast run drops a failure that comes after the first one).
std::optional<CaseResult> check_and_shrink(const Backend& backend, const Case& c, const RunSettings& settings,
                                           const std::function<bool(const CaseResult&)>& wanted = {});

// Runs the cases (settings.jobs at a time); calls on_result after each, in their order, from the
// calling thread (shrunk when it failed and shrinking is on).
// Returns fewer results than cases when it stopped early (fail_fast, stop).
std::vector<CaseResult> run_cases(const Backend& backend, const std::vector<Case>& cases, const RunSettings& settings,
                                  const std::function<void(const CaseResult&)>& on_result = {});

}  // namespace convcheck::runner
