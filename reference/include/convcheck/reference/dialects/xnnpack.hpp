// XNNPACK xnn_create_convolution2d_nhwc_*: explicit input_padding_{top,right,bottom,left}, or the
// XNN_FLAG_TENSORFLOW_SAME_PADDING flag.
//
//   flag:     out = divide_round_up(in, s); t = max(0, (out-1)*s + K - in); top = t/2, bottom = t - top
//   explicit: out = doz(pt + in + pb, K) / s + 1  (doz: difference or zero), so a kernel larger than the
//             padded input gives out = 1 (the window overhangs and reads zeros: a larger pads_end)
// Errors at create time: zero kernel, subsampling or dilation; the flag together with any padding.
// 2-D only; data NHWC; weights [O][kH][kW][I/g] (OHWI, which no canonical filter format stores:
// the descriptor says OIX and a reorder is implied).
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::xnnpack {

struct Convolution2dAttributes {
    ConvShapes shapes;  // rank 2; kernel_size = (kernel_height, kernel_width)
    std::int64_t input_padding_top = 0, input_padding_right = 0, input_padding_bottom = 0, input_padding_left = 0;
    std::int64_t subsampling_height = 1, subsampling_width = 1;
    std::int64_t dilation_height = 1, dilation_width = 1;
    std::int64_t groups = 1;
    bool tensorflow_same_padding = false;  // XNN_FLAG_TENSORFLOW_SAME_PADDING
};

DialectResult convolution2d(const Convolution2dAttributes& attributes);
// Text keys: n c o in k (or kernel_height, kernel_width), input_padding_top / _right / _bottom / _left,
// subsampling_height / _width, dilation_height / _width, groups, flags (TENSORFLOW_SAME_PADDING or 0).
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::xnnpack
