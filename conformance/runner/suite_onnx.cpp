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
//     FLOAT [M] (bdt=f32), a FLOAT Conv read as above, its output read only by QuantizeLinear(y_scale one, y_zero_point
//     one) or by one Relu or Clip (both bounds constant: a post-op) read only by it, none an output of the graph,
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

// ---- integer convolution: QLinearConv and ConvInteger ------------------------------------------------------

// The integer type of tensor `name` (UINT8 u8, INT8 s8, INT32 s32); skips another.
IntegerType integer_type(const json& node, const std::string& name, const std::string& role) {
    const json& tensors = node.at("tensors");
    const json type = tensors.contains(name) ? tensors[name].at("elem_type") : json(nullptr);
    if (type.is_null()) throw Skip{role + " has no known element type"};
    const std::string t = type.get<std::string>();
    if (t == "UINT8") return IntegerType::u8;
    if (t == "INT8") return IntegerType::s8;
    if (t == "INT32") return IntegerType::s32;
    throw Skip{role + " has the element type " + t + ": a quantized convolution's tensors are UINT8, INT8 or INT32"};
}

// A scale given once or once per output channel: its values (one, or `channels`), all equal ones read as one.
std::vector<double> per_channel_values(const json& node, const std::string& name, const std::string& role,
                                       std::int64_t channels) {
    const json& tensors = node.at("tensors");
    if (!tensors.contains(name) || !tensors[name].contains("values"))
        throw Skip{role + " is not an initializer of the model (convcheck reads scales and zero points as constants)"};
    std::vector<double> v = tensors[name]["values"].get<std::vector<double>>();
    if (v.size() != 1 && static_cast<std::int64_t>(v.size()) != channels)
        throw Skip{role + " has " + std::to_string(v.size()) + " values: one, or one per output channel"};
    if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); })) v.resize(1);
    return v;
}

// The one value of a scale or zero point: its values (per_channel_values) must be one, or `repeated` equal ones.
double one_value(const json& node, const std::string& name, const std::string& role, std::int64_t repeated = 1) {
    const std::vector<double> v = per_channel_values(node, name, role, repeated);
    if (v.size() != 1) throw Skip{role + " differs per output channel: a qconv: descriptor takes one weights zero point"};
    return v.front();
}

std::int32_t zero_point_value(const json& node, const std::string& name, const std::string& role, std::int64_t repeated = 1) {
    const double v = one_value(node, name, role, repeated);
    if (v != std::floor(v) || std::fabs(v) > 1e9) throw Skip{role + " is not an integer"};
    return static_cast<std::int32_t>(v);
}

// Conv's attributes and the shapes of X and W (inputs x_index and w_index) read by the ONNX dialect; checks W against
// X and the groups. Returns the geometry (the dialect's descriptor: f32, which a qconv: descriptor keeps).
ConvDescriptor integer_geometry(const json& node, const std::string& op, std::size_t x_index, std::size_t w_index,
                                dialects::PaddingRequest* padding) {
    const auto inputs = node.at("inputs").get<std::vector<std::string>>();
    dialects::AttributeSet attributes;
    add_attributes(node, "Conv", &attributes);  // QLinearConv and ConvInteger have Conv's attributes
    const auto x = static_shape(node, inputs[x_index], "X");
    const auto w = static_shape(node, inputs[w_index], "W");
    if (x.size() < 3 || x.size() > 5 || w.size() != x.size())
        throw Skip{"X is " + dims_text(json(x)) + " and W " + dims_text(json(w)) +
                   ": convcheck runs 1-D to 3-D convolutions (X and W of one rank, 3-D to 5-D)"};
    attributes["n"] = std::to_string(x[0]);
    attributes["c"] = std::to_string(x[1]);
    attributes["in"] = join_x({x.begin() + 2, x.end()});
    attributes["k"] = join_x({w.begin() + 2, w.end()});
    attributes["o"] = std::to_string(w[0]);
    const dialects::DialectResult r = dialects::onnx::read(attributes);
    if (r.error) throw Skip{"ONNX " + op + " refuses it: " + refusal_text(*r.error)};
    if (r.empty_output) throw Skip{"ONNX gives an empty output (size 0 on an axis): there is no convolution to run"};
    if (w[1] * r.descriptor.groups != x[1])
        throw Skip{"W's shape " + dims_text(json(w)) + " does not fit X's " + std::to_string(x[1]) + " channels with group = " +
                   std::to_string(r.descriptor.groups) + " (ONNX " + op + ": W is [M, C/group, k...])"};
    check_inferred_output(node, x[0], w[0], r.output_size, "ONNX dialect");
    *padding = r.request.padding;
    return r.descriptor;
}

// The case of a quantized node: exact and bound mode where exact mode holds its scales, else bound mode only.
SuiteEntry quantized_entry(QuantizedDescriptor q, const std::string& case_name, dialects::PaddingRequest padding) {
    try {
        validate(q);
    } catch (const ConvError& e) {
        throw Skip{std::string("the quantized convolution is not one convcheck runs: ") + e.what()};
    }
    Case c;
    c.op = Op::conv_quantized;
    c.qconv = q;
    const bool exact = detail::quantized_refused_entry(c, accuracy::Mode::exact).empty();
    SuiteEntry e(to_string(q), exact ? "be" : "b", case_name);
    e.dialect = "onnx";
    e.padding = std::string(dialects::to_string(padding));
    return e;
}

SuiteEntry qlinear_conv_entry(const json& node, const std::string& case_name) {
    const auto inputs = node.at("inputs").get<std::vector<std::string>>();
    if (inputs.size() < 8 || inputs.size() > 9 || std::any_of(inputs.begin(), inputs.begin() + 8, [](const auto& s) { return s.empty(); }))
        throw Skip{"ONNX QLinearConv has the inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, "
                   "y_zero_point and an optional B; the node has " + std::to_string(inputs.size())};
    dialects::PaddingRequest padding{};
    QuantizedDescriptor q;
    q.conv = integer_geometry(node, "QLinearConv", 0, 3, &padding);
    const std::int64_t m = q.conv.out_channels;
    q.src = integer_type(node, inputs[0], "x");
    q.weights = integer_type(node, inputs[3], "w");
    const std::string& y = node.at("outputs").empty() ? inputs[7] : node["outputs"][0].get_ref<const std::string&>();
    const bool y_typed = node["tensors"].contains(y) && node["tensors"][y].at("elem_type").is_string();
    q.dst = integer_type(node, y_typed ? y : inputs[7], "y");  // else y_zero_point's type, which y has
    q.conv.has_bias = inputs.size() == 9 && !inputs[8].empty();
    if (q.conv.has_bias) {
        if (integer_type(node, inputs[8], "B") != IntegerType::s32) throw Skip{"B is not INT32 (ONNX QLinearConv: B is int32)"};
        if (static_shape(node, inputs[8], "B") != std::vector<std::int64_t>{m}) throw Skip{"B's shape is not [M]"};
    }
    q.src_scale = static_cast<float>(one_value(node, inputs[1], "x_scale"));
    q.src_zero_point = zero_point_value(node, inputs[2], "x_zero_point");
    const std::vector<double> w_scales = per_channel_values(node, inputs[4], "w_scale", m);
    if (w_scales.size() == 1) {
        q.weights_scale = static_cast<float>(w_scales.front());
    } else {  // one per output channel, carried in the descriptor
        q.per_channel_scales = true;
        for (double v : w_scales) q.channel_scales.push_back(static_cast<float>(v));
    }
    q.weights_zero_point = zero_point_value(node, inputs[5], "w_zero_point", m);
    q.dst_scale = static_cast<float>(one_value(node, inputs[6], "y_scale"));
    q.dst_zero_point = zero_point_value(node, inputs[7], "y_zero_point");
    q.dst_min = lowest(q.dst), q.dst_max = highest(q.dst);
    if (q.dst == IntegerType::s32) throw Skip{"y is INT32: ONNX QLinearConv's y is UINT8 or INT8"};
    return quantized_entry(q, case_name, padding);
}

SuiteEntry conv_integer_entry(const json& node, const std::string& case_name) {
    const auto inputs = node.at("inputs").get<std::vector<std::string>>();
    if (inputs.size() < 2 || inputs.size() > 4 || inputs[0].empty() || inputs[1].empty())
        throw Skip{"ONNX ConvInteger has the inputs x, w and optional x_zero_point, w_zero_point; the node has " +
                   std::to_string(inputs.size())};
    dialects::PaddingRequest padding{};
    QuantizedDescriptor q;
    q.conv = integer_geometry(node, "ConvInteger", 0, 1, &padding);
    q.src = integer_type(node, inputs[0], "x");
    q.weights = integer_type(node, inputs[1], "w");
    q.dst = IntegerType::s32;
    q.dst_min = lowest(q.dst), q.dst_max = highest(q.dst);
    if (inputs.size() >= 3 && !inputs[2].empty()) q.src_zero_point = zero_point_value(node, inputs[2], "x_zero_point");
    if (inputs.size() == 4 && !inputs[3].empty())
        q.weights_zero_point = zero_point_value(node, inputs[3], "w_zero_point", q.conv.out_channels);
    return quantized_entry(q, case_name, padding);
}

// ---- ONNX QDQ: DequantizeLinear -> Conv -> [Relu | Clip ->] QuantizeLinear -----------------------------------
// What the model computes (ONNX's operator texts): DequantizeLinear "y = (x - x_zero_point) * x_scale" in float,
// a float Conv of those values (with a float bias), Relu or Clip in float, then QuantizeLinear "y = saturate((x /
// y_scale) + y_zero_point)", x / y_scale "rounding to nearest ties to even": one quantized convolution whose sum is an
// f32 sum, the general output with acc=f32 (docs/quantized.md). Read only where every piece is that; else skipped.

bool is_onnx_op(const json& n, const char* op) {
    const std::string domain = n.value("domain", "");
    return n.value("op_type", "") == op && (domain.empty() || domain == "ai.onnx");
}

// A Conv whose X or W is written by a DequantizeLinear: read as a QDQ convolution, or skipped with the reason.
bool qdq_candidate(const json& node) {
    if (!node.contains("producers")) return false;
    const auto inputs = node.at("inputs").get<std::vector<std::string>>();
    const json& producers = node["producers"];
    for (std::size_t i = 0; i < std::min<std::size_t>(inputs.size(), 2); ++i)
        if (producers.contains(inputs[i]) && is_onnx_op(producers[inputs[i]], "DequantizeLinear")) return true;
    return false;
}

// The axis attribute of a DequantizeLinear or QuantizeLinear (ONNX's default 1), the only one read.
std::int64_t quantize_axis(const json& n, const std::string& what) {
    std::int64_t axis = 1;
    for (const auto& [name, a] : n.at("attributes").items()) {
        if (name != "axis" || a.value("type", "") != "INT" || !a.contains("value"))
            throw Skip{what + " has the attribute '" + name + "': convcheck reads axis only (per-tensor and per-axis "
                       "quantization)"};
        axis = a["value"].get<std::int64_t>();
    }
    return axis;
}

// The values of a scale or zero point of node n: an initializer's; a FLOAT one for a scale.
std::vector<double> constant_values(const json& n, const std::string& name, const std::string& role, bool scale) {
    const json& tensors = n.at("tensors");
    if (!tensors.contains(name) || !tensors[name].value("initializer", false) || !tensors[name].contains("values"))
        throw Skip{role + " (" + name + ") is not an initializer of the model: convcheck reads scales and zero points "
                   "as constants"};
    if (scale && tensors[name].value("elem_type", json()).dump() != "\"FLOAT\"")
        throw Skip{role + " is " + tensors[name]["elem_type"].dump() + ": the general output's bound is f32's (FLOAT)"};
    return tensors[name]["values"].get<std::vector<double>>();
}

bool all_equal(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

std::int32_t integer_zero_point(double v, const std::string& role) {
    if (v != std::floor(v) || std::fabs(v) > 1e9) throw Skip{role + " is not an integer"};
    return static_cast<std::int32_t>(v);
}

// The DequantizeLinear that writes the Conv's X or W: its integer type, its scales (one; for W also one per output
// channel, axis 0, of `channels`) and its zero point.
struct Dequantized {
    IntegerType type = IntegerType::u8;
    std::vector<double> scales;
    std::int32_t zero_point = 0;
};

Dequantized dequantized_input(const json& conv, const std::string& name, const std::string& role, std::int64_t channels,
                              std::size_t rank) {
    const json& producers = conv.at("producers");
    if (!producers.contains(name) || !is_onnx_op(producers[name], "DequantizeLinear"))
        throw Skip{"QDQ: the Conv's " + role + " is not the output of a DequantizeLinear (" +
                   (producers.contains(name) ? "it is " + producers[name].value("op_type", "?") + "'s"
                                             : std::string("a graph input or initializer")) +
                   "): not one quantized convolution"};
    const json& dq = producers[name];
    const std::string what = "QDQ: " + role + "'s DequantizeLinear";
    const auto in = dq.at("inputs").get<std::vector<std::string>>();
    if (in.size() < 2 || in[0].empty() || in[1].empty()) throw Skip{what + " has no x or no x_scale"};
    Dequantized r;
    r.type = integer_type(dq, in[0], what + "'s x");
    if (r.type == IntegerType::s32) throw Skip{what + "'s x is INT32: a quantized convolution's X and W are UINT8 or INT8"};
    if (role == "W" && !dq.at("tensors")[in[0]].value("initializer", false))
        throw Skip{what + "'s x (the quantized weights) is not an initializer of the model"};
    std::int64_t axis = quantize_axis(dq, what);
    if (axis < 0) axis += static_cast<std::int64_t>(rank);
    const std::vector<double> scales = constant_values(dq, in[1], what + "'s x_scale", true);
    const bool per_axis = scales.size() > 1;
    if (per_axis && role == "X")
        throw Skip{what + "'s x_scale has " + std::to_string(scales.size()) + " values (per axis " + std::to_string(axis) +
                   "): a qconv: descriptor has one src scale"};
    if (per_axis && (axis != 0 || static_cast<std::int64_t>(scales.size()) != channels))
        throw Skip{what + "'s x_scale has " + std::to_string(scales.size()) + " values on axis " + std::to_string(axis) +
                   ": the weights' scales are one, or one per output channel (axis 0, " + std::to_string(channels) + ")"};
    r.scales = all_equal(scales) ? std::vector<double>{scales.front()} : scales;
    if (in.size() >= 3 && !in[2].empty()) {
        if (integer_type(dq, in[2], what + "'s x_zero_point") != r.type)
            throw Skip{what + "'s x_zero_point and x have different types (ONNX: one type)"};
        const std::vector<double> zero_points = constant_values(dq, in[2], what + "'s x_zero_point", false);
        if (zero_points.empty() || !all_equal(zero_points))
            throw Skip{what + "'s x_zero_point differs per channel: a qconv: descriptor takes one " +
                       (role == "X" ? "src" : "weights") + " zero point here"};
        r.zero_point = integer_zero_point(zero_points.front(), what + "'s x_zero_point");
    }
    return r;
}

// The one node that reads output `out` of node n, which must not be an output of the graph.
const json& only_reader(const json& n, const std::string& out, const std::string& what) {
    if (!n.at("graph_outputs").empty())
        throw Skip{"QDQ: " + what + "'s output " + out + " is also an output of the graph: the model gives the float "
                   "value, not one quantized convolution"};
    const json& readers = n.at("consumers").at(out);
    if (readers.size() != 1) {
        std::string ops;
        for (const json& r : readers) ops += (ops.empty() ? "" : ", ") + r.value("op_type", "?");
        throw Skip{"QDQ: " + what + "'s output " + out + " is read by " + std::to_string(readers.size()) + " nodes (" +
                   ops + "): one QuantizeLinear (after at most one Relu or Clip) makes one quantized convolution"};
    }
    return readers[0];
}

// ONNX Clip's bounds: the min and max inputs (opset 11), or the attributes (opset 6); both must be given.
PostOp clip_post_op(const json& clip) {
    PostOp p;
    p.eltwise = EltwiseAlgorithm::clip;
    const auto in = clip.at("inputs").get<std::vector<std::string>>();
    const json& attributes = clip.at("attributes");
    std::optional<double> low, high;
    for (const auto& [name, a] : attributes.items()) {
        if ((name != "min" && name != "max") || a.value("type", "") != "FLOAT" || !a.contains("value"))
            throw Skip{"QDQ: Clip has the attribute '" + name + "' (convcheck reads min and max)"};
        (name == "min" ? low : high) = a["value"].get<double>();
    }
    for (std::size_t i = 1; i < in.size() && i < 3; ++i) {
        if (in[i].empty()) continue;
        const std::vector<double> v = constant_values(clip, in[i], std::string("QDQ: Clip's ") + (i == 1 ? "min" : "max"), true);
        if (v.size() != 1) throw Skip{"QDQ: Clip's bounds are one value each"};
        (i == 1 ? low : high) = v.front();
    }
    if (!low || !high)
        throw Skip{"QDQ: Clip without a min or a max: a clip post-op has both bounds (a Relu is read as relu)"};
    p.alpha = static_cast<float>(*low), p.beta = static_cast<float>(*high);
    return p;
}

SuiteEntry qdq_entry(const json& node, const std::string& case_name) {
    const auto inputs = node.at("inputs").get<std::vector<std::string>>();
    if (inputs.size() < 2 || inputs.size() > 3 || inputs[0].empty() || inputs[1].empty())
        throw Skip{"ONNX Conv has the inputs X, W and an optional B; the node has " + std::to_string(inputs.size())};
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (!inputs[i].empty() && element_type(node, inputs[i], i == 0 ? "X" : i == 1 ? "W" : "B") != DataType::f32)
            throw Skip{"QDQ: the Conv is not FLOAT: the general output's bound is f32's"};
    dialects::PaddingRequest padding{};
    QuantizedDescriptor q;
    q.conv = integer_geometry(node, "Conv", 0, 1, &padding);
    const std::int64_t m = q.conv.out_channels;
    const std::size_t rank = static_cast<std::size_t>(q.conv.rank) + 2;
    const Dequantized x = dequantized_input(node, inputs[0], "X", 1, rank);
    const Dequantized w = dequantized_input(node, inputs[1], "W", m, rank);
    q.src = x.type, q.src_scale = static_cast<float>(x.scales.front()), q.src_zero_point = x.zero_point;
    q.weights = w.type, q.weights_zero_point = w.zero_point;
    if (w.scales.size() == 1) {
        q.weights_scale = static_cast<float>(w.scales.front());
    } else {
        q.per_channel_scales = true;
        for (double v : w.scales) q.channel_scales.push_back(static_cast<float>(v));
    }
    // B: a float tensor of shape [M] (an initializer, or a DequantizeLinear's output): an f32 bias (bdt=f32); its
    // values, like every tensor's, are the case's own
    q.conv.has_bias = q.f32_bias = inputs.size() == 3 && !inputs[2].empty();
    if (q.conv.has_bias && static_shape(node, inputs[2], "B") != std::vector<std::int64_t>{m})
        throw Skip{"B's shape is not [M] = [" + std::to_string(m) + "]"};
    // Conv -> [Relu | Clip ->] QuantizeLinear, each output read by the next node only
    const auto output_of = [](const json& n) {
        const auto outs = n.at("outputs").get<std::vector<std::string>>();
        if (outs.empty() || outs[0].empty()) throw Skip{"QDQ: " + n.value("op_type", "?") + " has no output"};
        return outs[0];
    };
    const json* next = &only_reader(node, output_of(node), "the Conv");
    if (is_onnx_op(*next, "Relu") || is_onnx_op(*next, "Clip")) {
        q.conv.post_ops.push_back(is_onnx_op(*next, "Relu") ? PostOp{} : clip_post_op(*next));
        next = &only_reader(*next, output_of(*next), next->value("op_type", ""));
    }
    if (!is_onnx_op(*next, "QuantizeLinear"))
        throw Skip{"QDQ: the Conv's output goes to " + next->value("op_type", "?") + ", not to QuantizeLinear (after at "
                   "most one Relu or Clip): not one quantized convolution"};
    const json& ql = *next;
    const std::string what = "QDQ: the QuantizeLinear";
    const auto qin = ql.at("inputs").get<std::vector<std::string>>();
    if (qin.size() < 2 || qin[1].empty()) throw Skip{what + " has no y_scale"};
    quantize_axis(ql, what);
    const std::vector<double> y_scales = constant_values(ql, qin[1], what + "'s y_scale", true);
    if (y_scales.size() != 1 && !all_equal(y_scales))
        throw Skip{what + "'s y_scale differs per channel: a qconv: descriptor has one dst scale"};
    q.dst_scale = static_cast<float>(y_scales.front());
    const bool has_zero_point = qin.size() >= 3 && !qin[2].empty();
    const std::string y = output_of(ql);
    const bool y_typed = ql.at("tensors").contains(y) && ql["tensors"][y].at("elem_type").is_string();
    q.dst = y_typed ? integer_type(ql, y, what + "'s y")
                    : has_zero_point ? integer_type(ql, qin[2], what + "'s y_zero_point") : IntegerType::u8;
    if (q.dst == IntegerType::s32) throw Skip{what + "'s y is INT32: a quantized dst here is UINT8 or INT8"};
    if (has_zero_point) {
        const std::vector<double> zero_points = constant_values(ql, qin[2], what + "'s y_zero_point", false);
        if (zero_points.empty() || !all_equal(zero_points))
            throw Skip{what + "'s y_zero_point differs per channel (its y_scale is one)"};
        q.dst_zero_point = integer_zero_point(zero_points.front(), what + "'s y_zero_point");
    }
    q.dst_min = lowest(q.dst), q.dst_max = highest(q.dst);
    q.f32_accumulation = true;
    return quantized_entry(q, case_name, padding);
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
