// Fault isolation: every call into a backend plugin (create, describe, query, prepare, execute,
// destroy) runs in a child process forked for the purpose, with a time limit (child_process.hpp).
//
// - Buffers live in memory shared with the child (GuardedBuffer): each sits between two PROT_NONE
//   guard pages, flush against the one after it, so a write (or read) past its end faults at once.
//   The child maps the inputs read-only before it calls the plugin, so a write into an input faults.
//   The padding in front of every output holds a canary that the parent checks afterwards.
// - The child reports through a shared page (which stage it reached, errors, timings); a signal
//   handler records the signal and the faulting address, the parent names the buffer it hit.
// - A child that outlives its time limit is killed (SIGKILL) and reported as hanged.
// - A child runs under a memory budget (memory_limit.hpp): the parent polls its private memory and
//   kills it past the budget, reported as out of memory; outside sanitizer builds RLIMIT_DATA
//   backs that up. A std::bad_alloc that escapes the plugin is out of memory too.
// The parent never creates a plugin instance: a backend's threads (TBB, OpenMP) never exist in the
// process that forks.
//
// This file is the operation-generic part: negotiation and one execution of any operation. Each
// operation's own entry points (conv_query/conv_execute and the plan, cc_query/cc_execute) are
// in operation_calls.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "convcheck/runner/child_process.hpp"
#include "convcheck/plugin.h"
#include "convcheck/runner/guarded_buffer.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

// Options for every plugin instance the runner creates.
struct InstanceOptions {
    int num_threads = 0;  // 0: the plugin's default
    std::string options;  // "key=value,..." (ABI 1.1 create_args.options)
};

// Runs create, describe and destroy in a child. Throws PluginError when any of them fails,
// crashes or hangs (the plugin cannot be negotiated).
PluginInfo negotiate(const Plugin& plugin, const InstanceOptions& options, double timeout_s,
                     MemoryBudget memory = {});

// What bounds one child: its time limit, its memory budget, and whether it checks for leaks. Every
// execution of every operation carries one (operation_calls.hpp), filled from the check's settings.
struct ExecutionLimits {
    bool leak_check = false;
    double timeout_s = 30.0;
    MemoryBudget memory;
};

// One execution of one operation in a child: create, the operation's query, then its calls
// (`run`), destroy. Inputs are mapped read-only in the child, outputs carry a canary. With
// leak_check the child runs 5 full create..destroy cycles and measures the heap the plugin did not
// give back.
struct IsolatedExecution : ExecutionLimits {
    std::vector<NamedBuffer> buffers;  // an entry whose buffer is null is skipped
    bool query_only = false;           // create, query, destroy: no `run`, and the buffers' pages are not mapped in
    // In the child: the operation's query on an instance (the plugin's error value, or NULL).
    std::function<convcheck_error*(convcheck_plugin*, convcheck_support*)> query;
    // In the child: the operation's calls on an instance that said supported; false after an error
    // (then in the report).
    std::function<bool(child::Report&, convcheck_plugin*)> run;
};
ChildOutcome execute_isolated(const Plugin& plugin, const InstanceOptions& options, const IsolatedExecution& e);

// In the child: warmups + repeats calls of `execute` (returning the plugin's error or NULL), the
// repeats timed (at most 256); false after an error, which is then in the report.
bool timed_executes(child::Report& r, const Plugin& plugin, int warmups, int repeats,
                    const std::function<convcheck_error*()>& execute);

// An unsupported outcome with its reason (an operation the plugin has no entry for, a case refused).
ChildOutcome unsupported_outcome(const std::string& reason);

}  // namespace convcheck::runner
