// The C++ side of transposed convolution (ABI 1.3) for plugin authors, beside plugin_support.hpp:
// the checks of a call's descriptor and buffers, and the two table entries made from a plugin's own
// query and execute behind them (exceptions turned into error values, an extension declined).
#pragma once

#include <string>

#include "convcheck/plugin_support.hpp"

namespace convcheck_plugin_support {

// The descriptor must be a whole 1.3 convcheck_conv_transposed_desc; the buffers (args NULL: a query)
// src, weights and dst, and bias when has_bias.
inline convcheck_error* check_transposed_call(const convcheck_conv_transposed_desc* desc, const convcheck_conv_args* args) {
    if (!CONVCHECK_HAS_FIELD(desc, convcheck_conv_transposed_desc, next))
        return invalid_argument("conv_transposed_desc: NULL or smaller than ABI 1.3's");
    if (args == nullptr) return nullptr;
    if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, implementation_capacity) || args->src == nullptr ||
        args->weights == nullptr || args->dst == nullptr || (desc->has_bias && args->bias == nullptr))
        return invalid_argument("conv_transposed_execute: src, weights and dst (and bias with has_bias) must be given");
    return nullptr;
}

// A plugin's own entries, called after the checks above (and with no extension chain): answer per case,
// and compute dst. Each may throw (PluginError for a code).
using TransposedQueryFn = convcheck_error* (*)(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& desc,
                                               convcheck_support* out);
using TransposedExecuteFn = convcheck_error* (*)(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& desc,
                                                 const convcheck_conv_args& args);

template <TransposedQueryFn Query>
convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                  convcheck_support* out) {
    return guarded("conv_transposed_query", [&]() -> convcheck_error* {
        if (auto* e = check_transposed_call(desc, nullptr)) return e;
        if (desc->next != nullptr)  // plugin.h: an unknown extension declines the case
            return unsupported(out, "extension tag " + std::to_string(desc->next->tag) + " is unknown to this plugin");
        return Query(plugin, *desc, out);
    });
}

template <TransposedExecuteFn Execute>
convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                    const convcheck_conv_args* args) {
    return guarded("conv_transposed_execute", [&]() -> convcheck_error* {
        if (auto* e = check_transposed_call(desc, args)) return e;
        if (desc->next != nullptr)
            return make_error("extension tag " + std::to_string(desc->next->tag) + " is unknown to this plugin",
                              CONVCHECK_ERROR_UNIMPLEMENTED);
        return Execute(plugin, *desc, *args);
    });
}

// Transposed convolution in the table: conv_transposed_query and conv_transposed_execute. The plugin
// claims CONVCHECK_OP_CONV_TRANSPOSED in describe.
template <TransposedQueryFn Query, TransposedExecuteFn Execute>
void add_conv_transposed(convcheck_api& a) {
    a.conv_transposed_query = transposed_query<Query>;
    a.conv_transposed_execute = transposed_execute<Execute>;
}

}  // namespace convcheck_plugin_support
