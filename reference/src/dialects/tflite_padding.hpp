// TFLite's output size and padding of one spatial axis, shared by the float and the int8 CONV_2D readings.
#pragma once

#include <cstdint>
#include <string>

#include "common.hpp"

namespace convcheck::reference::dialects::tflite::detail {

struct Axis {
    std::int64_t out = 0, pad_begin = 0, pad_end = 0;
};

// ComputeOutSize and ComputePaddingWithOffset (tensorflow/lite/kernels/padding.h): C division (truncation),
// the kernel's pad is total_padding / 2 at the beginning; the rest (total_padding - total_padding / 2) ends the
// axis. An output size below 1 is refused.
inline Axis axis(bool same, std::int64_t image_size, std::int64_t filter_size, std::int64_t stride,
                 std::int64_t dilation_rate, const std::string& name) {
    const std::int64_t effective_filter_size = (filter_size - 1) * dilation_rate + 1;
    Axis a;
    a.out = same ? (image_size + stride - 1) / stride : (image_size + stride - effective_filter_size) / stride;
    if (a.out < 1)
        dialects::detail::refuse_ours(
            "k", std::to_string(filter_size),
            std::string("ComputeOutSize(") + (same ? "SAME" : "VALID") + ") gives " + name + " output size " +
                std::to_string(a.out) + " = (image_size + stride - effective_filter_size) / stride: below 1");
    std::int64_t total_padding = (a.out - 1) * stride + effective_filter_size - image_size;
    total_padding = total_padding > 0 ? total_padding : 0;
    a.pad_begin = total_padding / 2;
    a.pad_end = total_padding - a.pad_begin;
    return a;
}

}  // namespace convcheck::reference::dialects::tflite::detail
