// A descriptor's tensor dims and geometry in oneDNN's words, for the oneDNN timers (forward and backward):
// grouped weights as {G, O/G, I/G, k...}, 0-based dilations.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::bench {

struct OnednnDims {
    dnnl::memory::dims src, weights, bias, dst, strides, dilates, pad_l, pad_r;
};

inline OnednnDims onednn_dims(const ConvDescriptor& d) {
    const auto axes = [&](const SpatialDims& v, std::int64_t minus) {
        dnnl::memory::dims out;
        for (int a = 0; a < d.rank; ++a) out.push_back(v[a] - minus);
        return out;
    };
    OnednnDims p;
    p.src = {d.batch, d.in_channels};
    p.dst = {d.batch, d.out_channels};
    if (d.groups == 1)
        p.weights = {d.out_channels, d.in_channels};
    else
        p.weights = {d.groups, d.out_channels_per_group(), d.in_channels_per_group()};
    for (int a = 0; a < d.rank; ++a) {
        p.src.push_back(d.input_size[a]);
        p.dst.push_back(d.output_size(a));
        p.weights.push_back(d.kernel_size[a]);
    }
    p.bias = {d.out_channels};
    p.strides = axes(d.strides, 0);
    p.dilates = axes(d.dilations, 1);  // oneDNN's dilation is 0-based
    p.pad_l = axes(d.pads_begin, 0);
    p.pad_r = axes(d.pads_end, 0);
    return p;
}

}  // namespace convcheck::bench
