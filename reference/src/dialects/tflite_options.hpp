// TFLite CONV_2D / DEPTHWISE_CONV_2D: the options and the geometry the float and the int8 readings share
// (tensorflow/lite/c/builtin_op_data.h, TfLiteConvParams / TfLiteDepthwiseConvParams; kernels/padding.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace convcheck::reference::dialects::tflite::detail {

struct ConvOptions {
    std::string op;  // CONV_2D or DEPTHWISE_CONV_2D
    bool depthwise = false;
    bool same = false;  // TfLitePadding: SAME (true) or VALID
    std::vector<std::int64_t> stride, dilation;  // stride_h, stride_w; dilation_h_factor, dilation_w_factor
};

// Reads op, the shapes (n c o in k; DEPTHWISE: depth_multiplier instead of o), padding, stride_h/w and
// dilation_h/w_factor, refusing what TFLite refuses or cannot say: a rank other than 2, a depth_multiplier or o
// that disagree, a stride, dilation or filter size below 1. *shapes gets DEPTHWISE's o = c * depth_multiplier.
ConvOptions read_conv_options(dialects::detail::Reader& reader, const AttributeSet& attributes, ConvShapes* shapes);

// ComputeOutSize and ComputePaddingWithOffset per axis (C division; the kernel's pad is total_padding / 2 at the
// beginning, the rest ends the axis); an output size below 1 is refused.
struct Geometry {
    dialects::detail::AxisAttributes axes;
    std::vector<std::int64_t> output_size;
};
Geometry geometry(const ConvOptions& options, const ConvShapes& shapes);

}  // namespace convcheck::reference::dialects::tflite::detail
