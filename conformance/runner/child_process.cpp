#include "convcheck/runner/child_process.hpp"

#include "convcheck/core/sanitizer_build.hpp"

#include <malloc.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <utility>

#include "convcheck/runner/parent_only_memory.hpp"
#include "convcheck/runner/retained_heap.hpp"
#include "convcheck/runner/workspace.hpp"

namespace {
std::atomic<bool> g_forking_among_threads{false};
volatile int g_leak_check_off = 0;  // set in a child forked among threads
}  // namespace

// LeakSanitizer's hook (sanitizer/lsan_interface.h): nonzero turns its check at exit off. Unused without LSan.
extern "C" __attribute__((visibility("default"), used)) int __lsan_is_turned_off() { return g_leak_check_off; }

namespace convcheck::runner::child {

void set_forking_among_threads(bool among) { g_forking_among_threads = among; }

const char* stage_name(std::int32_t s) {
    switch (s) {
        case kStarting: return "start-up";
        case kCreate: return "create";
        case kDescribe: return "describe";
        case kQuery: return "query";
        case kPrepare: return "prepare";
        case kExecute: return "execute";
        case kOneShot: return "one-shot execute";
        case kDestroy: return "destroy";
        case kDone: return "exit";
    }
    return "?";
}

void copy_string(char* to, std::size_t capacity, const char* from) {
    std::snprintf(to, capacity, "%s", from ? from : "");
}

void take_error(const Plugin& plugin, convcheck_error* error, Report& r, const char* call) {
    const convcheck_api& api = plugin.api();
    const std::int32_t code = plugin.error_code(error);
    const char* message = api.error_message(error);
    if (code == CONVCHECK_ERROR_UNKNOWN)
        std::snprintf(r.message, sizeof(r.message), "%s: %s", call, message ? message : "(no message)");
    else
        std::snprintf(r.message, sizeof(r.message), "%s (%s): %s", call, error_code_name(code),
                      message ? message : "(no message)");
    api.error_destroy(error);
    r.error_code = code;
    r.result = kPluginError;
}

#if defined(CONVCHECK_SANITIZER_BUILD)
// Under ASan/TSan the sanitizer's allocator serves malloc, and glibc's mallinfo2 sees none of it.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
std::int64_t heap_in_use() { return static_cast<std::int64_t>(__sanitizer_get_current_allocated_bytes()); }
#else
std::int64_t heap_in_use() {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}
#endif

SharedReport::SharedReport() {
    void* p = mmap(nullptr, sizeof(Report), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot map the child report page");
    report = static_cast<Report*>(p);
    std::memset(report, 0, sizeof(Report));
}
SharedReport::~SharedReport() { munmap(report, sizeof(Report)); }

namespace {

Report* g_report = nullptr;
volatile std::sig_atomic_t g_cut_short = 0;

void on_fault(int sig, siginfo_t* info, void*) {
    if (g_report) {
        g_report->fault_address = reinterpret_cast<std::uint64_t>(info->si_addr);
        g_report->fault_signal = sig;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

// The child's new-handler: operator new (the plugin's too: one libstdc++ per process) found no
// memory, under RLIMIT_DATA or none left at all. Noted, then the usual std::bad_alloc; what the
// plugin makes of it (an error, a crash) is then reported as out of memory.
void note_allocation_failure() {
    if (g_report && !g_report->allocation_failed) {
        g_report->allocation_failed_stage = g_report->stage;
        g_report->allocation_failed = 1;
    }
}
void on_new_failure() {
    note_allocation_failure();
    throw std::bad_alloc();
}

void kill_child(pid_t pid, Waited& w) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &w.status, 0);
}

}  // namespace

std::mutex& fork_mutex() {
    static std::mutex m;
    return m;
}

void cut_short_every_child() { g_cut_short = 1; }
void cut_short_reset() { g_cut_short = 0; }

Waited run(Report& report, double timeout_s, const MemoryBudget& memory, const std::function<void(Report&)>& body) {
    const MemoryEnforcement& enforcement = memory_enforcement();
    const bool limited = memory.limit_bytes > 0;
    const pid_t parent = getpid();
    std::unique_lock<std::mutex> forking(fork_mutex());
    std::fflush(nullptr);
    parent_only_memory::show_to_child();  // this case's large arrays: the child's too (other jobs' are not)
    const pid_t pid = fork();
    if (pid != 0) parent_only_memory::hide_after_fork();
    if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
        if (g_forking_among_threads) g_leak_check_off = 1;  // see set_forking_among_threads
        release_retained_heap_in_child();  // the runner's free pages: not the plugin's to use unseen
        // the child starts with the parent's private pages (copy-on-write): they are not its own
        report.inherited_bytes = limited && enforcement.rss_poll ? private_resident_bytes(0) : 0;
        report.inherited_known = 1;
        // The child dies with the runner (Ctrl-C, a CI timeout): a hanging backend never outlives it.
        // (It dies with the thread that forked it: a job's thread waits for its child, below.)
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        setpgid(0, 0);
        signal(SIGALRM, SIG_DFL);  // the parent's progress timer (progress.hpp) is not the plugin's
        if (limited && enforcement.rlimit_data) limit_child_data(std::max<std::int64_t>(memory.child_bytes(), 0));
        std::set_new_handler(on_new_failure);
        dup2(2, 1);  // a plugin's prints go to stderr, never into results written to stdout
        g_report = &report;
        static char alternate_stack[1 << 16];
        stack_t ss{};
        ss.ss_sp = alternate_stack;
        ss.ss_size = sizeof(alternate_stack);
        sigaltstack(&ss, nullptr);
        struct sigaction sa{};
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, nullptr);
        sigaction(SIGBUS, &sa, nullptr);
        try {
            body(report);
        } catch (const std::exception& e) {
            // a std::bad_alloc is out of memory; a bad_array_new_length is a size computed wrong
            if (dynamic_cast<const std::bad_alloc*>(&e) && !dynamic_cast<const std::bad_array_new_length*>(&e))
                note_allocation_failure();
            report.result = kException;
            std::snprintf(report.message, sizeof(report.message), "a C++ exception escaped the plugin in %s: %s",
                          stage_name(report.stage), e.what());
        } catch (...) {
            report.result = kException;
            std::snprintf(report.message, sizeof(report.message),
                          "a C++ exception (not a std::exception) escaped the plugin in %s", stage_name(report.stage));
        }
        _exit(0);
    }
    forking.unlock();
    setpgid(pid, pid);  // also from the parent, so the group exists before any kill
    Waited w;
    std::optional<ChildMemory> watched;
    if (limited && enforcement.rss_poll) watched.emplace(pid);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    long sleep_ns = 20'000;
    while (true) {
        const pid_t done = waitpid(pid, &w.status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
        if (g_cut_short) {  // the run was interrupted (interruption.hpp): this case does not count
            kill_child(pid, w);
            break;
        }
        if (watched && report.inherited_known) {
            const std::int64_t resident = watched->private_resident();
            if (resident >= 0 && resident - report.inherited_bytes > memory.child_bytes()) {
                w.own_bytes = resident - report.inherited_bytes;
                kill_child(pid, w);
                w.out_of_memory = true;
                break;
            }
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            kill_child(pid, w);
            w.timed_out = true;
            break;
        }
        timespec ts{0, sleep_ns};
        nanosleep(&ts, nullptr);
        sleep_ns = std::min<long>(sleep_ns * 2, 2'000'000);
    }
    return w;
}

namespace {

std::string signal_name(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// "out of memory: the plugin's child exceeded the memory limit of 2 GiB in execute: ..."
std::string out_of_memory_reason(const Report& r, const Waited& w, const MemoryBudget& memory) {
    std::string reason = "out of memory: the plugin's child exceeded the memory limit of " +
                         memory_text(memory.limit_bytes) + " in " + stage_name(r.stage) + ": it used " +
                         memory_text(w.own_bytes) + " of its own";
    if (memory.runner_bytes > 0)
        reason += ", more than the " + memory_text(memory.child_bytes()) + " left beside the " +
                  memory_text(memory.runner_bytes) + " the runner holds for this case";
    return reason + "; killed";
}

ChildOutcome classify_end(const Report& r, const Waited& w, double timeout_s, const MemoryBudget& memory,
                          const std::vector<NamedBuffer>& buffers) {
    ChildOutcome o;
    o.implementation = r.implementation;
    if (w.out_of_memory) {
        o.kind = ChildOutcome::Kind::out_of_memory;
        o.reason = out_of_memory_reason(r, w, memory);
        return o;
    }
    if (w.timed_out) {
        o.kind = ChildOutcome::Kind::hanged;
        char text[128];
        std::snprintf(text, sizeof(text), "no result after %g s (in %s); killed", timeout_s, stage_name(r.stage));
        o.reason = text;
        return o;
    }
    if (WIFSIGNALED(w.status)) {
        const int sig = WTERMSIG(w.status);
        o.kind = ChildOutcome::Kind::crashed;
        o.reason = signal_name(sig) + " in " + stage_name(r.stage);
        if ((sig == SIGSEGV || sig == SIGBUS) && r.fault_signal == sig) {
            const std::string in_workspace =
                r.workspace_given ? describe_workspace_fault(r.fault_address, r.workspace_address, r.workspace_bytes) : "";
            o.reason += ": " + (in_workspace.empty() ? describe_fault(r.fault_address, buffers) : in_workspace);
        }
        if (sig == SIGABRT) o.reason += " (abort)";
        if (sig == SIGKILL) o.reason += " (killed from outside the runner: the kernel's OOM killer, or a user)";
        return o;
    }
    if (WIFEXITED(w.status) && WEXITSTATUS(w.status) != 0) {
        o.kind = ChildOutcome::Kind::crashed;
        o.reason = "the plugin called exit(" + std::to_string(WEXITSTATUS(w.status)) + ") in " + stage_name(r.stage);
        return o;
    }
    switch (r.result) {
        case kException: o.kind = ChildOutcome::Kind::crashed; o.reason = r.message; return o;
        case kPluginError:
            o.error_code = error_code_name(r.error_code);
            if (r.error_code == CONVCHECK_ERROR_CRASHED) {  // 1.6: where the plugin runs it (a backend process)
                o.kind = ChildOutcome::Kind::crashed;
                o.reason = r.message;
                return o;
            }
            // a plugin that says it ran out of memory is classified with the runner's own findings
            o.kind = r.error_code == CONVCHECK_ERROR_OUT_OF_MEMORY ? ChildOutcome::Kind::out_of_memory
                                                                   : ChildOutcome::Kind::plugin_error;
            o.reason = r.error_code == CONVCHECK_ERROR_OUT_OF_MEMORY
                           ? std::string("out of memory: the plugin returned CONVCHECK_ERROR_OUT_OF_MEMORY: ") + r.message
                           : r.message;
            return o;
        case kUnsupported: o.kind = ChildOutcome::Kind::unsupported; o.reason = r.message; return o;
        default: break;
    }
    if (r.stage != kDone) {
        o.kind = ChildOutcome::Kind::crashed;
        o.reason = std::string("the child ended early, in ") + stage_name(r.stage);
        return o;
    }
    for (const auto& b : buffers)
        if (!b.input && b.buffer && !b.buffer->canary_intact()) {
            o.kind = ChildOutcome::Kind::crashed;
            o.reason = "write before the start of the output " + b.name + " (the canary in front of it was overwritten)";
            return o;
        }
    if (r.workspace_overrun) {
        o.kind = ChildOutcome::Kind::crashed;
        o.reason = "write past the end of the runner's workspace (byte " + std::to_string(r.workspace_overrun_byte) +
                   "; the plan reported workspace_bytes " + std::to_string(r.workspace_bytes) +
                   ": the canary after them was overwritten)";
        return o;
    }
    for (int i = 0; i < r.timed; ++i) o.times_ms.push_back(r.times_ms[i]);
    if (r.workspace_given) o.workspace_used = r.workspace_high_water;
    o.thread_pool_calls = r.thread_pool_calls;
    o.thread_pool_tasks = r.thread_pool_tasks;
    if (r.prepared) {
        o.prepare_ms = r.prepare_ms;
        o.workspace_bytes = r.workspace_bytes;
        o.plan_bytes = r.plan_bytes;
    }
    o.heap_growth_per_cycle = r.heap_growth_per_cycle;
    return o;
}

}  // namespace

ChildOutcome classify(const Report& r, const Waited& w, double timeout_s, const MemoryBudget& memory,
                      const std::vector<NamedBuffer>& buffers) {
    ChildOutcome o = classify_end(r, w, timeout_s, memory, buffers);
    // (an out-of-memory error code after a failed allocation: the runner's reason names the limit)
    const bool failed = o.kind == ChildOutcome::Kind::plugin_error || o.kind == ChildOutcome::Kind::crashed ||
                        (o.kind == ChildOutcome::Kind::out_of_memory && !o.error_code.empty());
    if (failed && r.allocation_failed) {
        o.kind = ChildOutcome::Kind::out_of_memory;
        o.reason = std::string("out of memory: an allocation failed in ") + stage_name(r.allocation_failed_stage) +
                   " under the memory limit of " + memory_text(memory.limit_bytes) + "; then: " +
                   (o.error_code.empty() ? o.reason : std::string(r.message));
    }
    return o;
}


}  // namespace convcheck::runner::child
