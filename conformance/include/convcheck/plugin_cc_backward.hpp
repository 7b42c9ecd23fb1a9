// The C++ side of the CC layer's backward pass (ABI 1.4) for plugin authors, beside plugin_support.hpp:
// the checks of a call's descriptor and buffers, and the two table entries made from a plugin's own
// query and execute behind them (exceptions turned into error values).
#pragma once

#include <string>

#include "convcheck/plugin_support.hpp"

namespace convcheck_plugin_support {

// The descriptor must be a whole 1.0 convcheck_cc_desc; the buffers (args NULL: a query) src, diff_dst
// and diff_src, theta and diff_theta for kernel=net, diff_bias with has_bias.
inline convcheck_error* check_cc_backward_call(const convcheck_cc_desc* desc, const convcheck_cc_backward_args* args) {
    if (!CONVCHECK_HAS_FIELD(desc, convcheck_cc_desc, dtype)) return invalid_argument("cc_desc: NULL or smaller than ABI 1.0's");
    if (args == nullptr) return nullptr;
    const bool net = desc->kernel_kind == CONVCHECK_CC_INTERNAL_NET;
    if (!CONVCHECK_HAS_FIELD(args, convcheck_cc_backward_args, implementation_capacity) || args->src == nullptr ||
        args->diff_dst == nullptr || args->diff_src == nullptr ||
        (net && (args->theta == nullptr || args->diff_theta == nullptr)) || (desc->has_bias && args->diff_bias == nullptr))
        return invalid_argument("cc_backward_execute: src, diff_dst and diff_src (theta and diff_theta with kernel=net, "
                                "diff_bias with has_bias) must be given");
    return nullptr;
}

inline void write_implementation(const convcheck_cc_backward_args* args, const std::string& name) {
    if (!CONVCHECK_HAS_FIELD(args, convcheck_cc_backward_args, implementation_capacity)) return;
    if (args->implementation == nullptr || args->implementation_capacity == 0) return;
    std::snprintf(args->implementation, args->implementation_capacity, "%s", name.c_str());
}

// A plugin's own entries, called after the checks above: answer per case, and compute the gradients.
// Each may throw (PluginError for a code).
using CcBackwardQueryFn = convcheck_error* (*)(convcheck_plugin* plugin, const convcheck_cc_desc& desc,
                                               convcheck_support* out);
using CcBackwardExecuteFn = convcheck_error* (*)(convcheck_plugin* plugin, const convcheck_cc_desc& desc,
                                                 const convcheck_cc_backward_args& args);

template <CcBackwardQueryFn Query>
convcheck_error* cc_backward_query(convcheck_plugin* plugin, const convcheck_cc_desc* desc, convcheck_support* out) {
    return guarded("cc_backward_query", [&]() -> convcheck_error* {
        if (auto* e = check_cc_backward_call(desc, nullptr)) return e;
        return Query(plugin, *desc, out);
    });
}

template <CcBackwardExecuteFn Execute>
convcheck_error* cc_backward_execute(convcheck_plugin* plugin, const convcheck_cc_desc* desc,
                                     const convcheck_cc_backward_args* args) {
    return guarded("cc_backward_execute", [&]() -> convcheck_error* {
        if (auto* e = check_cc_backward_call(desc, args)) return e;
        return Execute(plugin, *desc, *args);
    });
}

// The CC backward pass in the table: cc_backward_query and cc_backward_execute. The plugin claims
// CONVCHECK_OP_CC_BACKWARD in describe.
template <CcBackwardQueryFn Query, CcBackwardExecuteFn Execute>
void add_cc_backward(convcheck_api& a) {
    a.cc_backward_query = cc_backward_query<Query>;
    a.cc_backward_execute = cc_backward_execute<Execute>;
}

}  // namespace convcheck_plugin_support
