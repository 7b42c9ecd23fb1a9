// The list of dialects, in the order `convcheck describe` shows them.
#include "convcheck/reference/dialects/atrous.hpp"
#include "convcheck/reference/dialects/cntk.hpp"
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/reference/dialects/onednn.hpp"
#include "convcheck/reference/dialects/onnx.hpp"
#include "convcheck/reference/dialects/openvino.hpp"
#include "convcheck/reference/dialects/pytorch.hpp"
#include "convcheck/reference/dialects/tensorflow.hpp"
#include "convcheck/reference/dialects/xnnpack.hpp"

namespace convcheck::reference::dialects {

std::span<const Dialect> all_dialects() {
    static const Dialect dialects[] = {
        {"tensorflow", "TensorFlow conv (SAME/VALID/EXPLICIT)", tensorflow::read, tensorflow::spell},
        {"atrous", "TensorFlow atrous_conv2d", atrous::read, atrous::spell},
        {"onnx", "ONNX Conv", onnx::read, onnx::spell},
        {"openvino", "OpenVINO Convolution-1", openvino::read, openvino::spell},
        {"onednn", "oneDNN convolution primitive", onednn::read_primitive, onednn::spell_primitive},
        {"onednn_graph", "oneDNN Graph Convolution", onednn::read_graph, onednn::spell_graph},
        {"pytorch", "PyTorch conv", pytorch::read, pytorch::spell},
        {"cntk", "CNTK Convolution", cntk::read, cntk::spell},
        {"xnnpack", "XNNPACK convolution2d", xnnpack::read, xnnpack::spell},
    };
    return dialects;
}

const Dialect* find_dialect(std::string_view name) {
    for (const Dialect& d : all_dialects())
        if (d.name == name) return &d;
    return nullptr;
}

}  // namespace convcheck::reference::dialects
