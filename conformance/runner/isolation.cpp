#include "convcheck/runner/isolation.hpp"

#include <algorithm>
#include <chrono>

#include "convcheck/runner/thread_pool.hpp"

namespace convcheck::runner {

using namespace child;

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// In the child: create with the runner's instance options and (ABI 1.2) the runner's thread pool;
// NULL after an error (then in the report).
convcheck_plugin* create_instance(Report& r, const Plugin& plugin, const InstanceOptions& options, ThreadPool& pool) {
    r.stage = kCreate;
    convcheck_create_args args{};
    args.struct_size = sizeof(args);
    args.num_threads = options.num_threads;
    args.options = options.options.c_str();
    args.thread_pool = pool.abi();
    convcheck_plugin* instance = nullptr;
    if (convcheck_error* e = plugin.api().create(&args, &instance)) {
        take_error(plugin, e, r, "create");
        return nullptr;
    }
    return instance;
}

// create .. query .. run .. destroy, `cycles` times.
void execution_body(Report& r, const Plugin& plugin, const InstanceOptions& options, const IsolatedExecution& e) {
    const convcheck_api& api = plugin.api();
    ThreadPool pool(options.num_threads);  // not const: the plugin runs tasks through it
    struct Counts {  // the pool's counts go into the report however the body ends
        Report& r;
        const ThreadPool& pool;
        ~Counts() { r.thread_pool_calls = pool.calls(), r.thread_pool_tasks = pool.tasks(); }
    } counts{r, pool};
    // a fork leaves the shared buffers out of the child's page table: mapped in here at once, not a fault a page (not
    // for a query alone: a sampled case's buffers of GiBs are still untouched then, and would be allocated)
    for (const auto& b : e.buffers) {
        if (!b.buffer) continue;
        if (b.input) b.buffer->protect_read_only();
        if (!e.query_only) b.buffer->map_in(!b.input);
    }
    const int cycles = e.leak_check ? 5 : 1;
    std::int64_t heap_mark = 0;
    for (int cycle = 0; cycle < cycles; ++cycle) {
        if (cycle == 1) heap_mark = heap_in_use();
        convcheck_plugin* instance = create_instance(r, plugin, options, pool);
        if (!instance) return;
        r.stage = kQuery;
        convcheck_support support{};
        support.struct_size = sizeof(support);
        if (convcheck_error* error = e.query(instance, &support)) {
            take_error(plugin, error, r, "query");
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
        if (!e.query_only && !e.run(r, instance)) {
            api.destroy(instance);
            return;
        }
        r.stage = kDestroy;
        api.destroy(instance);
    }
    if (e.leak_check) r.heap_growth_per_cycle = (heap_in_use() - heap_mark) / (cycles - 1);
    r.result = kOk;
    r.stage = kDone;
}

}  // namespace

bool timed_executes(Report& r, const Plugin& plugin, int warmups, int repeats,
                    const std::function<convcheck_error*()>& execute) {
    repeats = std::min(repeats, 256);
    r.stage = kExecute;
    r.timed = 0;
    for (int i = 0; i < warmups + repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        if (convcheck_error* e = execute()) {
            take_error(plugin, e, r, "execute");
            return false;
        }
        if (i >= warmups) r.times_ms[r.timed++] = milliseconds_since(t0);
    }
    return true;
}

ChildOutcome unsupported_outcome(const std::string& reason) {
    ChildOutcome o;
    o.kind = ChildOutcome::Kind::unsupported;
    o.reason = reason;
    return o;
}

PluginInfo negotiate(const Plugin& plugin, const InstanceOptions& options, double timeout_s, MemoryBudget memory) {
    SharedReport shared;
    Report& report = *shared.report;
    const Waited w = run(report, timeout_s, memory, [&](Report& r) {
        const convcheck_api& api = plugin.api();
        ThreadPool pool(options.num_threads);
        convcheck_plugin* instance = create_instance(r, plugin, options, pool);
        if (!instance) return;
        r.stage = kDescribe;
        convcheck_plugin_info info{};
        info.struct_size = sizeof(info);
        // the documented defaults, for a plugin that knows fewer fields or leaves them unwritten
        info.accumulation_dtype = CONVCHECK_F32;
        info.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD);
        info.mixed_dtypes = 0;
        info.requantization = CONVCHECK_REQUANTIZATION_UNNAMED;
        info.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
        if (convcheck_error* e = api.describe(instance, &info)) {
            take_error(plugin, e, r, "describe");
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
        r.prop_kinds = info.prop_kinds != 0 ? info.prop_kinds : CONVCHECK_BIT(CONVCHECK_FORWARD);  // 0: the default
        r.mixed_dtypes = info.mixed_dtypes;
        r.strided_tensors = info.strided_tensors;  // preset 0 (info{}): dense only
        r.requantization = info.requantization;
        r.integer_accumulator = info.integer_accumulator;
        r.post_op_kinds = info.post_op_kinds;  // preset 0 (info{}): no post-ops
        r.eltwise_algorithms = info.eltwise_algorithms;
        r.binary_algorithms = info.binary_algorithms;
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
    info.prop_kinds = report.prop_kinds;
    info.mixed_dtypes = report.mixed_dtypes != 0;
    info.strided_tensors = report.strided_tensors;
    info.requantization = report.requantization;
    info.integer_accumulator = report.integer_accumulator;
    info.post_op_kinds = report.post_op_kinds;
    info.eltwise_algorithms = report.eltwise_algorithms;
    info.binary_algorithms = report.binary_algorithms;
    info.abi_major = plugin.api().abi_major;
    info.abi_minor = plugin.api().abi_minor;
    if (info.name.empty()) throw PluginError("backend plugin '" + plugin.path() + "' describes itself with no name");
    return info;
}

ChildOutcome execute_isolated(const Plugin& plugin, const InstanceOptions& options, const IsolatedExecution& e) {
    for (const auto& b : e.buffers)
        if (!b.input && b.buffer) b.buffer->arm_canary();
    SharedReport shared;
    const Waited w = run(*shared.report, e.timeout_s, e.memory,
                         [&](Report& r) { execution_body(r, plugin, options, e); });
    shared.report->implementation[sizeof(shared.report->implementation) - 1] = '\0';
    return classify(*shared.report, w, e.timeout_s, e.memory, e.buffers);
}

}  // namespace convcheck::runner
