#include "isolation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "dtype.hpp"

namespace convcheck::runner {

namespace {

using namespace child;

double milliseconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// warmups + repeats calls of `execute` (returning convcheck_error*), the repeats timed; false after
// an error, which is then in the report.
template <typename Execute>
bool timed_executes(Report& r, const Plugin& plugin, int warmups, int repeats, Execute execute) {
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

// create .. query .. run .. destroy, shared by conv and CC. `query` returns convcheck_error* and
// fills a convcheck_support; `run` makes the operation's calls on the instance and returns false
// after an error (then in the report).
template <typename Query, typename Run>
void execution_body(Report& r, const Plugin& plugin, const InstanceOptions& options,
                    const std::vector<NamedBuffer>& buffers, bool leak_check, Query query, Run run) {
    const convcheck_api& api = plugin.api();
    for (const auto& b : buffers)
        if (b.input && b.buffer) b.buffer->protect_read_only();
    const int cycles = leak_check ? 5 : 1;
    std::int64_t heap_mark = 0;
    for (int cycle = 0; cycle < cycles; ++cycle) {
        if (cycle == 1) heap_mark = heap_in_use();
        r.stage = kCreate;
        convcheck_create_args args{};
        args.struct_size = sizeof(args);
        args.num_threads = options.num_threads;
        args.options = options.options.c_str();
        convcheck_plugin* instance = nullptr;
        if (convcheck_error* e = api.create(&args, &instance)) return take_error(plugin, e, r, "create");
        r.stage = kQuery;
        convcheck_support support{};
        support.struct_size = sizeof(support);
        if (convcheck_error* e = query(instance, &support)) {
            take_error(plugin, e, r, "query");
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
        if (!run(instance)) {
            api.destroy(instance);
            return;
        }
        r.stage = kDestroy;
        api.destroy(instance);
    }
    if (leak_check) r.heap_growth_per_cycle = (heap_in_use() - heap_mark) / (cycles - 1);
    r.result = kOk;
    r.stage = kDone;
}

// The plan path (ABI 1.2): prepare with the weights, describe, the timed executes, the one-shot
// conv_execute into one_shot when given, destroy the plan.
bool run_conv_plan(Report& r, const Plugin& plugin, convcheck_plugin* instance, const ConvExecution& e,
                   const GuardedBuffer* one_shot, const convcheck_conv_args& args, int repeats) {
    const convcheck_api& api = plugin.api();
    r.stage = kPrepare;
    convcheck_conv_prepare_args prepare{};
    prepare.struct_size = sizeof(prepare);
    prepare.weights = args.weights;
    prepare.bias = args.bias;
    convcheck_conv_plan* plan = nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    if (convcheck_error* error = api.conv_prepare(instance, &e.desc, &prepare, &plan)) {
        take_error(plugin, error, r, "prepare");
        return false;
    }
    r.prepare_ms = milliseconds_since(t0);
    convcheck_plan_info info{};
    info.struct_size = sizeof(info);  // the defaults: 0 bytes of each
    bool ok = true;
    if (convcheck_error* error = api.conv_plan_describe(plan, &info)) {
        take_error(plugin, error, r, "plan describe");
        ok = false;
    }
    r.workspace_bytes = info.workspace_bytes;
    r.plan_bytes = info.plan_bytes;
    r.prepared = 1;
    ok = ok && timed_executes(r, plugin, e.warmups, repeats, [&] { return api.conv_plan_execute(plan, &args); });
    if (ok && one_shot) {
        r.stage = kOneShot;
        convcheck_conv_args once = args;
        once.dst = one_shot->data();
        once.implementation = nullptr;  // the plan's answer is the one recorded
        once.implementation_capacity = 0;
        if (convcheck_error* error = api.conv_execute(instance, &e.desc, &once)) {
            take_error(plugin, error, r, "one-shot execute");
            ok = false;
        }
    }
    r.stage = kDestroy;
    api.conv_plan_destroy(plan);
    return ok;
}

// "" when the one-shot outputs are the plan's bit for bit (any NaN equals any NaN), else what differs.
std::string paths_difference(const convcheck_conv_desc& desc, const GuardedBuffer& plan, const GuardedBuffer& once) {
    const auto dtype = static_cast<DataType>(desc.dtype);
    const std::size_t element = static_cast<std::size_t>(size_of(dtype));
    const std::int64_t elements = static_cast<std::int64_t>(plan.bytes() / element);
    const auto* a = static_cast<const unsigned char*>(plan.data());
    const auto* b = static_cast<const unsigned char*>(once.data());
    std::int64_t differ = 0, first = -1;
    for (std::int64_t i = 0; i < elements; ++i) {
        if (std::memcmp(a + i * element, b + i * element, element) == 0) continue;
        if (std::isnan(load_as_double(a, dtype, i)) && std::isnan(load_as_double(b, dtype, i))) continue;
        if (differ++ == 0) first = i;
    }
    if (differ == 0) return "";
    char text[256];
    std::snprintf(text, sizeof(text),
                  "the one-shot conv_execute and the plan's conv_plan_execute disagree on %lld of %lld outputs "
                  "(first at flat index %lld: plan %.9g, one-shot %.9g)",
                  static_cast<long long>(differ), static_cast<long long>(elements), static_cast<long long>(first),
                  load_as_double(a, dtype, first), load_as_double(b, dtype, first));
    return text;
}

}  // namespace

// ---- the calls -----------------------------------------------------------------------------------

PluginInfo negotiate(const Plugin& plugin, const InstanceOptions& options, double timeout_s, MemoryBudget memory) {
    SharedReport shared;
    Report& report = *shared.report;
    const Waited w = run(report, timeout_s, memory, [&](Report& r) {
        const convcheck_api& api = plugin.api();
        r.stage = kCreate;
        convcheck_create_args args{};
        args.struct_size = sizeof(args);
        args.num_threads = options.num_threads;
        args.options = options.options.c_str();
        convcheck_plugin* instance = nullptr;
        if (convcheck_error* e = api.create(&args, &instance)) return take_error(plugin, e, r, "create");
        r.stage = kDescribe;
        convcheck_plugin_info info{};
        info.struct_size = sizeof(info);
        info.accumulation_dtype = CONVCHECK_F32;  // the documented default for a plugin that knows fewer fields
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
        r.strided_tensors = info.strided_tensors;  // preset 0 (info{}): dense only
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
    info.strided_tensors = report.strided_tensors;
    info.abi_major = plugin.api().abi_major;
    info.abi_minor = plugin.api().abi_minor;
    if (info.name.empty()) throw PluginError("backend plugin '" + plugin.path() + "' describes itself with no name");
    return info;
}

ChildOutcome execute_conv(const Plugin& plugin, const InstanceOptions& options, const ConvExecution& e) {
    const convcheck_api& api = plugin.api();
    if (!api.conv_query) {
        ChildOutcome o;
        o.kind = ChildOutcome::Kind::unsupported;
        o.reason = "the plugin implements no discrete convolution (conv_query is NULL)";
        return o;
    }
    const GuardedBuffer* one_shot = plugin.has_conv_plan() ? e.one_shot_dst : nullptr;
    const std::vector<NamedBuffer> buffers{{"src", e.src, true},
                                           {"weights", e.weights, true},
                                           {"bias", e.bias, true},
                                           {"dst", e.dst, false},
                                           {"one-shot dst", one_shot, false}};
    for (const auto& b : buffers)
        if (!b.input && b.buffer) b.buffer->arm_canary();
    SharedReport shared;
    const Waited w = run(*shared.report, e.timeout_s, e.memory, [&](Report& r) {
        convcheck_conv_args args{};
        args.struct_size = sizeof(args);
        args.src = e.src->data();
        args.weights = e.weights->data();
        args.bias = e.bias ? e.bias->data() : nullptr;
        args.dst = e.dst->data();
        args.implementation = r.implementation;
        args.implementation_capacity = sizeof(r.implementation);
        const int repeats = std::min(e.repeats, 256);
        execution_body(
            r, plugin, options, buffers, e.leak_check,
            [&](convcheck_plugin* p, convcheck_support* s) { return api.conv_query(p, &e.desc, s); },
            [&](convcheck_plugin* p) {
                if (plugin.has_conv_plan()) return run_conv_plan(r, plugin, p, e, one_shot, args, repeats);
                return timed_executes(r, plugin, e.warmups, repeats, [&] { return api.conv_execute(p, &e.desc, &args); });
            });
    });
    shared.report->implementation[sizeof(shared.report->implementation) - 1] = '\0';
    ChildOutcome o = classify(*shared.report, w, e.timeout_s, e.memory, buffers);
    if (o.kind == ChildOutcome::Kind::ok && one_shot != nullptr && o.prepare_ms)
        if (std::string why = paths_difference(e.desc, *e.dst, *one_shot); !why.empty()) {
            o.kind = ChildOutcome::Kind::paths_differ;
            o.reason = std::move(why);
        }
    return o;
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
    const Waited w = run(*shared.report, e.timeout_s, e.memory, [&](Report& r) {
        convcheck_cc_args args{};
        args.struct_size = sizeof(args);
        args.src = e.src->data();
        args.theta = e.theta ? static_cast<const float*>(e.theta->data()) : nullptr;
        args.bias = e.bias ? e.bias->data() : nullptr;
        args.dst = e.dst->data();
        args.implementation = r.implementation;
        args.implementation_capacity = sizeof(r.implementation);
        const int repeats = std::min(e.repeats, 256);
        execution_body(
            r, plugin, options, buffers, e.leak_check,
            [&](convcheck_plugin* p, convcheck_support* s) { return api.cc_query(p, &e.desc, s); },
            [&](convcheck_plugin* p) {
                return timed_executes(r, plugin, e.warmups, repeats, [&] { return api.cc_execute(p, &e.desc, &args); });
            });
    });
    shared.report->implementation[sizeof(shared.report->implementation) - 1] = '\0';
    return classify(*shared.report, w, e.timeout_s, e.memory, buffers);
}

}  // namespace convcheck::runner
