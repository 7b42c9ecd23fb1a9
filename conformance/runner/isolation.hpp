// Fault isolation: every call into a backend plugin (create, describe, query, prepare, execute,
// destroy) runs in a child process forked for the purpose, with a time limit (child_process.hpp).
//
// - Buffers live in memory shared with the child (GuardedBuffer): each sits between two PROT_NONE
//   guard pages, flush against the one after it, so a write (or read) past its end faults at once.
//   The child maps the inputs read-only before it calls the plugin, so a write into an input faults.
//   The padding in front of dst holds a canary that the parent checks afterwards.
// - The child reports through a shared page (which stage it reached, errors, timings); a signal
//   handler records the signal and the faulting address, the parent names the buffer it hit.
// - A child that outlives its time limit is killed (SIGKILL) and reported as hanged.
// - A child runs under a memory budget (memory_limit.hpp): the parent polls its private memory and
//   kills it past the budget, reported as out of memory; outside sanitizer builds RLIMIT_DATA
//   backs that up. A std::bad_alloc that escapes the plugin is out of memory too.
// The parent never creates a plugin instance: a backend's threads (TBB, OpenMP) never exist in the
// process that forks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "convcheck/plugin.h"
#include "guarded_buffer.hpp"
#include "plugin_loader.hpp"

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

// One execution of one discrete convolution in a child: create, conv_query, then the execution
// (warmups + repeats times, the repeats timed), destroy. With leak_check the child runs
// 5 full create..destroy cycles and measures the heap the plugin did not give back.
// A plugin with a plan (ABI 1.2) runs through it: conv_prepare with the weights and bias,
// conv_plan_describe, conv_plan_execute (the timed calls: planning is timed apart, prepare_ms),
// and, when one_shot_dst is given, the one-shot conv_execute into it, whose outputs must then be the
// plan's, bit for bit (any NaN equals any NaN): else the outcome is paths_differ. A plugin without a
// plan runs conv_execute.
struct ConvExecution {
    convcheck_conv_desc desc{};
    const GuardedBuffer* src = nullptr;
    const GuardedBuffer* weights = nullptr;
    const GuardedBuffer* bias = nullptr;  // empty when !has_bias
    const GuardedBuffer* dst = nullptr;
    const GuardedBuffer* one_shot_dst = nullptr;  // dst-sized, filled like dst; only read with a plan
    int warmups = 0, repeats = 1;
    bool leak_check = false;
    bool query_only = false;  // create, conv_query, destroy: ok when the backend supports the case
    double timeout_s = 30.0;
    MemoryBudget memory;
};
ChildOutcome execute_conv(const Plugin& plugin, const InstanceOptions& options, const ConvExecution& e);

// The same for one CC layer (theta empty for analytic kernels).
struct CcExecution {
    convcheck_cc_desc desc{};
    const GuardedBuffer* src = nullptr;
    const GuardedBuffer* theta = nullptr;
    const GuardedBuffer* bias = nullptr;
    const GuardedBuffer* dst = nullptr;
    int warmups = 0, repeats = 1;
    bool leak_check = false;
    double timeout_s = 30.0;
    MemoryBudget memory;
};
ChildOutcome execute_cc(const Plugin& plugin, const InstanceOptions& options, const CcExecution& e);

}  // namespace convcheck::runner
