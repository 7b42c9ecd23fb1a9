// ONNX model nodes -> cases (see suite_onnx.hpp). The rules, in the order they are applied to a node:
//   - a node of a model-local function: skipped (its shapes depend on each call site);
//   - QLinearConv (X, x_scale, x_zero_point, W, w_scale, w_zero_point, y_scale, y_zero_point[, B]) and ConvInteger
//     (X, W[, x_zero_point[, w_zero_point]]): a "qconv:" case (docs/quantized.md) with Conv's attributes read by the
//     ONNX dialect, X and W UINT8 or INT8, Y of y_zero_point's type (QLinearConv) or INT32 (ConvInteger), B INT32;
//     every scale and zero point an initializer the converter gives the values of, one value each, except w_scale
//     (one, or one per output channel: carried as wsc=a:b:...) and w_zero_point (one, or the same one repeated per
//     output channel; differing ones are skipped); exact and bound mode where the scales allow exact mode, else
//     bound mode; a "*Conv*" operator of another domain: skipped;
//   - Conv and ConvTranspose: inputs X, W and B (present iff the node has a third, non-empty input);
//     its attributes must be the operator's own (Conv: auto_pad, dilations, group, kernel_shape, pads,
//     strides; ConvTranspose also output_padding and output_shape) with their ONNX types; X, W (and B)
//     fully static after shape inference and the converter's shape evaluation (else skipped, with the
//     converter's reason where it gives one) and of one element type, FLOAT, FLOAT16 or BFLOAT16 (f32,
//     f16, bf16); 1-D to 3-D (X and W 3-D to 5-D);
//   - Conv: the ONNX dialect reads the attributes with those shapes (its refusal or an empty output:
//     skipped with its words); W[1] * group = C and B of shape [M];
//   - ConvTranspose: W is [C, M/group, k...]: W[0] = C, M = W[1] * group; B of shape [M]; the ONNX
//     transposed dialect (onnx_transpose) reads the attributes with those shapes (its refusal: skipped
//     with its words) into a "deconv:" case;
//   - the output shape that ONNX's shape inference gives Y, where it gives one, must be the dialect's.
//   - a Conv whose X or W is a DequantizeLinear's output (ONNX QDQ): one "qconv:" case with acc=f32 where the model
//     computes one quantized convolution: X = DequantizeLinear(x u8|s8, x_scale one, x_zero_point one), W =
//     DequantizeLinear(w u8|s8 initializer, w_scale one or per output channel on axis 0, w_zero_point one), B any
//     FLOAT [M] (bdt=f32), a FLOAT Conv read as above, its output read only by QuantizeLinear(y_scale and y_zero_point
//     one each, or per axis on the channel axis 1 with M values: dsc=a:b:..., dzp=a:b:...) or by one Relu or Clip (both bounds constant: a post-op) read only by it, none an output of the graph,
//     every scale and zero point an initializer; bound mode. Anything else: skipped with the piece that breaks it.
#include "convcheck/runner/suite_onnx.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "convcheck/reference/dialects/onnx.hpp"
#include "convcheck/reference/dialects/transposed.hpp"
#include "quantized/operation.hpp"
#include "suite_onnx_nodes.hpp"

namespace convcheck::runner {

namespace detail {

using nlohmann::json;
namespace dialects = reference::dialects;


std::string dims_text(const json& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += shape[i].is_null() ? "?" : shape[i].is_string() ? shape[i].get<std::string>() : shape[i].dump();
    }
    return s + "]";
}

std::string join_x(const std::vector<std::int64_t>& values) {
    std::string s;
    for (std::size_t i = 0; i < values.size(); ++i) s += (i ? "x" : "") + std::to_string(values[i]);
    return s;
}

// The static shape of tensor `name` (its role "X", "W", "B" in the messages); skips otherwise, with the converter's
// reason where it gives one ("unknown_because": the shape evaluation's, formats/onnx_shapes.py).
std::vector<std::int64_t> static_shape(const json& node, const std::string& name, const std::string& role) {
    const json& tensors = node.at("tensors");
    const std::string why = tensors.contains(name) && tensors[name].contains("unknown_because")
                                ? tensors[name]["unknown_because"].get<std::string>()
                                : std::string();
    if (!tensors.contains(name) || tensors[name].at("shape").is_null())
        throw Skip{role + " has no known shape" + (why.empty() ? ", even after ONNX shape inference" : ": " + why)};
    const json& shape = tensors[name]["shape"];
    const bool unknown = std::any_of(shape.begin(), shape.end(), [](const json& d) { return d.is_null(); });
    if (unknown && !why.empty()) throw Skip{role + " has unknown dimensions " + dims_text(shape) + ": " + why};
    std::vector<std::int64_t> dims;
    for (const json& d : shape) {
        if (!d.is_number_integer())
            throw Skip{role + " has symbolic or unknown dimensions after ONNX shape inference (give them values in "
                       "the model to run it)"};
        dims.push_back(d.get<std::int64_t>());
    }
    return dims;
}

// The element type of tensor `name` as convcheck's dtype; skips a type convcheck does not run.
DataType element_type(const json& node, const std::string& name, const std::string& role) {
    const json& tensors = node.at("tensors");
    const json type = tensors.contains(name) ? tensors[name].at("elem_type") : json(nullptr);
    if (type.is_null()) throw Skip{role + " has no known element type"};
    const std::string t = type.get<std::string>();
    if (t == "FLOAT") return DataType::f32;
    if (t == "FLOAT16") return DataType::f16;
    if (t == "BFLOAT16") return DataType::bf16;
    throw Skip{role + " has the element type " + t + ": convcheck runs FLOAT, FLOAT16 and BFLOAT16 (f32, f16, bf16)"};
}

// The operator's attributes in the dialect's text form, each checked against its ONNX type.
void add_attributes(const json& node, const std::string& op, dialects::AttributeSet* attributes) {
    static const std::map<std::string, std::string> kConv{{"auto_pad", "STRING"},   {"dilations", "INTS"},
                                                          {"group", "INT"},         {"kernel_shape", "INTS"},
                                                          {"pads", "INTS"},         {"strides", "INTS"}};
    static const std::map<std::string, std::string> kTransposed = [] {
        auto m = kConv;
        m["output_padding"] = "INTS";
        m["output_shape"] = "INTS";
        return m;
    }();
    const bool transposed = op == "ConvTranspose";
    const auto& types = transposed ? kTransposed : kConv;
    for (const auto& [name, a] : node.at("attributes").items()) {
        const auto type = types.find(name);
        if (type == types.end())
            throw Skip{"attribute '" + name + "' is not an attribute of ONNX " + op + " (auto_pad, dilations, group, " +
                       "kernel_shape, " + (transposed ? "output_padding, output_shape, " : "") + "pads, strides)"};
        const std::string have = a.at("type").get<std::string>();
        if (a.contains("ref_attr_name"))
            throw Skip{"attribute '" + name + "' refers to the function attribute '" +
                       a["ref_attr_name"].get<std::string>() + "'"};
        if (have != type->second)
            throw Skip{"attribute '" + name + "' has the type " + have + "; ONNX " + op + " defines it as " + type->second};
        const json& v = a.at("value");
        if (have == "STRING") {
            (*attributes)[name] = v.get<std::string>();
        } else if (have == "INT") {
            (*attributes)[name] = std::to_string(v.get<std::int64_t>());
        } else {
            // an empty list is not an absent one: ONNX's shape inference refuses it ("incorrect size")
            if (v.empty()) throw Skip{"attribute '" + name + "' is an empty list (ONNX: 'Attribute " + name +
                                      " has incorrect size')"};
            (*attributes)[name] = join_x(v.get<std::vector<std::int64_t>>());
        }
    }
}

// What Conv and ConvTranspose share: the inputs, the attributes, one element type, X and W of one rank.
struct NodeTensors {
    std::vector<std::string> inputs;
    bool has_bias = false;
    dialects::AttributeSet attributes;
    DataType dtype = DataType::f32;
    std::vector<std::int64_t> x, w;
};

NodeTensors node_tensors(const json& node, const std::string& op) {
    NodeTensors t;
    t.inputs = node.at("inputs").get<std::vector<std::string>>();
    const auto& inputs = t.inputs;
    if (inputs.size() < 2 || inputs[0].empty() || inputs[1].empty())
        throw Skip{"ONNX " + op + " needs the inputs X and W; the node has " + std::to_string(inputs.size())};
    t.has_bias = inputs.size() >= 3 && !inputs[2].empty();  // "" is ONNX's omitted optional input
    if (inputs.size() > 3) throw Skip{"ONNX " + op + " has at most 3 inputs (X, W, B); the node has " +
                                      std::to_string(inputs.size())};
    add_attributes(node, op, &t.attributes);

    t.dtype = element_type(node, inputs[0], "X");
    for (std::size_t i = 1; i < (t.has_bias ? 3u : 2u); ++i) {
        const char* role = i == 1 ? "W" : "B";
        if (element_type(node, inputs[i], role) != t.dtype)
            throw Skip{std::string(role) + " and X have different element types (ONNX " + op + ": one type T)"};
    }
    t.x = static_shape(node, inputs[0], "X");
    t.w = static_shape(node, inputs[1], "W");
    const auto& x = t.x;
    const auto& w = t.w;
    if (x.size() < 3 || x.size() > 5)
        throw Skip{"X is " + std::to_string(x.size()) + "-D " + dims_text(json(x)) +
                   ": convcheck runs 1-D to 3-D convolutions (X and W 3-D to 5-D)"};
    if (w.size() != x.size())
        throw Skip{"W is " + std::to_string(w.size()) + "-D " + dims_text(json(w)) + " and X is " +
                   std::to_string(x.size()) + "-D: ONNX " + op + " needs W of X's rank (convcheck: 3-D to 5-D)"};
    t.attributes["n"] = std::to_string(x[0]);
    t.attributes["c"] = std::to_string(x[1]);
    t.attributes["in"] = join_x({x.begin() + 2, x.end()});
    t.attributes["k"] = join_x({w.begin() + 2, w.end()});
    return t;
}

// Where ONNX's shape inference gives Y a static shape, it must be [N, M, output_size...].
void check_inferred_output(const json& node, std::int64_t n, std::int64_t m, const std::vector<std::int64_t>& output_size,
                           const std::string& dialect) {
    const std::string& y_name = node.at("outputs").empty() ? std::string() : node["outputs"][0].get_ref<const std::string&>();
    if (!node["tensors"].contains(y_name) || !node["tensors"][y_name]["shape"].is_array()) return;
    const json& y = node["tensors"][y_name]["shape"];
    std::vector<std::int64_t> want{n, m};
    want.insert(want.end(), output_size.begin(), output_size.end());
    const bool all_static = std::all_of(y.begin(), y.end(), [](const json& d) { return d.is_number_integer(); });
    if (all_static && y.get<std::vector<std::int64_t>>() != want)
        throw Skip{"ONNX shape inference gives Y the shape " + dims_text(y) + " but the " + dialect + " reads " +
                   dims_text(json(want)) + " (a disagreement to report: docs/errata.md)"};
}

std::string refusal_text(const dialects::DialectError& e) {
    return e.attribute + " = " + e.value + ": " + e.message + (e.framework_wording ? "" : " [convcheck's words]");
}

}  // namespace detail

namespace {

using nlohmann::json;
namespace dialects = reference::dialects;
using namespace detail;

// The case of a node: the dialect's descriptor (ConvDescriptor or TransposedDescriptor) with the node's bias and
// element type, validated.
template <class Descriptor>
SuiteEntry node_entry(Descriptor d, const NodeTensors& t, const std::string& case_name, const char* dialect,
                      dialects::PaddingRequest padding) {
    d.has_bias = t.has_bias;
    d.dtype = t.dtype;
    validate(d);
    SuiteEntry e(to_string(d), "b", case_name);
    e.dialect = dialect;
    e.padding = std::string(dialects::to_string(padding));
    return e;
}

SuiteEntry conv_entry(const json& node, const std::string& case_name) {
    NodeTensors t = node_tensors(node, "Conv");
    const auto& x = t.x;
    const auto& w = t.w;
    t.attributes["o"] = std::to_string(w[0]);
    const dialects::DialectResult r = dialects::onnx::read(t.attributes);
    if (r.error) throw Skip{"ONNX Conv refuses it: " + refusal_text(*r.error)};
    if (r.empty_output) throw Skip{"ONNX gives an empty output (size 0 on an axis): there is no convolution to run"};
    const std::int64_t group = r.descriptor.groups;
    if (w[1] * group != x[1])
        throw Skip{"W's shape " + dims_text(json(w)) + " has " + std::to_string(w[1]) + " input channels per group; " +
                   "with group = " + std::to_string(group) + " X needs " + std::to_string(w[1] * group) +
                   " channels, not " + std::to_string(x[1]) + " (ONNX Conv: W is [M, C/group, k...])"};
    if (t.has_bias) {
        const auto b = static_shape(node, t.inputs[2], "B");
        if (b != std::vector<std::int64_t>{w[0]})
            throw Skip{"B's shape " + dims_text(json(b)) + " is not [M] = [" + std::to_string(w[0]) + "]"};
    }
    check_inferred_output(node, x[0], w[0], r.output_size, "ONNX dialect");
    return node_entry(r.descriptor, t, case_name, "onnx", r.request.padding);
}

// ConvTranspose: W is [C, M/group, k...], so C = W[0] and the output has M = W[1] * group channels.
SuiteEntry conv_transposed_entry(const json& node, const std::string& case_name) {
    NodeTensors t = node_tensors(node, "ConvTranspose");
    const auto& x = t.x;
    const auto& w = t.w;
    if (w[0] != x[1])
        throw Skip{"W's shape " + dims_text(json(w)) + " has " + std::to_string(w[0]) + " input channels; X has " +
                   std::to_string(x[1]) + " (ONNX ConvTranspose: W is [C, M/group, k...])"};
    const std::int64_t group = t.attributes.count("group") ? std::stoll(t.attributes["group"]) : 1;
    // a group < 1 is the dialect's to refuse: M is then given as W[1]
    const std::int64_t m = w[1] * std::max<std::int64_t>(group, 1);
    t.attributes["o"] = std::to_string(m);
    if (t.has_bias) {
        const auto b = static_shape(node, t.inputs[2], "B");
        if (b != std::vector<std::int64_t>{m})
            throw Skip{"B's shape " + dims_text(json(b)) + " is not [M] = [" + std::to_string(m) + "] (M = W[1] * group)"};
        t.attributes["bias"] = std::to_string(m);
    }
    const dialects::TransposedResult r = dialects::onnx::read_transposed(t.attributes);
    if (r.error) throw Skip{"ONNX ConvTranspose refuses it: " + refusal_text(*r.error)};
    check_inferred_output(node, x[0], m, r.output_size, "ONNX transposed dialect");
    return node_entry(r.descriptor, t, case_name, "onnx_transpose", r.request.padding);
}

// The node as ONNX prints it, then each of its tensors' element type and shape as the model gives them:
// "%y = Conv[strides = [2, 2]](%x, %w)  with x: FLOAT [N, 3, 7, 7], w: FLOAT [4, 3, 3, 3], y: FLOAT [N, 4, 4, 4]".
std::string node_input_text(const json& node) {
    std::string text = node.value("text", "");
    std::string with;
    for (const auto& [name, facts] : node.at("tensors").items()) {
        const json& type = facts.at("elem_type");
        const json& shape = facts.at("shape");
        with += (with.empty() ? "" : ", ") + name + ": " + (type.is_string() ? type.get<std::string>() : "?") + " " +
                (shape.is_array() ? dims_text(shape) : "(unknown rank)");
    }
    return with.empty() ? text : text + "  with " + with;
}

std::string node_label(const json& node) {
    const std::string name = node.value("name", "");
    return name.empty() ? "#" + std::to_string(node.at("index").get<int>()) : name;
}

// One node: a case, or a skip with its reason.
void add_node(const json& node, const std::string& model_name, OnnxModelSuite* suite) {
    const std::string graph = node.at("graph").get<std::string>();
    const std::string case_name =
        model_name + "/" + (graph == "main" ? "" : graph.substr(5) + "/") + node_label(node);  // "main/..." nested
    const std::string name = node.value("name", "");
    SkippedInput where{"", model_name + ": graph " + graph + ", node #" + std::to_string(node.at("index").get<int>()) +
                                  (name.empty() ? "" : " '" + name + "'"),
                       node_input_text(node), ""};
    const std::string op = node.at("op_type").get<std::string>();
    const std::string domain = node.value("domain", "");
    try {
        if (node.contains("function"))
            throw Skip{"inside the model-local function " + node["function"].get<std::string>() +
                       ": its tensors' shapes depend on each call"};
        if (!domain.empty() && domain != "ai.onnx")
            throw Skip{"operator " + domain + "." + op + " is not ONNX Conv (domain " + domain + ")"};
        if (op == "QLinearConv") {
            suite->entries.push_back(qlinear_conv_entry(node, case_name));
            return;
        }
        if (op == "ConvInteger") {
            suite->entries.push_back(conv_integer_entry(node, case_name));
            return;
        }
        if (op == "ConvTranspose") {
            suite->entries.push_back(conv_transposed_entry(node, case_name));
            return;
        }
        if (op != "Conv") throw Skip{"operator " + op + " is not ONNX Conv"};
        suite->entries.push_back(qdq_candidate(node) ? qdq_entry(node, case_name) : conv_entry(node, case_name));
    } catch (const Skip& s) {
        where.reason = s.reason;
        suite->skipped.push_back(std::move(where));
    }
}

}  // namespace

OnnxModelSuite onnx_suite_from_nodes(const json& document, const std::string& model_name) {
    if (!document.is_object() || document.value("format", "") != "convcheck-onnx-conv-nodes" ||
        document.value("format_version", 0) != 1 || !document.contains("nodes") || !document["nodes"].is_array())
        throw std::invalid_argument(model_name + ": the ONNX converter's output is not convcheck-onnx-conv-nodes 1");
    OnnxModelSuite suite;
    for (std::size_t i = 0; i < document["nodes"].size(); ++i) {
        try {
            add_node(document["nodes"][i], model_name, &suite);
        } catch (const json::exception& e) {  // a missing key or a wrong type: not the converter's output
            throw std::invalid_argument(model_name + ": node " + std::to_string(i) +
                                        " of the ONNX converter's output is malformed: " + e.what());
        }
    }
    return suite;
}

OnnxModelSuite onnx_model_suite(const std::string& model_path) {
    return onnx_suite_from_nodes(read_onnx_conv_nodes(model_path), std::filesystem::path(model_path).filename().string());
}

}  // namespace convcheck::runner
