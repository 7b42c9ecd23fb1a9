// Transposed-convolution dialects: each framework's transposed convolution read literally into the
// canonical TransposedDescriptor (core/include/convcheck/core/transposed_descriptor.hpp), or into that framework's own error.
// The text API is the forward dialects' (dialect.hpp: key=value attributes, shape keys n c o in k):
// c is the transposed op's input channels, o its output channels, in its input spatial sizes.
//
//   pytorch_transpose   PyTorch nn.ConvTranspose{1,2,3}d / F.conv_transpose{1,2,3}d (pytorch_transposed.cpp)
//   onnx_transpose      ONNX ConvTranspose (onnx_transposed.cpp)
//   tosa_transpose      TOSA TRANSPOSE_CONV2D (tosa_transposed.cpp)
//   onednn_deconvolution  oneDNN deconvolution primitive, 0-based dilates (onednn_deconvolution.cpp)
//   openvino_transpose  OpenVINO ConvolutionBackpropData-1 / GroupConvolutionBackpropData-1 (openvino_transposed.cpp)
//   tensorflow_transpose  TensorFlow conv{1,2,3}d_transpose / Conv2DBackpropInput (tensorflow_transposed.cpp)
//   stablehlo_transpose StableHLO convolution with lhs (input) dilation (stablehlo_transposed.cpp)
// docs/dialects.md "Transposed convolution" lists the keys; docs/errata.md where they disagree.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::reference::dialects {

// What a user asked for, in no framework's words: the canonical geometry (pads_begin, pads_end and
// output_padding always resolved) and, where the first reading had one, its automatic padding mode.
struct TransposedRequest {
    TransposedDescriptor geometry;
    PaddingRequest padding = PaddingRequest::explicit_pads;  // ONNX auto_pad SAME_UPPER / SAME_LOWER / VALID
};

struct TransposedResult {
    std::string dialect;
    std::optional<DialectError> error;
    TransposedDescriptor descriptor;         // canonical and validated when ok()
    std::vector<std::int64_t> output_size;   // per spatial axis, as the framework computes it
    std::string data_layout, filter_layout;  // the framework's own names
    std::vector<std::string> notes;
    TransposedRequest request;

    bool ok() const { return !error; }
};

struct TransposedDialect {
    std::string_view name;   // "onnx_transpose", ...
    std::string_view title;  // "ONNX ConvTranspose"
    TransposedResult (*read)(const AttributeSet& attributes);
    std::optional<AttributeSet> (*spell)(const TransposedRequest& request, std::string* why_not);
};

std::span<const TransposedDialect> all_transposed_dialects();
const TransposedDialect* find_transposed_dialect(std::string_view name);  // nullptr if unknown

// The canonical descriptor read as a request (explicit pads).
TransposedRequest request_from_descriptor(const TransposedDescriptor& t);

namespace pytorch {
// Keys: n c o in k (or kernel_size), stride, padding, output_padding, dilation, groups, bias (true/false),
// padding_mode, output_size (the module's forward(input, output_size) argument: rank or rank+2 values).
TransposedResult read_transposed(const AttributeSet& attributes);
std::optional<AttributeSet> spell_transposed(const TransposedRequest& request, std::string* why_not);
}  // namespace pytorch

namespace onnx {
// Keys: n c o in k, auto_pad, pads, strides, dilations, output_padding, output_shape, kernel_shape, group, bias (B's size).
TransposedResult read_transposed(const AttributeSet& attributes);
std::optional<AttributeSet> spell_transposed(const TransposedRequest& request, std::string* why_not);
}  // namespace onnx

namespace tosa {
// Keys: n c o in k, out_pad ([out_pad_top, out_pad_bottom, out_pad_left, out_pad_right]), stride, out (OH, OW
// when the graph states them), input_zp, weight_zp, bias (BC).
TransposedResult read_transposed(const AttributeSet& attributes);
std::optional<AttributeSet> spell_transposed(const TransposedRequest& request, std::string* why_not);
}  // namespace tosa

namespace onednn {
// Keys: n c o in k, strides, dilates (0-based), padding_l, padding_r, dst (the dst spatial sizes the caller
// gives; default: the smallest, no output padding), groups, data_format NCX/NXC, weights_format OIX/XIO, bias.
TransposedResult read_deconvolution(const AttributeSet& attributes);
std::optional<AttributeSet> spell_deconvolution(const TransposedRequest& request, std::string* why_not);
}  // namespace onednn

namespace openvino {
// Keys: n c o in k, strides, dilations (required), pads_begin, pads_end, auto_pad (explicit, same_upper,
// same_lower, valid), output_padding, output_shape (the optional third input: spatial sizes), groups
// (> 1: GroupConvolutionBackpropData-1).
TransposedResult read_transposed(const AttributeSet& attributes);
std::optional<AttributeSet> spell_transposed(const TransposedRequest& request, std::string* why_not);
}  // namespace openvino

namespace tensorflow {
// Keys: n c o in k, output_shape (required: rank spatial sizes, or rank+2 in data_format order), strides,
// dilations, padding (SAME (default), VALID, EXPLICIT), explicit_paddings, data_format.
TransposedResult read_transposed(const AttributeSet& attributes);
std::optional<AttributeSet> spell_transposed(const TransposedRequest& request, std::string* why_not);
}  // namespace tensorflow

namespace stablehlo {
// Keys: the stablehlo dialect's (stablehlo.hpp): n c o in k, window_strides (1), padding, lhs_dilation (the
// stride), rhs_dilation, window_reversal, dim_labels, feature_group_count, batch_group_count (1).
TransposedResult read_transposed(const AttributeSet& attributes);
std::optional<AttributeSet> spell_transposed(const TransposedRequest& request, std::string* why_not);
}  // namespace stablehlo

}  // namespace convcheck::reference::dialects
