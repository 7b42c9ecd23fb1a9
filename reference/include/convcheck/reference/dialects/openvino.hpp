// OpenVINO Convolution-1 (seed 001): strides, pads_begin, pads_end, dilations, auto_pad
// (explicit / same_upper / same_lower / valid), groups, data_format, filter_format.
//
//   explicit, valid: out = floor((pb + pe + in - d(k-1) - 1) / s) + 1           (valid: pads 0)
//   same_*:          out = ceil(in / s) for every stride and dilation;
//                    t = max(0, (out-1)*s + K - in); same_upper pb = floor(t/2), same_lower pb = t - floor(t/2)
// Errors (OpenVINO's shape inference): zero stride or dilation; a dilated kernel larger than the
// padded input. The seed lists data_format NXC|NCX (default NXC) and filter_format XIO|OIX (default
// XIO) and marks strides, pads_begin, pads_end and dilations as required: read literally.
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::openvino {

struct ConvolutionAttributes {
    ConvShapes shapes;
    std::vector<std::int64_t> strides, pads_begin, pads_end, dilations;  // required, rank values each
    std::string auto_pad = "explicit";  // "explicit" (also "none", "notset"), "same_upper", "same_lower", "valid"
    std::int64_t groups = 1;
    std::string data_format = "NXC";    // seed default
    std::string filter_format = "XIO";  // seed default
};

DialectResult convolution(const ConvolutionAttributes& attributes);
// Text keys: n c o in k, strides, pads_begin, pads_end, dilations, auto_pad, groups, data_format, filter_format.
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::openvino
