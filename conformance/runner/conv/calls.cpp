// Discrete convolution's plugin entry points in the isolated child (operation_calls.hpp):
// conv_query, then conv_execute, or the plan (ABI 1.2: conv_prepare, conv_plan_describe,
// conv_plan_execute, conv_plan_destroy) with the one-shot conv_execute beside it.
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "convcheck/core/dtype.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "convcheck/runner/workspace.hpp"

namespace convcheck::runner {

namespace {

using namespace child;

// A sum post-op reads dst as it was when the call began: every execute starts from dst_prev (ABI 1.6).
void restore_prior_dst(const ConvExecution& e, const GuardedBuffer* dst) {
    if (e.prior_dst && dst) std::memcpy(dst->data(), e.prior_dst->data(), dst->bytes());
}

// The plan path (ABI 1.2): prepare with the weights, describe, the timed executes, the one-shot
// conv_execute into one_shot when given, destroy the plan.
bool run_conv_plan(Report& r, const Plugin& plugin, convcheck_plugin* instance, const ConvExecution& e,
                   const GuardedBuffer* one_shot, const convcheck_conv_args& args) {
    const convcheck_api& api = plugin.api();
    r.stage = kPrepare;
    convcheck_conv_prepare_args prepare{};
    prepare.struct_size = sizeof(prepare);
    if (e.weights_at_prepare) prepare.weights = args.weights, prepare.bias = args.bias;
    convcheck_conv_plan* plan = nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    if (convcheck_error* error = api.conv_prepare(instance, &e.desc, &prepare, &plan)) {
        take_error(plugin, error, r, "prepare");
        return false;
    }
    r.prepare_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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
    // The runner's workspace (ABI 1.2) for the plan's executes, when it reported one.
    std::optional<RunnerWorkspace> workspace;
    convcheck_conv_args plan_args = args;
    if (ok && info.workspace_bytes > 0) {
        try {
            workspace.emplace(info.workspace_bytes);
        } catch (const std::exception& error) {
            r.allocation_failed_stage = r.stage;
            r.allocation_failed = 1;
            throw std::runtime_error("the runner cannot map the workspace of " + std::to_string(info.workspace_bytes) +
                                     " bytes the plan reported: " + error.what());
        }
        r.workspace_given = 1;
        r.workspace_address = reinterpret_cast<std::uintptr_t>(workspace->data());
        plan_args.workspace = workspace->data();
        plan_args.workspace_size = info.workspace_bytes;
    }
    ok = ok && timed_executes(r, plugin, e.warmups, e.repeats, [&] {
        restore_prior_dst(e, e.dst);
        return api.conv_plan_execute(plan, &plan_args);
    });
    if (workspace) {
        r.workspace_high_water = workspace->high_water();
        if (const std::int64_t past = workspace->first_write_past_end(); past >= 0)
            r.workspace_overrun = 1, r.workspace_overrun_byte = static_cast<std::uint64_t>(past);
    }
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
// dst's element: a float dtype's (NaN equal to NaN), or an integer's (ABI 1.5: its bytes alone)
std::string paths_difference(const convcheck_conv_desc& desc, const GuardedBuffer& plan, const GuardedBuffer& once) {
    const std::int32_t dst = desc.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, dst_dtype) ? desc.dst_dtype
                                                                                                    : desc.dtype;
    const bool integer = dst == CONVCHECK_U8 || dst == CONVCHECK_S8 || dst == CONVCHECK_S32;
    const auto dtype = integer ? DataType::f32 : static_cast<DataType>(dst);
    const std::size_t element = integer ? (dst == CONVCHECK_S32 ? 4u : 1u) : static_cast<std::size_t>(size_of(dtype));
    const std::int64_t elements = static_cast<std::int64_t>(plan.bytes() / element);
    const auto* a = static_cast<const unsigned char*>(plan.data());
    const auto* b = static_cast<const unsigned char*>(once.data());
    if (std::memcmp(a, b, static_cast<std::size_t>(elements) * element) == 0) return "";  // the same bytes throughout
    std::int64_t differ = 0, first = -1;
    for (std::int64_t i = 0; i < elements; ++i) {
        if (std::memcmp(a + i * element, b + i * element, element) == 0) continue;
        if (!integer && std::isnan(load_as_double(a, dtype, i)) && std::isnan(load_as_double(b, dtype, i))) continue;
        if (differ++ == 0) first = i;
    }
    if (differ == 0) return "";
    char text[256];
    if (integer) {
        std::int64_t x = 0, y = 0;
        std::memcpy(&x, a + first * element, element);  // little-endian: the low bytes
        std::memcpy(&y, b + first * element, element);
        std::snprintf(text, sizeof(text),
                      "the one-shot conv_execute and the plan's conv_plan_execute disagree on %lld of %lld outputs "
                      "(first at flat index %lld: bytes 0x%llx and 0x%llx)",
                      static_cast<long long>(differ), static_cast<long long>(elements), static_cast<long long>(first),
                      static_cast<unsigned long long>(x), static_cast<unsigned long long>(y));
        return text;
    }
    std::snprintf(text, sizeof(text),
                  "the one-shot conv_execute and the plan's conv_plan_execute disagree on %lld of %lld outputs "
                  "(first at flat index %lld: plan %.9g, one-shot %.9g)",
                  static_cast<long long>(differ), static_cast<long long>(elements), static_cast<long long>(first),
                  load_as_double(a, dtype, first), load_as_double(b, dtype, first));
    return text;
}

}  // namespace

convcheck_conv_args conv_args(const GuardedBuffer* src, const GuardedBuffer* weights, const GuardedBuffer* bias,
                              const GuardedBuffer* dst, child::Report& r) {
    convcheck_conv_args args{};
    args.struct_size = sizeof(args);
    args.src = src->data();
    args.weights = weights->data();
    args.bias = bias ? bias->data() : nullptr;
    args.dst = dst->data();
    args.implementation = r.implementation;
    args.implementation_capacity = sizeof(r.implementation);
    return args;
}

ChildOutcome execute_conv(const Plugin& plugin, const InstanceOptions& options, const ConvExecution& e) {
    const convcheck_api& api = plugin.api();
    if (!api.conv_query) return unsupported_outcome("the plugin implements no discrete convolution (conv_query is NULL)");
    const GuardedBuffer* one_shot = plugin.has_conv_plan() ? e.one_shot_dst : nullptr;
    IsolatedExecution x;
    x.buffers = {{"src", e.src, true},
                 {"weights", e.weights, true},
                 {"bias", e.bias, true},
                 {"dst", e.dst, false},
                 {"one-shot dst", one_shot, false},
                 {"dst_prev", e.prior_dst, true}};
    // ABI 1.6: the post-ops' operands, read-only like src, their pointers in the args
    std::vector<const void*> operand_pointers;
    for (std::size_t k = 0; k < e.operands.size(); ++k) {
        x.buffers.push_back({"post-op operand " + std::to_string(k), e.operands[k], true});
        operand_pointers.push_back(e.operands[k] ? e.operands[k]->data() : nullptr);
    }
    static_cast<ExecutionLimits&>(x) = e;
    x.query_only = e.query_only;
    x.query = [&](convcheck_plugin* p, convcheck_support* s) { return api.conv_query(p, &e.desc, s); };
    x.run = [&](Report& r, convcheck_plugin* p) {
        convcheck_conv_args args = conv_args(e.src, e.weights, e.bias, e.dst, r);
        if (e.post_ops) args.post_op_operands = operand_pointers.data();
        if (plugin.has_conv_plan()) return run_conv_plan(r, plugin, p, e, one_shot, args);
        return timed_executes(r, plugin, e.warmups, e.repeats, [&] {
            restore_prior_dst(e, e.dst);
            return api.conv_execute(p, &e.desc, &args);
        });
    };
    ChildOutcome o = execute_isolated(plugin, options, x);
    if (o.kind == ChildOutcome::Kind::ok && one_shot != nullptr && o.prepare_ms)
        if (std::string why = paths_difference(e.desc, *e.dst, *one_shot); !why.empty()) {
            o.kind = ChildOutcome::Kind::paths_differ;
            o.reason = std::move(why);
        }
    return o;
}

}  // namespace convcheck::runner
