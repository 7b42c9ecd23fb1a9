#include "convcheck/runner/abi_claims.hpp"

#include "convcheck/abi/abi_descriptor.hpp"

namespace convcheck::runner {

namespace {
const char* prop_kind_name(int32_t kind) {
    switch (kind) {
        case CONVCHECK_FORWARD: return "forward";
        case CONVCHECK_BACKWARD_DATA: return "backward_data";
        case CONVCHECK_BACKWARD_WEIGHTS: return "backward_weights";
    }
    return "unknown";
}
}  // namespace

std::string unclaimed_pass(const PluginInfo& info, int32_t prop_kind) {
    if (prop_kind < 0 || prop_kind > 31 || !(info.prop_kinds & CONVCHECK_BIT(prop_kind)))
        return "the plugin does not claim prop_kind " + std::string(prop_kind_name(prop_kind)) + " (" +
               std::to_string(prop_kind) + "; convcheck_plugin_info.prop_kinds, default forward only)";
    return "";
}

std::string unclaimed_abi(const PluginInfo& info, const convcheck_conv_desc& d) {
    if (d.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next)) return "";  // the defaults: all claimed
    if (std::string why = unclaimed_pass(info, d.prop_kind); !why.empty()) return why;
    const bool mixed = d.src_dtype != d.dtype || d.weights_dtype != d.dtype || d.bias_dtype != d.dtype ||
                       d.dst_dtype != d.dtype;
    if (mixed && !info.mixed_dtypes)
        return "the plugin does not claim mixed_dtypes (src " + abi_dtype_name(d.src_dtype) + ", weights " +
               abi_dtype_name(d.weights_dtype) + ", bias " + abi_dtype_name(d.bias_dtype) + ", dst " +
               abi_dtype_name(d.dst_dtype) + "): it reads one dtype for every tensor";
    for (const int32_t t : {d.src_dtype, d.weights_dtype, d.bias_dtype, d.dst_dtype})
        if (t < 0 || t > 31 || !(info.dtypes & CONVCHECK_BIT(t)))
            return "the plugin does not claim dtype " + abi_dtype_name(t) + " (of one of the tensors)";
    if (d.next != nullptr && (info.abi_major == 1 && info.abi_minor < 2))
        return "the descriptor carries an extension chain and the plugin was built against ABI " +
               std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor) +
               ", which cannot see it (extensions are 1.2)";
    return "";
}

}  // namespace convcheck::runner
