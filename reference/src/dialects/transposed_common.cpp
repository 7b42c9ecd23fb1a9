// The transposed dialects' shared conclusion and their list (see transposed.hpp).
#include "transposed_common.hpp"

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
    };
    return dialects;
}

const TransposedDialect* find_transposed_dialect(std::string_view name) {
    for (const TransposedDialect& d : all_transposed_dialects())
        if (d.name == name) return &d;
    return nullptr;
}

namespace detail {

TransposedDescriptor make_transposed(const ConvShapes& shapes, std::int64_t groups, const TransposedGeometry& g,
                                     DataFormat data_format, FilterFormat filter_format) {
    TransposedDescriptor t = descriptor_from<TransposedDescriptor>(shapes, groups, g, data_format, filter_format);
    fill_spatial(&t.output_padding, g.output_padding, 0);
    return t;
}

AttributeSet spell_shapes(const TransposedDescriptor& t) {
    AttributeSet a;
    a["n"] = std::to_string(t.batch);
    a["c"] = std::to_string(t.in_channels);
    a["o"] = std::to_string(t.out_channels);
    a["in"] = join(t.input_size, t.rank);
    a["k"] = join(t.kernel_size, t.rank);
    return a;
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
