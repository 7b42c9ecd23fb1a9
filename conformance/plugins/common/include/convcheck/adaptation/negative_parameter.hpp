// The first negative count or per-axis parameter of a descriptor: what a plugin whose library takes
// them unsigned (XNNPACK's size_t and uint32_t, Arm NN's unsigned int) cannot hand it, so the plugin
// refuses the case itself ("the <name> plugin cannot express ...") instead of letting the value wrap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "convcheck/plugin.h"

namespace convcheck_plugin_support {

struct NegativeParameter {
    std::string name;  // "batch", "in_channels", "out_channels", or e.g. "strides[1]"
    int64_t value = 0;
    bool per_axis = false;  // input_size, kernel_size, strides or dilations of one spatial axis
};

// batch, in_channels, out_channels, then per axis input_size, kernel_size, strides, dilations.
inline std::optional<NegativeParameter> first_negative(const convcheck_conv_desc& d) {
    for (const auto& [name, v] : {std::pair<const char*, int64_t>{"batch", d.batch}, {"in_channels", d.in_channels},
                                  {"out_channels", d.out_channels}})
        if (v < 0) return NegativeParameter{name, v, false};
    for (int a = 0; a < d.rank; ++a)
        for (const auto& [name, v] : {std::pair<const char*, int64_t>{"input_size", d.input_size[a]},
                                      {"kernel_size", d.kernel_size[a]}, {"strides", d.strides[a]},
                                      {"dilations", d.dilations[a]}})
            if (v < 0) return NegativeParameter{std::string(name) + "[" + std::to_string(a) + "]", v, true};
    return std::nullopt;
}

}  // namespace convcheck_plugin_support
