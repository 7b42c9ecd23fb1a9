// Transposed convolution's plugin entry points in the isolated child (operation_calls.hpp):
// conv_transposed_query, then conv_transposed_execute with src, weights, bias and dst (ABI 1.3).
#include "convcheck/runner/operation_calls.hpp"

namespace convcheck::runner {

ChildOutcome execute_conv_transposed(const Plugin& plugin, const InstanceOptions& options,
                                     const ConvTransposedExecution& e) {
    const convcheck_api& api = plugin.api();
    if (!api.conv_transposed_query)
        return unsupported_outcome(
            "the plugin implements no transposed convolution (conv_transposed_query is NULL: ABI 1.3)");
    IsolatedExecution x;
    x.buffers = {{"src", e.src, true}, {"weights", e.weights, true}, {"bias", e.bias, true}, {"dst", e.dst, false}};
    static_cast<ExecutionLimits&>(x) = e;
    x.query = [&](convcheck_plugin* p, convcheck_support* s) { return api.conv_transposed_query(p, &e.desc, s); };
    x.run = [&](child::Report& r, convcheck_plugin* p) {
        const convcheck_conv_args args = conv_args(e.src, e.weights, e.bias, e.dst, r);
        return timed_executes(r, plugin, e.warmups, e.repeats,
                              [&] { return api.conv_transposed_execute(p, &e.desc, &args); });
    };
    return execute_isolated(plugin, options, x);
}

}  // namespace convcheck::runner
