// The backward passes' plugin entry points in the isolated child (operation_calls.hpp): conv_query
// with the pass in desc.prop_kind, then conv_execute with the pass's inputs and outputs.
#include "convcheck/runner/operation_calls.hpp"

namespace convcheck::runner {

ChildOutcome execute_conv_backward(const Plugin& plugin, const InstanceOptions& options, const ConvBackwardExecution& e) {
    const convcheck_api& api = plugin.api();
    if (!api.conv_query || !api.conv_execute)
        return unsupported_outcome("the plugin implements no discrete convolution (conv_query or conv_execute is NULL)");
    IsolatedExecution x;
    x.buffers = {{"src", e.src, true},          {"weights", e.weights, true},
                 {"diff_dst", e.diff_dst, true}, {"diff_src", e.diff_src, false},
                 {"diff_weights", e.diff_weights, false}, {"diff_bias", e.diff_bias, false}};
    static_cast<ExecutionLimits&>(x) = e;
    x.query = [&](convcheck_plugin* p, convcheck_support* s) { return api.conv_query(p, &e.desc, s); };
    x.run = [&](child::Report& r, convcheck_plugin* p) {
        convcheck_conv_args args{};
        args.struct_size = sizeof(args);
        auto data = [](const GuardedBuffer* b) -> void* { return b ? b->data() : nullptr; };
        args.src = data(e.src);
        args.weights = data(e.weights);
        args.dst = data(e.diff_dst);  // plugin.h: diff_dst arrives in dst, read-only
        args.diff_src = data(e.diff_src);
        args.diff_weights = data(e.diff_weights);
        args.diff_bias = data(e.diff_bias);
        args.implementation = r.implementation;
        args.implementation_capacity = sizeof(r.implementation);
        return timed_executes(r, plugin, e.warmups, e.repeats, [&] { return api.conv_execute(p, &e.desc, &args); });
    };
    return execute_isolated(plugin, options, x);
}

}  // namespace convcheck::runner
