// ONNX model nodes -> cases (see suite_onnx.hpp). The rules, in the order they are applied to a node:
//   - a node of a model-local function: skipped (its shapes depend on each call site);
//   - ConvTranspose: skipped ("transposed convolution is not implemented yet"); ConvInteger and
//     QLinearConv: skipped (integer convolution); a "*Conv*" operator of another domain: skipped;
//   - Conv: inputs X, W and B (present iff the node has a third, non-empty input); its attributes
//     must be Conv's own (auto_pad, dilations, group, kernel_shape, pads, strides) with their ONNX
//     types; X, W (and B) fully static after shape inference and of one element type, FLOAT, FLOAT16
//     or BFLOAT16 (f32, f16, bf16); 1-D to 3-D (X and W 3-D to 5-D); the ONNX dialect reads the
//     attributes with those shapes (its refusal or an empty output: skipped with its words);
//     W[1] * group = C and B of shape [M]; and the output shape that ONNX's shape inference gives Y,
//     where it gives one, must be the dialect's.
#include "convcheck/runner/suite_onnx.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "convcheck/reference/dialects/onnx.hpp"

namespace convcheck::runner {

namespace {

using nlohmann::json;
namespace dialects = reference::dialects;

// A node that is not turned into a case: thrown inside node_entry, caught per node.
struct Skip {
    std::string reason;
};

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

// The static shape of tensor `name` (its role "X", "W", "B" in the messages); skips otherwise.
std::vector<std::int64_t> static_shape(const json& node, const std::string& name, const std::string& role) {
    const json& tensors = node.at("tensors");
    if (!tensors.contains(name) || tensors[name].at("shape").is_null())
        throw Skip{role + " has no known shape, even after ONNX shape inference"};
    const json& shape = tensors[name]["shape"];
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

// Conv's attributes in the dialect's text form, each checked against its ONNX type.
void add_attributes(const json& node, dialects::AttributeSet* attributes) {
    static const std::map<std::string, std::string> kTypes{{"auto_pad", "STRING"},   {"dilations", "INTS"},
                                                           {"group", "INT"},         {"kernel_shape", "INTS"},
                                                           {"pads", "INTS"},         {"strides", "INTS"}};
    for (const auto& [name, a] : node.at("attributes").items()) {
        const auto type = kTypes.find(name);
        if (type == kTypes.end())
            throw Skip{"attribute '" + name + "' is not an attribute of ONNX Conv (auto_pad, dilations, group, "
                       "kernel_shape, pads, strides)"};
        const std::string have = a.at("type").get<std::string>();
        if (a.contains("ref_attr_name"))
            throw Skip{"attribute '" + name + "' refers to the function attribute '" +
                       a["ref_attr_name"].get<std::string>() + "'"};
        if (have != type->second)
            throw Skip{"attribute '" + name + "' has the type " + have + "; ONNX Conv defines it as " + type->second};
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

SuiteEntry conv_entry(const json& node, const std::string& case_name) {
    const std::vector<std::string> inputs = node.at("inputs").get<std::vector<std::string>>();
    if (inputs.size() < 2 || inputs[0].empty() || inputs[1].empty())
        throw Skip{"ONNX Conv needs the inputs X and W; the node has " + std::to_string(inputs.size())};
    const bool has_bias = inputs.size() >= 3 && !inputs[2].empty();  // "" is ONNX's omitted optional input
    if (inputs.size() > 3) throw Skip{"ONNX Conv has at most 3 inputs (X, W, B); the node has " +
                                      std::to_string(inputs.size())};
    dialects::AttributeSet attributes;
    add_attributes(node, &attributes);

    const DataType dtype = element_type(node, inputs[0], "X");
    for (std::size_t i = 1; i < (has_bias ? 3u : 2u); ++i) {
        const char* role = i == 1 ? "W" : "B";
        if (element_type(node, inputs[i], role) != dtype)
            throw Skip{std::string(role) + " and X have different element types (ONNX Conv: one type T)"};
    }
    const auto x = static_shape(node, inputs[0], "X");
    const auto w = static_shape(node, inputs[1], "W");
    if (x.size() < 3 || x.size() > 5)
        throw Skip{"X is " + std::to_string(x.size()) + "-D " + dims_text(json(x)) +
                   ": convcheck runs 1-D to 3-D convolutions (X and W 3-D to 5-D)"};
    if (w.size() != x.size())
        throw Skip{"W is " + std::to_string(w.size()) + "-D " + dims_text(json(w)) + " and X is " +
                   std::to_string(x.size()) + "-D: ONNX Conv needs W of X's rank (convcheck: 3-D to 5-D)"};

    attributes["n"] = std::to_string(x[0]);
    attributes["c"] = std::to_string(x[1]);
    attributes["o"] = std::to_string(w[0]);
    attributes["in"] = join_x({x.begin() + 2, x.end()});
    attributes["k"] = join_x({w.begin() + 2, w.end()});
    const dialects::DialectResult r = dialects::onnx::read(attributes);
    if (r.error)
        throw Skip{"ONNX Conv refuses it: " + r.error->attribute + " = " + r.error->value + ": " + r.error->message +
                   (r.error->framework_wording ? "" : " [convcheck's words]")};
    if (r.empty_output) throw Skip{"ONNX gives an empty output (size 0 on an axis): there is no convolution to run"};
    const std::int64_t group = r.descriptor.groups;
    if (w[1] * group != x[1])
        throw Skip{"W's shape " + dims_text(json(w)) + " has " + std::to_string(w[1]) + " input channels per group; " +
                   "with group = " + std::to_string(group) + " X needs " + std::to_string(w[1] * group) +
                   " channels, not " + std::to_string(x[1]) + " (ONNX Conv: W is [M, C/group, k...])"};
    if (has_bias) {
        const auto b = static_shape(node, inputs[2], "B");
        if (b != std::vector<std::int64_t>{w[0]})
            throw Skip{"B's shape " + dims_text(json(b)) + " is not [M] = [" + std::to_string(w[0]) + "]"};
    }
    const std::string& y_name = node.at("outputs").empty() ? std::string() : node["outputs"][0].get_ref<const std::string&>();
    if (node["tensors"].contains(y_name) && node["tensors"][y_name]["shape"].is_array()) {
        const json& y = node["tensors"][y_name]["shape"];
        std::vector<std::int64_t> want{x[0], w[0]};
        want.insert(want.end(), r.output_size.begin(), r.output_size.end());
        bool all_static = std::all_of(y.begin(), y.end(), [](const json& d) { return d.is_number_integer(); });
        if (all_static && y.get<std::vector<std::int64_t>>() != want)
            throw Skip{"ONNX shape inference gives Y the shape " + dims_text(y) + " but the ONNX dialect reads " +
                       dims_text(json(want)) + " (a disagreement to report: docs/errata.md)"};
    }
    ConvDescriptor d = r.descriptor;
    d.has_bias = has_bias;
    d.dtype = dtype;
    validate(d);
    SuiteEntry e(to_string(d), "b", case_name);
    e.dialect = "onnx";
    e.padding = std::string(dialects::to_string(r.request.padding));
    return e;
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
        if (op == "ConvTranspose") throw Skip{"transposed convolution is not implemented yet"};
        if (op == "ConvInteger" || op == "QLinearConv")
            throw Skip{"integer convolution (" + op + ") is not modelled: convcheck runs f32, f16 and bf16"};
        if (op != "Conv") throw Skip{"operator " + op + " is not ONNX Conv"};
        suite->entries.push_back(conv_entry(node, case_name));
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
