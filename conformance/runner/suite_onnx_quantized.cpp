// ONNX integer convolutions -> qconv: cases (suite_onnx.cpp's header lists the rules): QLinearConv, ConvInteger and
// the QDQ chain DequantizeLinear -> Conv -> [Relu | Clip ->] QuantizeLinear.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "convcheck/reference/dialects/onnx.hpp"
#include "quantized/operation.hpp"
#include "suite_onnx_nodes.hpp"

namespace convcheck::runner::detail {

namespace {

using nlohmann::json;
namespace dialects = reference::dialects;

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

// w_zero_point of QLinearConv and ConvInteger: "It could be a scalar or a 1-D tensor, which means a per-tensor/layer or
// per output channel quantization. If it's a 1-D tensor, its number of elements should be equal to the number of
// output channels (M)" (ONNX's nn/defs.cc): one value (or M equal ones) is wzp=v, M values wzp=a:b:... (ABI 1.8).
void read_weights_zero_points(const json& node, const std::string& name, std::int64_t m, QuantizedDescriptor* q) {
    const std::vector<double> v = per_channel_values(node, name, "w_zero_point", m);
    std::vector<std::int32_t> points;
    for (double z : v) {
        if (z != std::floor(z) || std::fabs(z) > 1e9) throw Skip{"w_zero_point is not an integer"};
        points.push_back(static_cast<std::int32_t>(z));
    }
    if (points.size() == 1) {
        q->weights_zero_point = points.front();
    } else {
        q->per_channel_weights_zero_points = true;
        q->weights_zero_points = points;
    }
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

}  // namespace

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
    read_weights_zero_points(node, inputs[5], m, &q);
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
        read_weights_zero_points(node, inputs[3], q.conv.out_channels, &q);
    return quantized_entry(q, case_name, padding);
}

namespace {

// ---- ONNX QDQ: DequantizeLinear -> Conv -> [Relu | Clip ->] QuantizeLinear -----------------------------------
// What the model computes (ONNX's operator texts): DequantizeLinear "y = (x - x_zero_point) * x_scale" in float,
// a float Conv of those values (with a float bias), Relu or Clip in float, then QuantizeLinear "y = saturate((x /
// y_scale) + y_zero_point)", x / y_scale "rounding to nearest ties to even": one quantized convolution whose sum is an
// f32 sum, the general output with acc=f32 (docs/quantized.md). Read only where every piece is that; else skipped.

bool is_onnx_op(const json& n, const char* op) {
    const std::string domain = n.value("domain", "");
    return n.value("op_type", "") == op && (domain.empty() || domain == "ai.onnx");
}

}  // namespace

// A Conv whose X or W is written by a DequantizeLinear: read as a QDQ convolution, or skipped with the reason.
bool qdq_candidate(const json& node) {
    if (!node.contains("producers")) return false;
    const auto inputs = node.at("inputs").get<std::vector<std::string>>();
    const json& producers = node["producers"];
    for (std::size_t i = 0; i < std::min<std::size_t>(inputs.size(), 2); ++i)
        if (producers.contains(inputs[i]) && is_onnx_op(producers[inputs[i]], "DequantizeLinear")) return true;
    return false;
}

namespace {

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
    std::vector<std::int32_t> zero_points;  // W's per output channel (axis 0), when they differ; else empty
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
        // DequantizeLinear: "The scale factor and zero point must have same shape": per axis with the scales, W's
        // then one per output channel (axis 0, checked above): per-channel weights zero points (ABI 1.8)
        const bool per_channel = role == "W" && per_axis && zero_points.size() == scales.size();
        if (zero_points.empty() || (!all_equal(zero_points) && !per_channel))
            throw Skip{what + "'s x_zero_point differs per channel: a qconv: descriptor takes one " +
                       (role == "X" ? "src zero point" : "weights zero point, or one per output channel with the scales")};
        r.zero_point = integer_zero_point(zero_points.front(), what + "'s x_zero_point");
        if (!all_equal(zero_points)) {
            r.zero_point = 0;
            for (double z : zero_points) r.zero_points.push_back(integer_zero_point(z, what + "'s x_zero_point"));
        }
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

}  // namespace

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
    if (!w.zero_points.empty()) q.per_channel_weights_zero_points = true, q.weights_zero_points = w.zero_points;
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
    // y_scale and y_zero_point: one value each (per tensor), or per axis: "a 1-D tensor for per-axis quantization"
    // along `axis` (default 1), which for the Conv's output [N, M, spatial...] must be the channel axis, 1 (or
    // 1 - rank), with M values: one dst scale and zero point per output channel. Equal values are one.
    std::int64_t axis = quantize_axis(ql, what);
    const std::int64_t given_axis = axis;
    if (axis < 0) axis += static_cast<std::int64_t>(rank);
    const std::vector<double> y_scales = constant_values(ql, qin[1], what + "'s y_scale", true);
    const bool has_zero_point = qin.size() >= 3 && !qin[2].empty();
    const std::vector<double> y_zero_points =
        has_zero_point ? constant_values(ql, qin[2], what + "'s y_zero_point", false) : std::vector<double>{0.0};
    if (y_scales.empty() || y_zero_points.empty()) throw Skip{what + "'s y_scale or y_zero_point has no values"};
    for (const auto& [values, role] : {std::pair{&y_scales, "y_scale"}, std::pair{&y_zero_points, "y_zero_point"}}) {
        if (values->size() == 1) continue;
        if (axis != 1)
            throw Skip{what + " has axis = " + std::to_string(given_axis) + " with " + std::to_string(values->size()) +
                       " " + role + " values: a per-axis output quantization is read on the channel axis only (axis 1 "
                       "of the Conv's output [N, M, spatial...], one dst scale and zero point per output channel)"};
        if (static_cast<std::int64_t>(values->size()) != m)
            throw Skip{what + "'s " + role + " has " + std::to_string(values->size()) + " values on axis 1: one, or "
                       "one per output channel (M = " + std::to_string(m) + ")"};
    }
    if (all_equal(y_scales)) {
        q.dst_scale = static_cast<float>(y_scales.front());
    } else {  // per output channel (ABI 1.9)
        for (double v : y_scales) q.dst_scales.push_back(static_cast<float>(v));
    }
    const std::string y = output_of(ql);
    const bool y_typed = ql.at("tensors").contains(y) && ql["tensors"][y].at("elem_type").is_string();
    q.dst = y_typed ? integer_type(ql, y, what + "'s y")
                    : has_zero_point ? integer_type(ql, qin[2], what + "'s y_zero_point") : IntegerType::u8;
    if (q.dst == IntegerType::s32) throw Skip{what + "'s y is INT32: a quantized dst here is UINT8 or INT8"};
    if (all_equal(y_zero_points)) {
        q.dst_zero_point = integer_zero_point(y_zero_points.front(), what + "'s y_zero_point");
    } else {  // per output channel
        q.per_channel_dst_zero_points = true;
        for (double z : y_zero_points) q.dst_zero_points.push_back(integer_zero_point(z, what + "'s y_zero_point"));
    }
    q.dst_min = lowest(q.dst), q.dst_max = highest(q.dst);
    q.f32_accumulation = true;
    return quantized_entry(q, case_name, padding);
}

}  // namespace convcheck::runner::detail
