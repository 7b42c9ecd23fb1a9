// The child process every plugin call runs in (isolation.hpp says what runs there): fork with a
// time limit and a memory budget, a shared page the child reports through, and the classification
// of how the child ended (ok, unsupported, plugin error, crash, hang, out of memory).
// Internal to the runner: isolation.cpp drives it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/plugin.h"
#include "convcheck/runner/guarded_buffer.hpp"
#include "convcheck/runner/memory_limit.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

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
    enum class Kind { ok, unsupported, plugin_error, crashed, hanged, out_of_memory, paths_differ, gaps_written };
    Kind kind = Kind::ok;
    std::string reason;          // unsupported / error message / crash or hang description
    std::string error_code;      // plugin_error (and out_of_memory from an error value): error_code_name()
    std::string implementation;  // what the plugin said it picked
    std::vector<double> times_ms;  // one per timed execute (the plan's execute alone, when it has a plan)
    std::optional<double> prepare_ms;                     // conv_prepare, when the plugin has a plan
    std::optional<std::uint64_t> workspace_bytes, plan_bytes;  // what the plan reported (ABI 1.2)
    std::int64_t heap_growth_per_cycle = 0;  // leak check: bytes not returned per create..destroy cycle
    std::optional<std::uint64_t> workspace_used;  // the high-water mark in the runner's workspace, when given
    std::uint64_t thread_pool_calls = 0, thread_pool_tasks = 0;  // what the plugin ran on the runner's pool
};

namespace child {

enum Stage : std::int32_t { kStarting, kCreate, kDescribe, kQuery, kPrepare, kExecute, kOneShot, kDestroy, kDone };
const char* stage_name(std::int32_t stage);

enum Result : std::int32_t { kOk, kUnsupported, kPluginError, kException };

// The page the child reports through (shared memory; plain data only).
struct Report {
    volatile std::int32_t stage;
    std::int32_t result;
    std::int32_t error_code;  // convcheck_error_code of a kPluginError
    char message[1024];
    char implementation[128];
    volatile std::int32_t fault_signal;
    volatile std::uint64_t fault_address;
    volatile std::int32_t allocation_failed;  // operator new found no memory, or std::bad_alloc escaped
    std::int32_t allocation_failed_stage;
    std::int32_t timed;
    double times_ms[256];
    std::int64_t heap_growth_per_cycle;
    std::int32_t prepared;  // the plan path ran: prepare_ms, workspace_bytes, plan_bytes are set
    double prepare_ms;
    std::uint64_t workspace_bytes, plan_bytes;
    // the runner's workspace (ABI 1.2): where it lay (to name a fault), how far the plan wrote in it
    std::int32_t workspace_given, workspace_overrun;
    std::uint64_t workspace_address, workspace_high_water, workspace_overrun_byte;
    std::uint64_t thread_pool_calls, thread_pool_tasks;  // the runner's pool (ABI 1.2)
    // negotiate
    char name[128], version[128];
    std::uint32_t operations, dtypes, ranks, data_formats, filter_formats;
    std::int32_t accumulation_dtype;
    std::uint32_t prop_kinds;  // ABI 1.2 claims
    std::int32_t mixed_dtypes;
    std::uint32_t strided_tensors;  // ABI 1.2, memory layout
    std::int32_t requantization, integer_accumulator;  // ABI 1.5, quantized convolution
    std::uint32_t post_op_kinds, eltwise_algorithms, binary_algorithms;  // ABI 1.6, post-ops
    // what the child holds from the start (copy-on-write pages of the runner, other jobs' included):
    // the child measures it itself, first thing, so that no other thread of the runner can change it
    volatile std::int64_t inherited_bytes;
    volatile std::int32_t inherited_known;
};

// A Report in memory shared with the child, zeroed.
struct SharedReport {
    Report* report = nullptr;
    SharedReport();
    ~SharedReport();
    SharedReport(const SharedReport&) = delete;
    SharedReport& operator=(const SharedReport&) = delete;
};

struct Waited {
    bool timed_out = false;
    bool out_of_memory = false;
    std::int64_t own_bytes = 0;  // the child's own memory when it was killed for using too much
    int status = 0;
};

// Forks; the child runs body(report) behind an exception barrier and exits with _exit (no atexit
// handlers: a backend's static destructors may not survive a fork). The parent waits at most
// timeout_s, then kills the child's process group; meanwhile it kills the child when its own
// memory (what it holds beyond what it inherited) passes the budget.
Waited run(Report& report, double timeout_s, const MemoryBudget& memory, const std::function<void(Report&)>& body);

// Every fork of the runner and every write to a stdio stream of the runner while children may be
// forked by other threads (--jobs) takes this lock: a child then never inherits a stream's lock held
// by another thread, nor data buffered in a stream (which a plugin's exit() would write again).
std::mutex& fork_mutex();

// Set while the runner's job threads may fork (--jobs, jobs.cpp). A child forked then holds only the forking
// thread: LeakSanitizer's check at its exit would not see the other threads' stacks, and would report the heap
// blocks only they point to as leaked (an abort under abort_on_error). Such a child turns that check off
// (__lsan_is_turned_off, child_process.cpp); a child of a single-threaded runner keeps it.
void set_forking_among_threads(bool among);

// Async-signal-safe (interruption.cpp): every child now waiting in run(), in every thread, is killed
// within 2 ms, and so is every child forked after it until cut_short_reset().
void cut_short_every_child();
void cut_short_reset();

// How the child ended; a failure that followed a failed allocation is out of memory, with what the
// plugin then did. `buffers` name a faulting address and hold the output canaries.
ChildOutcome classify(const Report& r, const Waited& w, double timeout_s, const MemoryBudget& memory,
                      const std::vector<NamedBuffer>& buffers);

// In the child: takes a plugin error: its code, its message (prefixed with the call), freed
// through the plugin.
void take_error(const Plugin& plugin, convcheck_error* error, Report& r, const char* call);
void copy_string(char* to, std::size_t capacity, const char* from);
// In the child: the heap in use (for the leak check).
std::int64_t heap_in_use();

}  // namespace child

}  // namespace convcheck::runner
