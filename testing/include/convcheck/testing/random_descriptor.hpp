// RapidCheck generators of valid canonical descriptors, for every test suite that needs them.
// Sizes stay small so that the naive reference runs in microseconds.
#pragma once

#include <rapidcheck.h>

#include <algorithm>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::testgen {

struct DescriptorLimits {
    int min_rank = 1, max_rank = 3;
    std::int64_t max_batch = 3, max_groups = 4, max_channels_per_group = 4;
    std::int64_t max_kernel = 5, max_dilation = 3, max_stride = 3;
    std::int64_t min_pad = -2, max_pad = 3, max_extra_input = 7;
    bool any_dtype = true, any_format = true, negative_pads = true;
};

inline rc::Gen<ConvDescriptor> valid_descriptor(DescriptorLimits lim = {}) {
    return rc::gen::exec([lim] {
        ConvDescriptor d;
        d.rank = *rc::gen::inRange(lim.min_rank, lim.max_rank + 1);
        d.batch = *rc::gen::inRange<std::int64_t>(1, lim.max_batch + 1);
        d.groups = *rc::gen::inRange<std::int64_t>(1, lim.max_groups + 1);
        d.in_channels = d.groups * *rc::gen::inRange<std::int64_t>(1, lim.max_channels_per_group + 1);
        d.out_channels = d.groups * *rc::gen::inRange<std::int64_t>(1, lim.max_channels_per_group + 1);
        const std::int64_t min_pad = lim.negative_pads ? lim.min_pad : 0;
        for (int a = 0; a < d.rank; ++a) {
            d.kernel_size[a] = *rc::gen::inRange<std::int64_t>(1, lim.max_kernel + 1);
            d.dilations[a] = *rc::gen::inRange<std::int64_t>(1, lim.max_dilation + 1);
            d.strides[a] = *rc::gen::inRange<std::int64_t>(1, lim.max_stride + 1);
            d.pads_begin[a] = *rc::gen::inRange<std::int64_t>(min_pad, lim.max_pad + 1);
            d.pads_end[a] = *rc::gen::inRange<std::int64_t>(min_pad, lim.max_pad + 1);
            // the smallest input that leaves a non-empty output, plus some
            const std::int64_t least = std::max<std::int64_t>(1, d.dilated_kernel(a) - d.pads_begin[a] - d.pads_end[a]);
            d.input_size[a] = least + *rc::gen::inRange<std::int64_t>(0, lim.max_extra_input + 1);
        }
        d.has_bias = *rc::gen::arbitrary<bool>();
        if (lim.any_dtype) d.dtype = *rc::gen::element(DataType::f32, DataType::f16, DataType::bf16);
        if (lim.any_format) {
            d.data_format = *rc::gen::element(DataFormat::ncx, DataFormat::nxc);
            d.filter_format = *rc::gen::element(FilterFormat::oix, FilterFormat::xio);
        }
        return d;
    });
}

// A valid transposed convolution (transposed_descriptor.hpp) in the same limits: pads may be negative,
// output_padding runs up to stride + dilation - 1 (past PyTorch's "smaller than stride or dilation":
// the canonical op takes any output_padding >= 0; frameworks' limits are their dialects').
inline rc::Gen<TransposedDescriptor> valid_transposed_descriptor(DescriptorLimits lim = {}) {
    return rc::gen::exec([lim] {
        TransposedDescriptor t;
        t.rank = *rc::gen::inRange(lim.min_rank, lim.max_rank + 1);
        t.batch = *rc::gen::inRange<std::int64_t>(1, lim.max_batch + 1);
        t.groups = *rc::gen::inRange<std::int64_t>(1, lim.max_groups + 1);
        t.in_channels = t.groups * *rc::gen::inRange<std::int64_t>(1, lim.max_channels_per_group + 1);
        t.out_channels = t.groups * *rc::gen::inRange<std::int64_t>(1, lim.max_channels_per_group + 1);
        const std::int64_t min_pad = lim.negative_pads ? lim.min_pad : 0;
        for (int a = 0; a < t.rank; ++a) {
            t.input_size[a] = *rc::gen::inRange<std::int64_t>(1, lim.max_extra_input + 1);
            t.kernel_size[a] = *rc::gen::inRange<std::int64_t>(1, lim.max_kernel + 1);
            t.dilations[a] = *rc::gen::inRange<std::int64_t>(1, lim.max_dilation + 1);
            t.strides[a] = *rc::gen::inRange<std::int64_t>(1, lim.max_stride + 1);
            t.pads_begin[a] = *rc::gen::inRange<std::int64_t>(min_pad, lim.max_pad + 1);
            t.pads_end[a] = *rc::gen::inRange<std::int64_t>(min_pad, lim.max_pad + 1);
            t.output_padding[a] = *rc::gen::inRange<std::int64_t>(0, t.strides[a] + t.dilations[a]);
            // pads larger than the output they crop: give the excess back on the end
            if (t.output_size(a) < 1) t.pads_end[a] -= 1 - t.output_size(a);
        }
        t.has_bias = *rc::gen::arbitrary<bool>();
        if (lim.any_dtype) t.dtype = *rc::gen::element(DataType::f32, DataType::f16, DataType::bf16);
        if (lim.any_format) {
            t.data_format = *rc::gen::element(DataFormat::ncx, DataFormat::nxc);
            t.filter_format = *rc::gen::element(FilterFormat::oix, FilterFormat::xio);
        }
        return t;
    });
}

}  // namespace convcheck::testgen
