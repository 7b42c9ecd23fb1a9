// The list of dialects, in the order `convcheck describe` shows them.
#include "convcheck/reference/dialects/atrous.hpp"
#include "convcheck/reference/dialects/cntk.hpp"
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/reference/dialects/onednn.hpp"
#include "convcheck/reference/dialects/onnx.hpp"
#include "convcheck/reference/dialects/openvino.hpp"
#include "convcheck/reference/dialects/pytorch.hpp"
#include "convcheck/reference/dialects/stablehlo.hpp"
#include "convcheck/reference/dialects/tensorflow.hpp"
#include "convcheck/reference/dialects/tflite.hpp"
#include "convcheck/reference/dialects/tosa.hpp"
#include "convcheck/reference/dialects/xnnpack.hpp"

namespace convcheck::reference::dialects {

std::span<const Dialect> all_dialects() {
    // A name with '@' reads an older release of the framework, kept because that reading is still
    // met (docs/errata.md says where it differs and why); the name without '@' is the current one.
    static const Dialect dialects[] = {
        {"tensorflow", "TensorFlow Conv2D/Conv3D ops (tf.nn.conv2d, raw_ops; SAME/VALID/EXPLICIT)", tensorflow::read,
         tensorflow::spell},
        {"tf_convolution", "TensorFlow tf.nn.convolution / Keras Conv (SAME/VALID)", tensorflow::read_convolution,
         tensorflow::spell_convolution},
        {"atrous", "TensorFlow atrous_conv2d", atrous::read, atrous::spell},
        {"onnx", "ONNX Conv", onnx::read, onnx::spell},
        {"openvino", "OpenVINO Convolution-1", openvino::read, openvino::spell},
        {"onednn", "oneDNN convolution primitive", onednn::read_primitive, onednn::spell_primitive},
        {"onednn_graph", "oneDNN Graph Convolution (v3.2 and later)", onednn::read_graph, onednn::spell_graph},
        {"onednn_graph@<3.2", "oneDNN Graph Convolution before v3.2 (unclamped SAME pads)",
         onednn::read_graph_before_v3_2, onednn::spell_graph},
        {"pytorch", "PyTorch conv", pytorch::read, pytorch::spell},
        {"cntk", "CNTK Convolution", cntk::read, cntk::spell},
        {"xnnpack", "XNNPACK convolution2d", xnnpack::read, xnnpack::spell},
        {"xnnpack@git20220216", "XNNPACK convolution2d, Debian 0.0~git20220216 (no reshape check)",
         xnnpack::read_debian_snapshot_2022, xnnpack::spell},
        {"tflite_f32", "TFLite CONV_2D / DEPTHWISE_CONV_2D float32 (fused activation as post-ops)", tflite::read,
         tflite::spell},
        {"tosa", "TOSA CONV2D / CONV3D / DEPTHWISE_CONV2D (v1.0)", tosa::read, tosa::spell},
        {"stablehlo", "StableHLO convolution", stablehlo::read, stablehlo::spell},
    };
    return dialects;
}

const Dialect* find_dialect(std::string_view name) {
    for (const Dialect& d : all_dialects())
        if (d.name == name) return &d;
    return nullptr;
}

}  // namespace convcheck::reference::dialects
