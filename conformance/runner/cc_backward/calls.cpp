// The CC backward pass's plugin entry points in the isolated child (ABI 1.4, operation_calls.hpp):
// cc_backward_query, cc_backward_execute.
#include "convcheck/runner/operation_calls.hpp"

namespace convcheck::runner {

ChildOutcome execute_cc_backward(const Plugin& plugin, const InstanceOptions& options, const CcBackwardExecution& e) {
    const convcheck_api& api = plugin.api();
    if (!api.cc_backward_query || !api.cc_backward_execute)
        return unsupported_outcome("the plugin implements no CC backward pass (cc_backward_query is NULL: ABI 1.4)");
    IsolatedExecution x;
    x.buffers = {{"src", e.src, true},           {"theta", e.theta, true},           {"diff_dst", e.diff_dst, true},
                 {"diff_src", e.diff_src, false}, {"diff_theta", e.diff_theta, false}, {"diff_bias", e.diff_bias, false}};
    static_cast<ExecutionLimits&>(x) = e;
    x.query = [&](convcheck_plugin* p, convcheck_support* s) { return api.cc_backward_query(p, &e.desc, s); };
    x.run = [&](child::Report& r, convcheck_plugin* p) {
        auto data = [](const GuardedBuffer* b) -> void* { return b ? b->data() : nullptr; };
        convcheck_cc_backward_args args{};
        args.struct_size = sizeof(args);
        args.src = data(e.src);
        args.theta = static_cast<const float*>(data(e.theta));
        args.diff_dst = data(e.diff_dst);
        args.diff_src = data(e.diff_src);
        args.diff_theta = static_cast<float*>(data(e.diff_theta));
        args.diff_bias = data(e.diff_bias);
        args.implementation = r.implementation;
        args.implementation_capacity = sizeof(r.implementation);
        return timed_executes(r, plugin, e.warmups, e.repeats,
                              [&] { return api.cc_backward_execute(p, &e.desc, &args); });
    };
    return execute_isolated(plugin, options, x);
}

}  // namespace convcheck::runner
