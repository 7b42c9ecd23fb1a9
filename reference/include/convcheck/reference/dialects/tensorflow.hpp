// TensorFlow conv (tf.nn.convolution / conv1d / conv2d / conv3d): padding SAME, VALID or EXPLICIT.
//
// TF's own formulas (GetWindowedOutputSize; SPEC-NOTES §2), with K = (k-1)*d + 1 and C division:
//   VALID:    out = (in - K + s) / s
//   EXPLICIT: out = (in + pb + pe - K + s) / s
//   SAME:     out = (in + s - 1) / s = ceil(in/s); t = max(0, (out-1)*s + K - in); pb = t/2, pe = t - pb
// An out of 0 is an empty tensor (EmptyOutput); a negative out is TF's error. Data NHWC (default) or
// NCHW (NWC/NCW, NDHWC/NCDHW by rank); filters always [k...][I][O] (HWIO).
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::tensorflow {

struct ConvAttributes {
    ConvShapes shapes;
    std::vector<std::int64_t> strides;            // length 1, rank or rank+2 (data_format order); empty: 1
    std::vector<std::int64_t> dilations;          // as strides
    std::string padding = "VALID";                // "SAME", "VALID", "EXPLICIT"
    std::vector<std::int64_t> explicit_paddings;  // (before, after) per spatial axis, or per dimension
    std::string data_format;                      // empty: channels last (NHWC for rank 2)
};

DialectResult conv(const ConvAttributes& attributes);

// Text keys: n c o in k, strides, dilations, padding, explicit_paddings, data_format.
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::tensorflow
