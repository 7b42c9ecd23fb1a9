// TensorFlow conv, two entry points with their own rules:
//   - "tensorflow": the Conv2D / Conv3D ops (tf.nn.conv2d, tf.nn.conv1d, tf.nn.conv3d, tf.raw_ops.Conv2D /
//     Conv3D): padding SAME, VALID or EXPLICIT (explicit_paddings); stride > 1 together with dilation > 1
//     is defined by the ops' shape function (common_shape_fns.cc, Conv2DShapeImpl): in=9, k=3, s=2, d=2,
//     SAME gives 5 with pads 2/2.
//   - "tf_convolution": tf.nn.convolution and the Keras Conv layers, whose Python wrapper
//     (python/ops/nn_ops.py, _get_strides_and_dilation_rate) refuses stride > 1 together with
//     dilation > 1 ("strides > 1 not supported in conjunction with dilation_rate > 1") and takes
//     padding SAME or VALID only; otherwise the same formulas.
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

enum class EntryPoint { conv_op, convolution_wrapper };

struct ConvAttributes {
    EntryPoint entry_point = EntryPoint::conv_op;
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
// tf.nn.convolution / Keras ("tf_convolution"): the same keys but explicit_paddings.
DialectResult read_convolution(const AttributeSet& attributes);
std::optional<AttributeSet> spell_convolution(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::tensorflow
