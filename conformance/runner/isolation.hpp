// Fault isolation: every call into a backend plugin (create, describe, query, execute, destroy)
// runs in a child process forked for the purpose, with a time limit.
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

#include "convcheck/plugin.h"
#include "guarded_buffer.hpp"
#include "memory_limit.hpp"
#include "plugin_loader.hpp"

namespace convcheck::runner {

// Options for every plugin instance the runner creates.
struct InstanceOptions {
    int num_threads = 0;  // 0: the plugin's default
    std::string options;  // "key=value,..." (ABI 1.1 create_args.options)
};

// The memory one child may use: the memory limit less what the runner holds for the case (its
// buffers and the reference's work, case_memory.hpp). Every child has one: the default limit is
// default_memory_limit().
struct MemoryBudget {
    std::int64_t limit_bytes = default_memory_limit();
    std::int64_t runner_bytes = 0;
    std::int64_t child_bytes() const { return limit_bytes - runner_bytes; }
};

// How a plugin call in a child ended.
struct ChildOutcome {
    enum class Kind { ok, unsupported, plugin_error, crashed, hanged, out_of_memory };
    Kind kind = Kind::ok;
    std::string reason;          // unsupported / error message / crash or hang description
    std::string implementation;  // what the plugin said it picked
    std::vector<double> times_ms;  // one per timed execute
    std::int64_t heap_growth_per_cycle = 0;  // leak check: bytes not returned per create..destroy cycle
};

// Runs create, describe and destroy in a child. Throws PluginError when any of them fails,
// crashes or hangs (the plugin cannot be negotiated).
PluginInfo negotiate(const Plugin& plugin, const InstanceOptions& options, double timeout_s,
                     MemoryBudget memory = {});

// One execution of one discrete convolution in a child: create, conv_query, conv_execute
// (warmups + repeats times, the repeats timed), destroy. With leak_check the child runs
// 5 full create..destroy cycles and measures the heap the plugin did not give back.
struct ConvExecution {
    convcheck_conv_desc desc{};
    const GuardedBuffer* src = nullptr;
    const GuardedBuffer* weights = nullptr;
    const GuardedBuffer* bias = nullptr;  // empty when !has_bias
    const GuardedBuffer* dst = nullptr;
    int warmups = 0, repeats = 1;
    bool leak_check = false;
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
