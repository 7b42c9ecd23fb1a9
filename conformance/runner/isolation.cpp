#include "isolation.hpp"

#include <malloc.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>

namespace convcheck::runner {

// ---- the child -----------------------------------------------------------------------------------

namespace {

enum Stage : std::int32_t { kStarting, kCreate, kDescribe, kQuery, kExecute, kDestroy, kDone };
const char* stage_name(std::int32_t s) {
    switch (s) {
        case kStarting: return "start-up";
        case kCreate: return "create";
        case kDescribe: return "describe";
        case kQuery: return "query";
        case kExecute: return "execute";
        case kDestroy: return "destroy";
        case kDone: return "exit";
    }
    return "?";
}

enum Result : std::int32_t { kOk, kUnsupported, kPluginError, kException };

// The page the child reports through (shared memory; plain data only).
struct ChildReport {
    volatile std::int32_t stage;
    std::int32_t result;
    char message[1024];
    char implementation[128];
    volatile std::int32_t fault_signal;
    volatile std::uint64_t fault_address;
    volatile std::int32_t allocation_failed;  // operator new found no memory, or std::bad_alloc escaped
    std::int32_t allocation_failed_stage;
    std::int32_t timed;
    double times_ms[256];
    std::int64_t heap_growth_per_cycle;
    // negotiate
    char name[128], version[128];
    std::uint32_t operations, dtypes, ranks, data_formats, filter_formats;
    std::int32_t accumulation_dtype;
};

ChildReport* g_report = nullptr;

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

void copy_string(char* to, std::size_t capacity, const char* from) {
    std::snprintf(to, capacity, "%s", from ? from : "");
}

// Takes a plugin error: copies its message (prefixed with the call) and frees it through the plugin.
void take_error(const convcheck_api& api, convcheck_error* error, ChildReport& r, const char* call) {
    const char* message = api.error_message(error);
    std::snprintf(r.message, sizeof(r.message), "%s: %s", call, message ? message : "(no message)");
    api.error_destroy(error);
    r.result = kPluginError;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// Under ASan/TSan the sanitizer's allocator serves malloc, and glibc's mallinfo2 sees none of it.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
std::int64_t heap_in_use() { return static_cast<std::int64_t>(__sanitizer_get_current_allocated_bytes()); }
#else
std::int64_t heap_in_use() {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}
#endif

struct SharedReport {
    ChildReport* report = nullptr;
    SharedReport() {
        void* p = mmap(nullptr, sizeof(ChildReport), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("cannot map the child report page");
        report = static_cast<ChildReport*>(p);
        std::memset(report, 0, sizeof(ChildReport));
    }
    ~SharedReport() { munmap(report, sizeof(ChildReport)); }
};

struct Waited {
    bool timed_out = false;
    bool out_of_memory = false;
    std::int64_t own_bytes = 0;  // the child's own memory when it was killed for using too much
    int status = 0;
};

void kill_child(pid_t pid, Waited& w) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &w.status, 0);
}

// Forks; the child runs body(report) behind an exception barrier and exits with _exit (no atexit
// handlers: a backend's static destructors may not survive a fork). The parent waits at most
// timeout_s, then kills the child's process group; meanwhile it kills the child when its own
// memory (what it holds beyond what it inherited) passes the budget.
Waited run_child(ChildReport& report, double timeout_s, const MemoryBudget& memory,
                 const std::function<void(ChildReport&)>& body) {
    const MemoryEnforcement& enforcement = memory_enforcement();
    const bool limited = memory.limit_bytes > 0;
    // the child starts with the parent's private pages (copy-on-write): they are not its own
    const std::int64_t inherited = limited && enforcement.rss_poll ? private_resident_bytes(0) : 0;
    std::fflush(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
        // The child dies with the runner (Ctrl-C, a CI timeout): a hanging backend never outlives it.
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
        if (watched) {
            const std::int64_t resident = watched->private_resident();
            if (resident >= 0 && resident - inherited > memory.child_bytes()) {
                w.own_bytes = resident - inherited;
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

std::string signal_name(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// "out of memory: the plugin's child exceeded the memory limit of 2 GiB in execute: ..."
std::string out_of_memory_reason(const ChildReport& r, const Waited& w, const MemoryBudget& memory) {
    std::string reason = "out of memory: the plugin's child exceeded the memory limit of " +
                         memory_text(memory.limit_bytes) + " in " + stage_name(r.stage) + ": it used " +
                         memory_text(w.own_bytes) + " of its own";
    if (memory.runner_bytes > 0)
        reason += ", more than the " + memory_text(memory.child_bytes()) + " left beside the " +
                  memory_text(memory.runner_bytes) + " the runner holds for this case";
    return reason + "; killed";
}

ChildOutcome classify_end(const ChildReport& r, const Waited& w, double timeout_s, const MemoryBudget& memory,
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
        if ((sig == SIGSEGV || sig == SIGBUS) && r.fault_signal == sig) o.reason += ": " + describe_fault(r.fault_address, buffers);
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
        case kPluginError: o.kind = ChildOutcome::Kind::plugin_error; o.reason = r.message; return o;
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
    for (int i = 0; i < r.timed; ++i) o.times_ms.push_back(r.times_ms[i]);
    o.heap_growth_per_cycle = r.heap_growth_per_cycle;
    return o;
}

// How the child ended; a failure that followed a failed allocation is out of memory, with what the
// plugin then did.
ChildOutcome classify(const ChildReport& r, const Waited& w, double timeout_s, const MemoryBudget& memory,
                      const std::vector<NamedBuffer>& buffers) {
    ChildOutcome o = classify_end(r, w, timeout_s, memory, buffers);
    const bool failed = o.kind == ChildOutcome::Kind::plugin_error || o.kind == ChildOutcome::Kind::crashed;
    if (failed && r.allocation_failed) {
        o.kind = ChildOutcome::Kind::out_of_memory;
        o.reason = std::string("out of memory: an allocation failed in ") + stage_name(r.allocation_failed_stage) +
                   " under the memory limit of " + memory_text(memory.limit_bytes) + "; then: " + o.reason;
    }
    return o;
}

// create .. query .. execute .. destroy, shared by conv and CC. `query` and `execute` return
// convcheck_error*; query fills a convcheck_support.
template <typename Query, typename Execute>
void execution_body(ChildReport& r, const Plugin& plugin, const InstanceOptions& options,
                    const std::vector<NamedBuffer>& buffers, int warmups, int repeats, bool leak_check, Query query,
                    Execute execute) {
    const convcheck_api& api = plugin.api();
    for (const auto& b : buffers)
        if (b.input && b.buffer) b.buffer->protect_read_only();
    const int cycles = leak_check ? 5 : 1;
    std::int64_t heap_mark = 0;
    repeats = std::min(repeats, 256);
    for (int cycle = 0; cycle < cycles; ++cycle) {
        if (cycle == 1) heap_mark = heap_in_use();
        r.stage = kCreate;
        convcheck_create_args args{};
        args.struct_size = sizeof(args);
        args.num_threads = options.num_threads;
        args.options = options.options.c_str();
        convcheck_plugin* instance = nullptr;
        if (convcheck_error* e = api.create(&args, &instance)) return take_error(api, e, r, "create");
        r.stage = kQuery;
        convcheck_support support{};
        support.struct_size = sizeof(support);
        if (convcheck_error* e = query(instance, &support)) {
            take_error(api, e, r, "query");
            api.destroy(instance);
            return;
        }
        if (!support.supported) {
            r.result = kUnsupported;
            support.reason[sizeof(support.reason) - 1] = '\0';
            copy_string(r.message, sizeof(r.message), support.reason[0] ? support.reason : "(no reason given)");
            api.destroy(instance);
            r.stage = kDone;
            return;
        }
        r.stage = kExecute;
        r.timed = 0;
        for (int i = 0; i < warmups + repeats; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            if (convcheck_error* e = execute(instance)) {
                take_error(api, e, r, "execute");
                api.destroy(instance);
                return;
            }
            const auto t1 = std::chrono::steady_clock::now();
            if (i >= warmups) r.times_ms[r.timed++] = std::chrono::duration<double, std::milli>(t1 - t0).count();
        }
        r.stage = kDestroy;
        api.destroy(instance);
    }
    if (leak_check) r.heap_growth_per_cycle = (heap_in_use() - heap_mark) / (cycles - 1);
    r.result = kOk;
    r.stage = kDone;
}

}  // namespace

// ---- the calls -----------------------------------------------------------------------------------

PluginInfo negotiate(const Plugin& plugin, const InstanceOptions& options, double timeout_s, MemoryBudget memory) {
    SharedReport shared;
    ChildReport& report = *shared.report;
    const Waited w = run_child(report, timeout_s, memory, [&](ChildReport& r) {
        const convcheck_api& api = plugin.api();
        r.stage = kCreate;
        convcheck_create_args args{};
        args.struct_size = sizeof(args);
        args.num_threads = options.num_threads;
        args.options = options.options.c_str();
        convcheck_plugin* instance = nullptr;
        if (convcheck_error* e = api.create(&args, &instance)) return take_error(api, e, r, "create");
        r.stage = kDescribe;
        convcheck_plugin_info info{};
        info.struct_size = sizeof(info);
        info.accumulation_dtype = CONVCHECK_F32;  // the documented default for a plugin that knows fewer fields
        if (convcheck_error* e = api.describe(instance, &info)) {
            take_error(api, e, r, "describe");
            api.destroy(instance);
            return;
        }
        copy_string(r.name, sizeof(r.name), info.name);
        copy_string(r.version, sizeof(r.version), info.version);
        r.operations = info.operations;
        r.dtypes = info.dtypes;
        r.ranks = info.ranks;
        r.data_formats = info.data_formats;
        r.filter_formats = info.filter_formats;
        r.accumulation_dtype = info.accumulation_dtype;
        r.stage = kDestroy;
        api.destroy(instance);
        r.result = kOk;
        r.stage = kDone;
    });
    const ChildOutcome o = classify(report, w, timeout_s, memory, {});
    if (o.kind != ChildOutcome::Kind::ok)
        throw PluginError("backend plugin '" + plugin.path() + "' failed to negotiate: " + o.reason);
    PluginInfo info;
    info.name = report.name;
    info.version = report.version;
    info.operations = report.operations;
    info.dtypes = report.dtypes;
    info.ranks = report.ranks;
    info.data_formats = report.data_formats;
    info.filter_formats = report.filter_formats;
    info.accumulation_dtype = report.accumulation_dtype;
    info.abi_major = plugin.api().abi_major;
    info.abi_minor = plugin.api().abi_minor;
    if (info.name.empty()) throw PluginError("backend plugin '" + plugin.path() + "' describes itself with no name");
    return info;
}

ChildOutcome execute_conv(const Plugin& plugin, const InstanceOptions& options, const ConvExecution& e) {
    const std::vector<NamedBuffer> buffers{
        {"src", e.src, true}, {"weights", e.weights, true}, {"bias", e.bias, true}, {"dst", e.dst, false}};
    if (e.dst) e.dst->arm_canary();
    const convcheck_api& api = plugin.api();
    if (!api.conv_query) {
        ChildOutcome o;
        o.kind = ChildOutcome::Kind::unsupported;
        o.reason = "the plugin implements no discrete convolution (conv_query is NULL)";
        return o;
    }
    SharedReport shared;
    const Waited w = run_child(*shared.report, e.timeout_s, e.memory, [&](ChildReport& r) {
        convcheck_conv_args args{};
        args.struct_size = sizeof(args);
        args.src = e.src->data();
        args.weights = e.weights->data();
        args.bias = e.bias ? e.bias->data() : nullptr;
        args.dst = e.dst->data();
        args.implementation = r.implementation;
        args.implementation_capacity = sizeof(r.implementation);
        execution_body(
            r, plugin, options, buffers, e.warmups, e.repeats, e.leak_check,
            [&](convcheck_plugin* p, convcheck_support* s) { return api.conv_query(p, &e.desc, s); },
            [&](convcheck_plugin* p) { return api.conv_execute(p, &e.desc, &args); });
    });
    shared.report->implementation[sizeof(shared.report->implementation) - 1] = '\0';
    return classify(*shared.report, w, e.timeout_s, e.memory, buffers);
}

ChildOutcome execute_cc(const Plugin& plugin, const InstanceOptions& options, const CcExecution& e) {
    const std::vector<NamedBuffer> buffers{
        {"src", e.src, true}, {"theta", e.theta, true}, {"bias", e.bias, true}, {"dst", e.dst, false}};
    if (e.dst) e.dst->arm_canary();
    const convcheck_api& api = plugin.api();
    if (!api.cc_query) {
        ChildOutcome o;
        o.kind = ChildOutcome::Kind::unsupported;
        o.reason = "the plugin implements no continuous convolution (cc_query is NULL)";
        return o;
    }
    SharedReport shared;
    const Waited w = run_child(*shared.report, e.timeout_s, e.memory, [&](ChildReport& r) {
        convcheck_cc_args args{};
        args.struct_size = sizeof(args);
        args.src = e.src->data();
        args.theta = e.theta ? static_cast<const float*>(e.theta->data()) : nullptr;
        args.bias = e.bias ? e.bias->data() : nullptr;
        args.dst = e.dst->data();
        args.implementation = r.implementation;
        args.implementation_capacity = sizeof(r.implementation);
        execution_body(
            r, plugin, options, buffers, e.warmups, e.repeats, e.leak_check,
            [&](convcheck_plugin* p, convcheck_support* s) { return api.cc_query(p, &e.desc, s); },
            [&](convcheck_plugin* p) { return api.cc_execute(p, &e.desc, &args); });
    });
    shared.report->implementation[sizeof(shared.report->implementation) - 1] = '\0';
    return classify(*shared.report, w, e.timeout_s, e.memory, buffers);
}

}  // namespace convcheck::runner
