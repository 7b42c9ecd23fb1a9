// ONNX model nodes -> cases (suite_onnx.hpp): each rule on converter output written by hand, so that
// every skip reason and every descriptor is checked without python3-onnx (the end-to-end test with
// real models is conformance/formats/tests/onnx_suite_check.py).
#include <gtest/gtest.h>

#include "convcheck/runner/suite_onnx.hpp"

namespace convcheck::runner {
namespace {

using nlohmann::json;

json tensor(const std::string& type, json shape) { return {{"elem_type", type}, {"shape", std::move(shape)}}; }

// A Conv node X [1, 2, 7, 7], W [4, 2, 3, 3] (optionally B [4]), Y with no known shape.
json conv_node(json attributes = json::object(), bool bias = false) {
    json node = {{"graph", "main"},
                 {"index", 0},
                 {"name", "conv1"},
                 {"op_type", "Conv"},
                 {"domain", ""},
                 {"inputs", bias ? json{"x", "w", "b"} : json{"x", "w"}},
                 {"outputs", {"y"}},
                 {"text", "%y = Conv(%x, %w)"},
                 {"attributes", std::move(attributes)},
                 {"tensors", {{"x", tensor("FLOAT", {1, 2, 7, 7})}, {"w", tensor("FLOAT", {4, 2, 3, 3})}}}};
    if (bias) node["tensors"]["b"] = tensor("FLOAT", {4});
    return node;
}

json ints(std::vector<std::int64_t> v) { return {{"type", "INTS"}, {"value", v}}; }

OnnxModelSuite read_nodes(std::vector<json> nodes) {
    json doc = {{"format", "convcheck-onnx-conv-nodes"}, {"format_version", 1}, {"nodes", nodes}};
    return onnx_suite_from_nodes(doc, "m.onnx");
}

// The one node's descriptor, or its skip reason prefixed with "skipped: ".
std::string outcome(const json& node) {
    const OnnxModelSuite s = read_nodes({node});
    if (!s.skipped.empty()) return "skipped: " + s.skipped[0].reason;
    return s.entries.at(0).descriptor;
}

TEST(SuiteOnnx, ConvNodesAreReadByTheOnnxDialect) {
    EXPECT_EQ(outcome(conv_node()), "conv:n=1,c=2,o=4,g=1,in=7x7,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(outcome(conv_node({{"auto_pad", {{"type", "STRING"}, {"value", "SAME_UPPER"}}}, {"strides", ints({2, 2})}},
                                true)),
              "conv:n=1,c=2,o=4,g=1,in=7x7,k=3x3,s=2x2,d=1x1,pb=1x1,pe=1x1,bias=1,dt=f32,data=ncx,wei=oix");
    json grouped = conv_node({{"group", {{"type", "INT"}, {"value", 2}}}, {"pads", ints({0, 1, 2, 3})}});
    grouped["tensors"]["w"] = tensor("FLOAT", {4, 1, 3, 3});
    EXPECT_EQ(outcome(grouped), "conv:n=1,c=2,o=4,g=2,in=7x7,k=3x3,s=1x1,d=1x1,pb=0x1,pe=2x3,bias=0,dt=f32,data=ncx,wei=oix");
    json half = conv_node({}, true);
    for (const char* t : {"x", "w", "b"}) half["tensors"][t]["elem_type"] = "FLOAT16";
    EXPECT_EQ(outcome(half), "conv:n=1,c=2,o=4,g=1,in=7x7,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=1,dt=f16,data=ncx,wei=oix");
    json bf = conv_node();
    for (const char* t : {"x", "w"}) bf["tensors"][t]["elem_type"] = "BFLOAT16";
    EXPECT_NE(outcome(bf).find("dt=bf16"), std::string::npos);

    const OnnxModelSuite s = read_nodes({conv_node()});
    ASSERT_EQ(s.entries.size(), 1u);
    EXPECT_EQ(s.entries[0].name, "m.onnx/conv1");
    EXPECT_EQ(s.entries[0].dialect, "onnx");
    EXPECT_EQ(s.entries[0].padding, "explicit");
    EXPECT_EQ(s.entries[0].modes, "b");
}

TEST(SuiteOnnx, BiasIsTheThirdNonEmptyInput) {
    json omitted = conv_node();
    omitted["inputs"] = {"x", "w", ""};  // ONNX's way of leaving an optional input out
    EXPECT_NE(outcome(omitted).find("bias=0"), std::string::npos);
    EXPECT_NE(outcome(conv_node({}, true)).find("bias=1"), std::string::npos);
    json wrong = conv_node({}, true);
    wrong["tensors"]["b"]["shape"] = {2, 2};
    EXPECT_EQ(outcome(wrong), "skipped: B's shape [2, 2] is not [M] = [4]");
}

TEST(SuiteOnnx, NamesComeFromTheNodeAndItsGraph) {
    json unnamed = conv_node();
    unnamed["name"] = "";
    unnamed["index"] = 5;
    json nested = conv_node();
    nested["graph"] = "main/if_0.then_branch";
    const OnnxModelSuite s = read_nodes({unnamed, nested});
    ASSERT_EQ(s.entries.size(), 2u);
    EXPECT_EQ(s.entries[0].name, "m.onnx/#5");
    EXPECT_EQ(s.entries[1].name, "m.onnx/if_0.then_branch/conv1");
}

// A QLinearConv node (X u8 [1, 2, 7, 7], W s8 [4, 2, 3, 3], the scales and zero points initializers with values).
json qlinear_node(json w_scale = json::array({0.25}), json x_scale = json::array({0.5})) {
    json node = conv_node({{"pads", ints({1, 1, 1, 1})}});
    node["op_type"] = "QLinearConv";
    node["inputs"] = {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"};
    node["tensors"]["x"]["elem_type"] = "UINT8";
    node["tensors"]["w"]["elem_type"] = "INT8";
    const auto constant = [](const char* type, json values) {
        json t = tensor(type, values.size() == 1 ? json::array() : json::array({values.size()}));
        t["values"] = std::move(values);
        return t;
    };
    node["tensors"]["xs"] = constant("FLOAT", std::move(x_scale));
    node["tensors"]["xz"] = constant("UINT8", {3});
    node["tensors"]["ws"] = constant("FLOAT", std::move(w_scale));
    node["tensors"]["wz"] = constant("INT8", {0});
    node["tensors"]["ys"] = constant("FLOAT", {2.0});
    node["tensors"]["yz"] = constant("UINT8", {128});
    return node;
}

TEST(SuiteOnnx, QLinearConvAndConvIntegerAreQuantizedCasesWithTheModelsScales) {
    EXPECT_EQ(outcome(qlinear_node()), "qconv:n=1,c=2,o=4,g=1,in=7x7,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,data=ncx,"
                                       "wei=oix,dt=u8:s8:u8,ssc=0.5,szp=3,wsc=0.25,wzp=0,dsc=2,dzp=128");
    EXPECT_EQ(read_nodes({qlinear_node()}).entries.at(0).modes, "be");  // dyadic scales: exact mode too
    EXPECT_EQ(read_nodes({qlinear_node({0.25}, {0.1})}).entries.at(0).modes, "b");  // 0.1: bound mode only
    // one w_scale per output channel: the same value four times is one scale; differing values are carried
    EXPECT_NE(outcome(qlinear_node({0.25, 0.25, 0.25, 0.25})).find("wsc=0.25,"), std::string::npos);
    EXPECT_NE(outcome(qlinear_node({0.25, 0.5, 0.25, 0.125})).find(",wsc=0.25:0.5:0.25:0.125,"), std::string::npos);
    json per_channel_zero_point = qlinear_node();
    per_channel_zero_point["tensors"]["wz"]["values"] = {0, 1, 0, 0};
    per_channel_zero_point["tensors"]["wz"]["shape"] = {4};
    // per output channel (ONNX: "a per-tensor/layer or per output channel quantization"): carried, ABI 1.8
    EXPECT_NE(outcome(per_channel_zero_point).find(",wzp=0:1:0:0,"), std::string::npos) << outcome(per_channel_zero_point);
    per_channel_zero_point["tensors"]["wz"]["values"] = {2, 2, 2, 2};  // four equal values: one
    EXPECT_NE(outcome(per_channel_zero_point).find(",wzp=2,"), std::string::npos) << outcome(per_channel_zero_point);
    per_channel_zero_point["tensors"]["wz"]["values"] = {0, 1, 0};  // neither one nor M
    EXPECT_EQ(outcome(per_channel_zero_point), "skipped: w_zero_point has 3 values: one, or one per output channel");
    json runtime_scale = qlinear_node();
    runtime_scale["tensors"]["xs"].erase("values");
    EXPECT_EQ(outcome(runtime_scale),
              "skipped: x_scale is not an initializer of the model (convcheck reads scales and zero points as constants)");
    json integer = conv_node();
    integer["op_type"] = "ConvInteger";
    integer["tensors"]["x"]["elem_type"] = "UINT8";
    integer["tensors"]["w"]["elem_type"] = "UINT8";
    EXPECT_EQ(outcome(integer), "qconv:n=1,c=2,o=4,g=1,in=7x7,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=0,data=ncx,"
                                "wei=oix,dt=u8:u8:s32,ssc=1,szp=0,wsc=1,wzp=0,dsc=1,dzp=0");
    json floating = conv_node();
    floating["op_type"] = "ConvInteger";
    EXPECT_EQ(outcome(floating),
              "skipped: x has the element type FLOAT: a quantized convolution's tensors are UINT8, INT8 or INT32");
}

TEST(SuiteOnnx, OtherOperatorsAreSkippedWithTheirReason) {
    json fused = conv_node();
    fused["domain"] = "com.microsoft";
    fused["op_type"] = "FusedConv";
    EXPECT_EQ(outcome(fused), "skipped: operator com.microsoft.FusedConv is not ONNX Conv (domain com.microsoft)");
    json in_function = conv_node();
    in_function["function"] = "local.block";
    EXPECT_EQ(outcome(in_function),
              "skipped: inside the model-local function local.block: its tensors' shapes depend on each call");
}

// A ConvTranspose node X [1, 2, 4, 4], W [2, 3, 3, 3] ([C, M/group, k...]), optionally B [3].
json conv_transpose_node(json attributes = json::object(), bool bias = false) {
    json node = conv_node(std::move(attributes), bias);
    node["op_type"] = "ConvTranspose";
    node["tensors"]["x"] = tensor("FLOAT", {1, 2, 4, 4});
    node["tensors"]["w"] = tensor("FLOAT", {2, 3, 3, 3});
    if (bias) node["tensors"]["b"] = tensor("FLOAT", {3});
    return node;
}

TEST(SuiteOnnx, ConvTransposeNodesAreReadByTheOnnxTransposedDialect) {
    // out = 2 * (4 - 1) + 1 + 3 - 1 - 1 = 8
    EXPECT_EQ(outcome(conv_transpose_node({{"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})},
                                           {"output_padding", ints({1, 1})}}, true)),
              "deconv:n=1,c=2,o=3,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=1x1,pe=1x1,op=1x1,bias=1,dt=f32,data=ncx,wei=oix");
    // output_shape: total_padding = 2 * 3 + 3 - 8 = 1, NOTSET puts the extra 1 at the beginning (pads ignored)
    json shaped = conv_transpose_node({{"strides", ints({2, 2})}, {"output_shape", ints({8, 8})}});
    shaped["tensors"]["y"] = tensor("FLOAT", {1, 3, 8, 8});
    EXPECT_EQ(outcome(shaped), "deconv:n=1,c=2,o=3,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=1x1,pe=0x0,op=0x0,bias=0,dt=f32,data=ncx,wei=oix");
    // W [C, M/group, k...]: group 2 gives M = 3 * 2; SAME_UPPER at stride 1: out 4, total_padding 2 -> 1/1
    json grouped = conv_transpose_node({{"group", {{"type", "INT"}, {"value", 2}}}, {"auto_pad", {{"type", "STRING"}, {"value", "SAME_UPPER"}}}});
    EXPECT_EQ(outcome(grouped), "deconv:n=1,c=2,o=6,g=2,in=4x4,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,op=0x0,bias=0,dt=f32,data=ncx,wei=oix");
    const OnnxModelSuite s = read_nodes({conv_transpose_node()});
    ASSERT_EQ(s.entries.size(), 1u);
    EXPECT_EQ(s.entries[0].dialect, "onnx_transpose");
    EXPECT_EQ(s.entries[0].padding, "explicit");
}

TEST(SuiteOnnx, ConvTransposeNodesTheDialectRefusesAreSkipped) {
    EXPECT_EQ(outcome(conv_transpose_node({{"strides", ints({2, 2})}, {"output_padding", ints({2, 0})}})),
              "skipped: ONNX ConvTranspose refuses it: output_padding = 2x0: Each padding value in \"output_padding\" must be "
              "less than the corresponding stride/dilation dimension (axis 0: output_padding 2, stride 2, dilation 1)");
    EXPECT_EQ(outcome(conv_transpose_node({{"auto_pad", {{"type", "STRING"}, {"value", "VALID"}}}, {"pads", ints({1, 1, 1, 1})}})),
              "skipped: ONNX ConvTranspose refuses it: pads = 1x1x1x1: This attribute cannot be used simultaneously with "
              "auto_pad attribute.");
    EXPECT_EQ(outcome(conv_transpose_node({{"output_size", ints({8, 8})}})),
              "skipped: attribute 'output_size' is not an attribute of ONNX ConvTranspose (auto_pad, dilations, group, "
              "kernel_shape, output_padding, output_shape, pads, strides)");
    json channels = conv_transpose_node();
    channels["tensors"]["w"]["shape"] = {3, 2, 3, 3};
    EXPECT_EQ(outcome(channels), "skipped: W's shape [3, 2, 3, 3] has 3 input channels; X has 2 (ONNX ConvTranspose: W "
                                 "is [C, M/group, k...])");
    json bias = conv_transpose_node({{"group", {{"type", "INT"}, {"value", 2}}}}, true);
    EXPECT_EQ(outcome(bias), "skipped: B's shape [3] is not [M] = [6] (M = W[1] * group)");
    json disagrees = conv_transpose_node();
    disagrees["tensors"]["y"] = tensor("FLOAT", {1, 3, 7, 6});
    EXPECT_EQ(outcome(disagrees), "skipped: ONNX shape inference gives Y the shape [1, 3, 7, 6] but the ONNX transposed "
                                  "dialect reads [1, 3, 6, 6] (a disagreement to report: docs/errata.md)");
}

TEST(SuiteOnnx, ShapesAndTypesConvcheckCannotRunAreSkipped) {
    json symbolic = conv_node();
    symbolic["tensors"]["x"]["shape"] = {"N", 2, 7, 7};
    EXPECT_EQ(outcome(symbolic), "skipped: X has symbolic or unknown dimensions after ONNX shape inference (give them "
                                 "values in the model to run it)");
    json unknown = conv_node();
    unknown["tensors"]["w"]["shape"] = {4, 2, nullptr, 3};
    EXPECT_NE(outcome(unknown).find("W has symbolic or unknown dimensions"), std::string::npos);
    json no_rank = conv_node();
    no_rank["tensors"]["x"]["shape"] = nullptr;
    EXPECT_EQ(outcome(no_rank), "skipped: X has no known shape, even after ONNX shape inference");
    // the converter's shape evaluation says why a shape is unknown (formats/onnx_shapes.py): its words are the reason
    json data_dependent = conv_node();
    data_dependent["tensors"]["x"]["shape"] = {1, nullptr, nullptr, 6};
    data_dependent["tensors"]["x"]["unknown_because"] = "ONNX shape inference of NonZero node 'nz' leaves dimensions";
    EXPECT_EQ(outcome(data_dependent),
              "skipped: X has unknown dimensions [1, ?, ?, 6]: ONNX shape inference of NonZero node 'nz' leaves dimensions");
    json no_rule = conv_node();
    no_rule["tensors"]["x"]["shape"] = nullptr;
    no_rule["tensors"]["x"]["unknown_because"] = "Mystery node 'm': ONNX has no shape rule for it";
    EXPECT_EQ(outcome(no_rule), "skipped: X has no known shape: Mystery node 'm': ONNX has no shape rule for it");
    json missing = conv_node();
    missing["tensors"].erase("w");
    EXPECT_EQ(outcome(missing), "skipped: W has no known element type");
    json dbl = conv_node();
    dbl["tensors"]["x"]["elem_type"] = "DOUBLE";
    EXPECT_EQ(outcome(dbl), "skipped: X has the element type DOUBLE: convcheck runs FLOAT, FLOAT16 and BFLOAT16 (f32, f16, bf16)");
    json mixed = conv_node();
    mixed["tensors"]["w"]["elem_type"] = "FLOAT16";
    EXPECT_EQ(outcome(mixed), "skipped: W and X have different element types (ONNX Conv: one type T)");
    json four_d = conv_node();
    four_d["tensors"]["x"]["shape"] = {1, 2, 3, 3, 3, 3};
    four_d["tensors"]["w"]["shape"] = {1, 2, 1, 1, 1, 1};
    EXPECT_EQ(outcome(four_d), "skipped: X is 6-D [1, 2, 3, 3, 3, 3]: convcheck runs 1-D to 3-D convolutions (X and W 3-D to 5-D)");
    json w_rank = conv_node();
    w_rank["tensors"]["w"]["shape"] = {4, 2, 3};
    EXPECT_NE(outcome(w_rank).find("skipped: W is 3-D [4, 2, 3] and X is 4-D"), std::string::npos);
    json channels = conv_node();
    channels["tensors"]["w"]["shape"] = {4, 3, 3, 3};
    EXPECT_EQ(outcome(channels), "skipped: W's shape [4, 3, 3, 3] has 3 input channels per group; with group = 1 X needs "
                                 "3 channels, not 2 (ONNX Conv: W is [M, C/group, k...])");
    json one_input = conv_node();
    one_input["inputs"] = {"x"};
    EXPECT_EQ(outcome(one_input), "skipped: ONNX Conv needs the inputs X and W; the node has 1");
}

TEST(SuiteOnnx, AttributesAreConvsOwnWithTheirTypes) {
    EXPECT_EQ(outcome(conv_node({{"k", ints({3, 3})}})),
              "skipped: attribute 'k' is not an attribute of ONNX Conv (auto_pad, dilations, group, kernel_shape, pads, "
              "strides)");
    EXPECT_EQ(outcome(conv_node({{"strides", {{"type", "FLOATS"}, {"value", {2.0, 2.0}}}}})),
              "skipped: attribute 'strides' has the type FLOATS; ONNX Conv defines it as INTS");
    EXPECT_EQ(outcome(conv_node({{"strides", ints({})}})),
              "skipped: attribute 'strides' is an empty list (ONNX: 'Attribute strides has incorrect size')");
    EXPECT_EQ(outcome(conv_node({{"group", {{"type", "INT"}, {"ref_attr_name", "g"}}}})),
              "skipped: attribute 'group' refers to the function attribute 'g'");
}

TEST(SuiteOnnx, TheDialectsRefusalsAndEmptyOutputsAreSkipped) {
    EXPECT_EQ(outcome(conv_node({{"auto_pad", {{"type", "STRING"}, {"value", "SAME_UPPER"}}}, {"pads", ints({1, 1, 1, 1})}})),
              "skipped: ONNX Conv refuses it: pads = 1x1x1x1: This attribute cannot be used simultaneously with auto_pad "
              "attribute.");
    EXPECT_EQ(outcome(conv_node({{"kernel_shape", ints({2, 2})}})),
              "skipped: ONNX Conv refuses it: kernel_shape = 2x2: disagrees with the spatial shape of W (k=3x3) "
              "[convcheck's words]");
    json empty = conv_node({{"auto_pad", {{"type", "STRING"}, {"value", "VALID"}}}});
    empty["tensors"]["x"]["shape"] = {1, 2, 2, 7};
    EXPECT_EQ(outcome(empty), "skipped: ONNX gives an empty output (size 0 on an axis): there is no convolution to run");
}

TEST(SuiteOnnx, ShapeInferencesOutputMustBeTheDialects) {
    json agrees = conv_node({{"strides", ints({2, 2})}});
    agrees["tensors"]["y"] = tensor("FLOAT", {1, 4, 3, 3});
    EXPECT_EQ(outcome(agrees).substr(0, 5), "conv:");
    json partly_known = conv_node();
    partly_known["tensors"]["y"] = tensor("FLOAT", {1, 4, "H", 5});  // nothing to compare: no verdict
    EXPECT_EQ(outcome(partly_known).substr(0, 5), "conv:");
    json disagrees = conv_node();
    disagrees["tensors"]["y"] = tensor("FLOAT", {1, 4, 6, 5});
    EXPECT_EQ(outcome(disagrees), "skipped: ONNX shape inference gives Y the shape [1, 4, 6, 5] but the ONNX dialect reads "
                                  "[1, 4, 5, 5] (a disagreement to report: docs/errata.md)");
}

TEST(SuiteOnnx, SkipsNameTheNodeAndShowItsTensors) {
    json dbl = conv_node();
    dbl["index"] = 3;
    dbl["tensors"]["x"]["elem_type"] = "DOUBLE";
    const OnnxModelSuite s = read_nodes({conv_node(), dbl});
    ASSERT_EQ(s.entries.size(), 1u);
    ASSERT_EQ(s.skipped.size(), 1u);
    EXPECT_EQ(s.skipped[0].source, "m.onnx: graph main, node #3 'conv1'");
    EXPECT_EQ(s.skipped[0].input, "%y = Conv(%x, %w)  with w: FLOAT [4, 2, 3, 3], x: DOUBLE [1, 2, 7, 7]");
}

TEST(SuiteOnnx, AnythingButTheConvertersFormatIsRefused) {
    EXPECT_THROW(onnx_suite_from_nodes(json::array(), "m.onnx"), std::invalid_argument);
    EXPECT_THROW(onnx_suite_from_nodes(json{{"format", "convcheck-onnx-conv-nodes"}, {"format_version", 2},
                                            {"nodes", json::array()}},
                                       "m.onnx"),
                 std::invalid_argument);
    json broken = conv_node();
    broken.erase("tensors");
    EXPECT_THROW(read_nodes({broken}), std::invalid_argument);
}

}  // namespace
}  // namespace convcheck::runner
