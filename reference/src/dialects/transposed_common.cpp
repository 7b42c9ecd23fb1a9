// The transposed dialects' shared conclusion and their list (see transposed.hpp).
#include "transposed_common.hpp"

#include <cctype>
#include <stdexcept>

namespace convcheck::reference::dialects {

TransposedRequest request_from_descriptor(const TransposedDescriptor& t) { return TransposedRequest{t, PaddingRequest::explicit_pads}; }

std::span<const TransposedDialect> all_transposed_dialects() {
    static const TransposedDialect dialects[] = {
        {"pytorch_transpose", "PyTorch ConvTranspose{1,2,3}d / F.conv_transpose{1,2,3}d", pytorch::read_transposed,
         pytorch::spell_transposed},
        {"onnx_transpose", "ONNX ConvTranspose", onnx::read_transposed, onnx::spell_transposed},
        {"tosa_transpose", "TOSA TRANSPOSE_CONV2D (v1.0)", tosa::read_transposed, tosa::spell_transposed},
        {"onednn_deconvolution", "oneDNN deconvolution primitive (0-based dilates, dst given)", onednn::read_deconvolution,
         onednn::spell_deconvolution},
        {"openvino_transpose", "OpenVINO ConvolutionBackpropData-1 / GroupConvolutionBackpropData-1",
         openvino::read_transposed, openvino::spell_transposed},
        {"tensorflow_transpose", "TensorFlow conv{1,2,3}d_transpose (Conv2DBackpropInput)", tensorflow::read_transposed,
         tensorflow::spell_transposed},
        {"stablehlo_transpose", "StableHLO convolution with lhs_dilation", stablehlo::read_transposed,
         stablehlo::spell_transposed},
    };
    return dialects;
}

const TransposedDialect* find_transposed_dialect(std::string_view name) {
    for (const TransposedDialect& d : all_transposed_dialects())
        if (d.name == name) return &d;
    return nullptr;
}

namespace detail {

TransposedDescriptor make_transposed(const ConvShapes& shapes, std::int64_t groups, const TransposedAxisAttributes& g,
                                     DataFormat data_format, FilterFormat filter_format) {
    TransposedDescriptor t = descriptor_from<TransposedDescriptor>(shapes, groups, g, data_format, filter_format);
    fill_spatial(&t.output_padding, g.output_padding, 0);
    return t;
}

PaddingRequest padding_request_named(std::string mode) {
    for (char& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return mode == "same_upper"   ? PaddingRequest::same_upper
           : mode == "same_lower" ? PaddingRequest::same_lower
           : mode == "valid"      ? PaddingRequest::valid
                                  : PaddingRequest::explicit_pads;
}

OutputShapeSplit output_shape_split(const TransposedDescriptor& t) {
    OutputShapeSplit split;
    for (int i = 0; i < t.rank; ++i) {
        split.output_shape.push_back(t.output_size(i));
        const std::int64_t total = t.pads_begin[i] + t.pads_end[i];
        split.begin_is_floor_half = split.begin_is_floor_half && t.pads_begin[i] == floor_div(total, 2);
        split.begin_is_ceil_half = split.begin_is_ceil_half && t.pads_begin[i] == total - floor_div(total, 2);
    }
    return split;
}

TransposedResult conclude_transposed(TransposedResult result, const std::vector<std::int64_t>& output_size,
                                     PaddingRequest padding) {
    result.output_size = output_size;
    try {
        validate(result.descriptor);
    } catch (const ConvError& e) {
        refuse_ours(e.attribute(), e.value(), e.rule());
    }
    for (int a = 0; a < result.descriptor.rank; ++a)
        if (result.descriptor.output_size(a) != output_size[a])
            throw std::logic_error("dialect " + result.dialect + ": framework output size " +
                                   std::to_string(output_size[a]) + " on axis " + std::to_string(a) +
                                   " differs from the canonical descriptor's " + to_string(result.descriptor));
    result.request = TransposedRequest{result.descriptor, padding};
    return result;
}

}  // namespace detail

}  // namespace convcheck::reference::dialects
