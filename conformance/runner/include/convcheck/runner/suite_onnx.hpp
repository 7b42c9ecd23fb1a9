// An ONNX model as a suite (`--suite model.onnx`): every Conv node becomes a case in the ONNX dialect,
// every ConvTranspose node a "deconv:" case in the ONNX transposed dialect (onnx_transpose), with the shapes the model gives its tensors (ONNX shape inference where the model does not declare
// them, the converter's shape-only evaluation of the graph where that gives none); every node that cannot
// become a case exactly is skipped with its reason, never approximated.
//
// Skipped nodes are SkippedInput records (skipped_inputs.hpp), reported and counted like skipped
// benchdnn test cases. Reading the model is done by formats/onnx_conv_nodes.py (Debian's
// python3-onnx: protobuf parsing and onnx.shape_inference; formats/onnx_shapes.py), which only reports
// what the model says, as JSON; every decision about the convolution is made here, the attributes read by the ONNX dialects
// (reference/src/dialects/onnx.cpp, onnx_transposed.cpp). See docs/runner.md, "ONNX models".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

struct OnnxModelSuite {
    std::vector<SuiteEntry> entries;
    // The convolution nodes not turned into cases: source "<model>: graph main, node #3 'conv1'", input
    // the node as onnx.helper.printable_node writes it with its tensors' types and shapes, the reason.
    std::vector<SkippedInput> skipped;
};

// The cases and skips of one model from the converter's JSON (format "convcheck-onnx-conv-nodes").
// `model_name` prefixes each case's shape name ("<model_name>/<node name>"). Throws
// std::invalid_argument when the JSON is not the converter's format.
OnnxModelSuite onnx_suite_from_nodes(const nlohmann::json& document, const std::string& model_name);

// The converter script: installed as <prefix>/share/convcheck/onnx_conv_nodes.py beside
// <prefix>/bin/convcheck, else the source tree's formats/onnx_conv_nodes.py.
std::string onnx_converter_path();

// Runs the converter on `model_path` with /usr/bin/python3 and parses its output. Throws
// std::invalid_argument with the converter's own message when it fails (not an ONNX model,
// python3-onnx missing, ...).
nlohmann::json read_onnx_conv_nodes(const std::string& model_path);

// read_onnx_conv_nodes + onnx_suite_from_nodes; the shape names start with the model's file name.
OnnxModelSuite onnx_model_suite(const std::string& model_path);

}  // namespace convcheck::runner
