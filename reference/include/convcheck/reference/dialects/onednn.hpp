// oneDNN: the convolution primitive API and the oneDNN Graph Convolution op (seed 002).
//
// Primitive (dnnl_convolution_forward_primitive_desc_create / conv_desc_init):
//   dilates are 0-BASED (0 = dense): ker_range = 1 + (k-1)*(dilate+1)
//   the user gives dst; oneDNN accepts it when dilate >= 0, padding_l >= 0, padding_r + stride > 0 and
//   dst == (src - ker_range + padding_l + padding_r) / stride + 1   (C division, truncating)
//   so padding_r may be negative (it crops), and where the numerator is negative but above -stride
//   the truncation gives dst = 1 with a window that overhangs the padded input (it reads zeros).
// Graph (seed 002 and the Graph library's infer_auto_pad, src/graph/interface/shape_infer.cpp): auto_pad
//   None (or NONE) / SAME_UPPER / SAME_LOWER / VALID; dilations 1-based; data_format NXC (default) / NCX,
//   weights_format XIO (default) / OIX; SAME_UPPER pb = t/2, SAME_LOWER pb = (t+1)/2 (C division), and
//   dst = (in + pb + pe - K)/s + 1 (C division, as the primitive):
//   - v3.2 and later ("onednn_graph"; commit 4029cdbda1, April 2023): K = (k-1)*d + 1,
//     t = max(0, K - (in % s == 0 ? s : in % s)), every dilation accepted;
//   - before v3.2 ("onednn_graph@<3.2": v3.0, v3.1 and the standalone Graph library):
//     t = (ceil(in/s)-1)*s + k - in, NOT clamped (a negative pads_end crops), and SAME_* with a
//     dilation other than 1 is unimplemented.
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::onednn {

struct PrimitiveAttributes {
    ConvShapes shapes;
    std::vector<std::int64_t> strides;    // rank values; empty: 1
    std::vector<std::int64_t> dilates;    // 0-based, rank values; empty: 0
    std::vector<std::int64_t> padding_l;  // rank values; empty: 0
    std::vector<std::int64_t> padding_r;  // rank values; empty: 0
    std::int64_t groups = 1;
    std::string data_format = "NCX";      // src/dst memory format: NCX (nchw...) or NXC (nhwc...)
    std::string weights_format = "OIX";   // OIX (oihw...) or XIO (hwio...)
};
DialectResult convolution_primitive(const PrimitiveAttributes& attributes);
// Text keys: n c o in k, strides, dilates, padding_l, padding_r, groups, data_format, weights_format.
DialectResult read_primitive(const AttributeSet& attributes);
std::optional<AttributeSet> spell_primitive(const Request& request, std::string* why_not);

struct GraphAttributes {
    ConvShapes shapes;
    std::vector<std::int64_t> strides, pads_begin, pads_end, dilations;  // required (seed 002)
    std::string auto_pad = "None";
    std::int64_t groups = 1;
    std::string data_format = "NXC";
    std::string weights_format = "XIO";
    bool before_v3_2 = false;  // the reading of oneDNN v3.0 / v3.1 (see above)
};
DialectResult graph_convolution(const GraphAttributes& attributes);
// Text keys: n c o in k, strides, pads_begin, pads_end, dilations, auto_pad, groups, data_format, weights_format.
DialectResult read_graph(const AttributeSet& attributes);
DialectResult read_graph_before_v3_2(const AttributeSet& attributes);  // "onednn_graph@<3.2"
std::optional<AttributeSet> spell_graph(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::onednn
