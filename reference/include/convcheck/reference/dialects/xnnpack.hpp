// XNNPACK xnn_create_convolution2d_nhwc_*: explicit input_padding_{top,right,bottom,left}, or the
// XNN_FLAG_TENSORFLOW_SAME_PADDING flag.
//
//   flag:     out = divide_round_up(in, s); t = max(0, (out-1)*s + K - in); top = t/2, bottom = t - top
//   explicit: out = doz(pt + in + pb, K) / s + 1  (doz: difference or zero); a padded input smaller than
//             the effective kernel K is refused at reshape time ("xnnpack": today's XNNPACK,
//             src/operators/convolution-nhwc.c since commit a07bc8f71b). The Debian snapshot
//             0.0~git20220216 ("xnnpack@git20220216", what the bundled plugin runs) had no such check:
//             out = 1 there, the window overhanging and reading zeros (read as a larger pads_end).
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
    bool debian_snapshot_2022 = false;     // read as Debian's 0.0~git20220216 (no reshape check)
};

DialectResult convolution2d(const Convolution2dAttributes& attributes);
// Text keys: n c o in k (or kernel_height, kernel_width), input_padding_top / _right / _bottom / _left,
// subsampling_height / _width, dilation_height / _width, groups, flags (TENSORFLOW_SAME_PADDING or 0).
DialectResult read(const AttributeSet& attributes);
DialectResult read_debian_snapshot_2022(const AttributeSet& attributes);  // "xnnpack@git20220216"
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::xnnpack
