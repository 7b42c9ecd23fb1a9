// For plugins on plugin_support.hpp that take a float convolution's scales (ABI 1.7, convcheck/plugin/scales.h):
// the extension of a descriptor, one output channel's weights scale, and add_scales, which lets add_conv's gate pass
// a case whose chain begins with the scales extension, once the plugin accepts its scales (the rest of the chain and
// the descriptor then pass the plugin's other gates as they would without it).
#pragma once

#include <string>
#include <vector>

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

// desc with its chain after the scales extension (the post-ops, say), or desc itself when the chain has no scales.
inline convcheck_conv_desc after_scales(const convcheck_conv_desc& desc) {
    convcheck_conv_desc rest = desc;
    if (const convcheck_extension* e = extensions(desc); e != nullptr && e->tag == CONVCHECK_EXTENSION_SCALES)
        rest.next = e->next;
    return rest;
}

// A plan's own copy of a case's scales (the runner's extension lives as long as the descriptor it was given with),
// or none: get() is NULL then.
class ScalesCopy {
public:
    explicit ScalesCopy(const convcheck_scales* given) {
        if (given == nullptr) return;
        const int64_t count = given->weights_scale_count;
        weights_.assign(given->weights_scales, given->weights_scales + count);
        copy_ = *given;
        copy_.header.next = nullptr;
        copy_.weights_scales = weights_.data();
        present_ = true;
    }
    ScalesCopy(const ScalesCopy&) = delete;
    ScalesCopy& operator=(const ScalesCopy&) = delete;
    const convcheck_scales* get() const { return present_ ? &copy_ : nullptr; }

private:
    std::vector<float> weights_;
    convcheck_scales copy_{};
    bool present_ = false;
};

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
