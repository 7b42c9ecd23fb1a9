// For plugins on plugin_support.hpp that take a float convolution's scales (ABI 1.7, convcheck/plugin/scales.h):
// the extension of a descriptor, one output channel's weights scale, and add_scales, which lets add_conv's gate pass
// a case whose chain begins with the scales extension, once the plugin accepts its scales (the rest of the chain and
// the descriptor then pass the plugin's other gates as they would without it).
#pragma once

#include <string>

#include "convcheck/plugin_support.hpp"

namespace convcheck_plugin_support {

// The scales extension first on the descriptor's chain (where the runner puts it), or NULL.
inline const convcheck_scales* scales_of(const convcheck_conv_desc& d) {
    const convcheck_extension* e = extensions(d);
    if (e == nullptr || e->tag != CONVCHECK_EXTENSION_SCALES || e->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_scales, dst_scale))
        return nullptr;
    return reinterpret_cast<const convcheck_scales*>(e);
}

// Output channel oc's weights scale.
inline float weights_scale(const convcheck_scales& s, int64_t oc) {
    return s.weights_scale_count == 1 ? s.weights_scales[0] : s.weights_scales[oc];
}

// The plugin's verdict on a case's scales: "" to take them, else why it declines (in its library's words).
using ScalesAccepts = std::string (*)(const convcheck_conv_desc& desc, const convcheck_scales& scales);
template <typename Tag>
inline ScalesAccepts scales_accepts = nullptr;
template <typename Tag>
std::string scales_gate_for(const convcheck_conv_desc& desc) {
    const convcheck_scales* s = scales_of(desc);
    if (s == nullptr) return "the scales extension is smaller than ABI 1.7's";
    return scales_accepts<Tag>(desc, *s);
}

// Call before add_conv<prepare>: the plugin's query and prepare then receive cases with scales that `accepts` takes.
template <PrepareFn Prepare>
void add_scales(ScalesAccepts accepts) {
    scales_accepts<PrepareTag<Prepare>> = accepts;
    scales_gate<PrepareTag<Prepare>> = scales_gate_for<PrepareTag<Prepare>>;
}

}  // namespace convcheck_plugin_support
