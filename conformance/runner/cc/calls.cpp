// CC's plugin entry points in the isolated child: cc_query, cc_execute (operation_calls.hpp).
#include "convcheck/runner/operation_calls.hpp"

namespace convcheck::runner {

ChildOutcome execute_cc(const Plugin& plugin, const InstanceOptions& options, const CcExecution& e) {
    const convcheck_api& api = plugin.api();
    if (!api.cc_query) return unsupported_outcome("the plugin implements no continuous convolution (cc_query is NULL)");
    IsolatedExecution x;
    x.buffers = {{"src", e.src, true}, {"theta", e.theta, true}, {"bias", e.bias, true}, {"dst", e.dst, false}};
    static_cast<ExecutionLimits&>(x) = e;
    x.query = [&](convcheck_plugin* p, convcheck_support* s) { return api.cc_query(p, &e.desc, s); };
    x.run = [&](child::Report& r, convcheck_plugin* p) {
        convcheck_cc_args args{};
        args.struct_size = sizeof(args);
        args.src = e.src->data();
        args.theta = e.theta ? static_cast<const float*>(e.theta->data()) : nullptr;
        args.bias = e.bias ? e.bias->data() : nullptr;
        args.dst = e.dst->data();
        args.implementation = r.implementation;
        args.implementation_capacity = sizeof(r.implementation);
        return timed_executes(r, plugin, e.warmups, e.repeats, [&] { return api.cc_execute(p, &e.desc, &args); });
    };
    return execute_isolated(plugin, options, x);
}

}  // namespace convcheck::runner
