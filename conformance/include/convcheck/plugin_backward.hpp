// The C++ side of the backward passes of discrete convolution (ABI 1.2, docs/passes.md) for plugin
// authors, beside plugin_support.hpp: the buffers a pass reads and writes checked, and add_backward,
// which sends a backward descriptor of one dtype and no extension to the plugin's own query and
// execute and everything else to add_conv's entries.
#pragma once

#include <string>

#include "convcheck/plugin_support.hpp"

namespace convcheck_plugin_support {

// A plugin's backward pass: computes the gradients of `args` (diff_dst in dst; checked by
// add_backward: the pass's inputs and outputs are non-NULL) for a backward descriptor of one dtype
// and no extension. Throws (PluginError for a code) when it cannot.
using BackwardExecuteFn = convcheck_error* (*)(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                               const convcheck_conv_args& args);

// The buffers a backward pass reads and writes (plugin.h, convcheck_conv_args.diff_src).
inline convcheck_error* check_backward_args(const convcheck_conv_desc& d, const convcheck_conv_args* args) {
    if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, diff_bias) || args->dst == nullptr)
        return invalid_argument("conv_args: a backward pass needs ABI 1.2's diff buffers and diff_dst in dst");
    if (prop_kind(d) == CONVCHECK_BACKWARD_DATA && (args->weights == nullptr || args->diff_src == nullptr))
        return invalid_argument("conv_args: backward data needs weights and diff_src");
    if (prop_kind(d) == CONVCHECK_BACKWARD_WEIGHTS &&
        (args->src == nullptr || args->diff_weights == nullptr || (d.has_bias && args->diff_bias == nullptr)))
        return invalid_argument("conv_args: backward weights needs src and diff_weights, and diff_bias with bias");
    return nullptr;
}

// "" for a pass add_backward's plugins compute (backward data or weights, one dtype, no extension).
inline std::string beyond_backward_one_dtype(const convcheck_conv_desc& d) {
    if (const int32_t kind = prop_kind(d); kind != CONVCHECK_BACKWARD_DATA && kind != CONVCHECK_BACKWARD_WEIGHTS)
        return "prop_kind " + std::to_string(kind) + " is no pass this plugin knows";
    return beyond_one_dtype(d);
}

template <PrepareFn Prepare, QueryFn BackwardQuery>
convcheck_error* query_any_pass(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (!CONVCHECK_HAS_FIELD(desc, convcheck_conv_desc, filter_format) || prop_kind(*desc) == CONVCHECK_FORWARD)
        return gated_query<Prepare>(plugin, desc, out);
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (const std::string why = beyond_backward_one_dtype(*desc); !why.empty()) return unsupported(out, why);
        return BackwardQuery(plugin, desc, out);
    });
}

template <PrepareFn Prepare, BackwardExecuteFn BackwardExecute>
convcheck_error* execute_any_pass(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (!CONVCHECK_HAS_FIELD(desc, convcheck_conv_desc, filter_format) || prop_kind(*desc) == CONVCHECK_FORWARD)
        return conv_execute_once<Prepare>(plugin, desc, args);
    return guarded("conv_execute", [&]() -> convcheck_error* {
        if (const std::string why = beyond_backward_one_dtype(*desc); !why.empty())
            return make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
        if (auto* e = check_backward_args(*desc, args)) return e;
        return BackwardExecute(plugin, *desc, *args);
    });
}

// The backward passes beside add_conv's forward (call add_conv first): conv_query and the one-shot
// conv_execute send a backward descriptor to the plugin's own entries; the plan entries stay forward
// only (a backward pass runs through conv_execute). The plugin claims the passes in describe
// (convcheck_plugin_info.prop_kinds) and answers per case in BackwardQuery.
template <PrepareFn Prepare, QueryFn BackwardQuery, BackwardExecuteFn BackwardExecute>
void add_backward(convcheck_api& a) {
    a.conv_query = query_any_pass<Prepare, BackwardQuery>;
    a.conv_execute = execute_any_pass<Prepare, BackwardExecute>;
}

}  // namespace convcheck_plugin_support
