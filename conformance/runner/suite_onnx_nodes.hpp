// What the two halves of the ONNX model reader share (suite_onnx.cpp: Conv and ConvTranspose;
// suite_onnx_quantized.cpp: QLinearConv, ConvInteger and QDQ chains): a node is a JSON object of
// formats/onnx_conv_nodes.py (its inputs, attributes, tensors' shapes and types, producers and readers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/core/dtype.hpp"
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner::detail {

// A node that is not turned into a case: thrown while reading it, caught per node.
struct Skip {
    std::string reason;
};

std::string dims_text(const nlohmann::json& shape);
std::string join_x(const std::vector<std::int64_t>& values);
// The static shape of tensor `name` (its role "X", "W", "B" in the messages); skips otherwise, with the converter's
// reason where it gives one ("unknown_because": the shape evaluation's, formats/onnx_shapes.py).
std::vector<std::int64_t> static_shape(const nlohmann::json& node, const std::string& name, const std::string& role);
// The element type of tensor `name` as convcheck's dtype; skips a type convcheck does not run.
DataType element_type(const nlohmann::json& node, const std::string& name, const std::string& role);
// The operator's attributes in the dialect's text form, each checked against its ONNX type.
void add_attributes(const nlohmann::json& node, const std::string& op, reference::dialects::AttributeSet* attributes);
// Where ONNX's shape inference gives Y a static shape, it must be [N, M, output_size...].
void check_inferred_output(const nlohmann::json& node, std::int64_t n, std::int64_t m,
                           const std::vector<std::int64_t>& output_size, const std::string& dialect);
std::string refusal_text(const reference::dialects::DialectError& e);

// The integer convolutions (suite_onnx_quantized.cpp): each returns the node's qconv: case or throws Skip.
SuiteEntry qlinear_conv_entry(const nlohmann::json& node, const std::string& case_name);
SuiteEntry conv_integer_entry(const nlohmann::json& node, const std::string& case_name);
// A Conv whose X or W is written by a DequantizeLinear: read as a QDQ convolution (qdq_entry), or skipped.
bool qdq_candidate(const nlohmann::json& node);
SuiteEntry qdq_entry(const nlohmann::json& node, const std::string& case_name);

}  // namespace convcheck::runner::detail
