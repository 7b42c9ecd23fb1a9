// TFLite CONV_2D / DEPTHWISE_CONV_2D int8 (tflite_int8.hpp): the descriptor each reading gives, derived by hand
// from TFLite's padding.h, kernel_util.cc and the reference kernels; the rule of each build on SPEC-NOTES §7's
// worked values; and each refusal's message.
#include "convcheck/reference/dialects/tflite_int8.hpp"
#include "convcheck/reference/quantized_output.hpp"
#include "quantized_cases.hpp"

using namespace convcheck;
using namespace convcheck::reference;
using namespace convcheck::reference::dialects;
using qcases::command;
using qcases::expect_refused;
using qcases::run;

namespace {
const char* kPerChannel =
    "op=CONV_2D c=3 o=4 in=8x9 k=3x3 padding=SAME stride_h=2 stride_w=2 input_scale=0.0625 input_zero_point=-3 "
    "filter_scale=0.25:0.125:0.375:0.0625 output_scale=0.5 output_zero_point=-10 fused_activation_function=RELU6 bias=1";
}

TEST(TfliteInt8, ConvSamePerChannelRelu6) {
    const QuantizedResult r = run("tflite", kPerChannel);
    ASSERT_TRUE(r.ok()) << r.error->message;
    // SAME: out = (8 + 2 - 1) / 2 = 4, total = (4 - 1) * 2 + 3 - 8 = 1: pad 0 before, 1 after;
    //       out = (9 + 2 - 1) / 2 = 5, total = 4 * 2 + 3 - 9 = 2: 1 and 1
    // RELU6: [max(-128, -10 + round(0 / 0.5)), min(127, -10 + round(6 / 0.5))] = [-10, 2]
    EXPECT_EQ(to_string(r.descriptor),
              "qconv:n=1,c=3,o=4,g=1,in=8x9,k=3x3,s=2x2,d=1x1,pb=0x1,pe=1x1,bias=1,data=nxc,wei=oix,dt=s8:s8:s8,ssc=0.0625,"
              "szp=-3,wsc=0.25:0.125:0.375:0.0625,wzp=0,dsc=0.5,dzp=-10,lo=-10,hi=2")
        << command("tflite", kPerChannel);
    EXPECT_EQ(r.output_size, (std::vector<std::int64_t>{4, 5}));
    EXPECT_EQ(r.rule, Requantization::double_rounding);
    // the text the descriptor prints reads back as the same descriptor
    EXPECT_EQ(parse_quantized_descriptor(to_string(r.descriptor)), r.descriptor);
}

TEST(TfliteInt8, BuildNamesTheRule) {
    const std::string base = "c=1 o=1 in=3x3 k=1x1 input_scale=0.25 filter_scale=1 output_scale=1";
    const QuantizedResult d = run("tflite", base);
    const QuantizedResult s = run("tflite", base + " TFLITE_SINGLE_ROUNDING=1");
    ASSERT_TRUE(d.ok() && s.ok());
    EXPECT_EQ(d.rule, Requantization::double_rounding);
    EXPECT_EQ(s.rule, Requantization::single_rounding);
    // SPEC-NOTES §7's worked values through the reading's descriptor and rule: M = 0.25 * 1 / 1
    const double m = output_multipliers(d.descriptor, std::vector<float>{d.descriptor.weights_scale})[0];
    EXPECT_EQ(m, 0.25);
    EXPECT_EQ(quantized_output(d.descriptor, -10, m, *d.rule), -3);  // -2.5: double rounding's ties away
    EXPECT_EQ(quantized_output(s.descriptor, -10, m, *s.rule), -2);  // single rounding's ties up
    EXPECT_EQ(quantized_output(d.descriptor, 5, 0.5, *d.rule), 3);
    EXPECT_EQ(quantized_output(d.descriptor, 11, 0.125, *d.rule), 2);  // 1.375: double rounding's first rounding carries
    EXPECT_EQ(quantized_output(s.descriptor, 11, 0.125, *s.rule), 1);
}

TEST(TfliteInt8, ActivationRanges) {
    const std::string base = "c=1 o=1 in=3x3 k=1x1 input_scale=0.015625 filter_scale=1 ";
    auto range = [&](const std::string& extra) {
        const QuantizedResult r = run("tflite", base + extra);
        EXPECT_TRUE(r.ok()) << command("tflite", base + extra);
        return std::make_pair(r.descriptor.dst_min, r.descriptor.dst_max);
    };
    using R = std::pair<std::int64_t, std::int64_t>;
    EXPECT_EQ(range("output_scale=1 output_zero_point=-10"), (R{-128, 127}));
    EXPECT_EQ(range("output_scale=1 output_zero_point=-10 fused_activation_function=RELU"), (R{-10, 127}));
    // -4 + round(-1 / 2^-6) = -68, -4 + 64 = 60
    EXPECT_EQ(range("output_scale=0.015625 output_zero_point=-4 fused_activation_function=RELU_N1_TO_1"), (R{-68, 60}));
    // round(6 / 4) = round(1.5) = 2 and round(-1 / 0.4) = round(-2.5) = -3: TfLiteRound's ties away from zero
    EXPECT_EQ(range("output_scale=4 output_zero_point=0 fused_activation_function=RELU6"), (R{0, 2}));
    EXPECT_EQ(range("output_scale=0.5 output_zero_point=1 fused_activation_function=RELU_N1_TO_1"), (R{-1, 3}));
    // exact ties: round(6 / 12) = round(0.5) = 1 and round(-1 / 2) = -1 (nearest even would give 0 for both)
    EXPECT_EQ(range("output_scale=12 output_zero_point=0 fused_activation_function=RELU6"), (R{0, 1}));
    EXPECT_EQ(range("output_scale=2 output_zero_point=1 fused_activation_function=RELU_N1_TO_1"), (R{0, 2}));
    // a range past int8 is cut to it: 100 + round(6 / 0.0625) = 196 -> 127
    EXPECT_EQ(range("output_scale=0.0625 output_zero_point=100 fused_activation_function=RELU6"), (R{100, 127}));
}

TEST(TfliteInt8, DepthwiseIsGroupedXio) {
    const std::string a = "op=DEPTHWISE_CONV_2D c=3 depth_multiplier=2 in=9x7 k=3x3 padding=VALID dilation_h_factor=2 "
                          "input_scale=0.5 filter_scale=0.5:0.25:0.125:0.75:0.375:0.0625 output_scale=1";
    const QuantizedResult r = run("tflite", a);
    ASSERT_TRUE(r.ok()) << r.error->message;
    // VALID: (9 + 1 - 5) / 1 = 5, (7 + 1 - 3) / 1 = 5
    EXPECT_EQ(to_string(r.descriptor),
              "qconv:n=1,c=3,o=6,g=3,in=9x7,k=3x3,s=1x1,d=2x1,pb=0x0,pe=0x0,bias=0,data=nxc,wei=xio,dt=s8:s8:s8,ssc=0.5,szp=0,"
              "wsc=0.5:0.25:0.125:0.75:0.375:0.0625,wzp=0,dsc=1,dzp=0")
        << command("tflite", a);
    EXPECT_EQ(r.filter_layout, "1HWO");
}

TEST(TfliteInt8, Refusals) {
    const std::string base = "c=2 o=4 in=5x5 k=3x3 input_scale=0.5 output_scale=1 ";
    expect_refused("tflite", base + "filter_scale=0.5 filter_zero_point=1", "filter_zero_point", "symmetric", false);
    expect_refused("tflite", base + "filter_scale=0.5 fused_activation_function=TANH", "fused_activation_function",
                   "CalculateActivationRangeQuantized has branches for RELU, RELU6 and RELU_N1_TO_1 only", false);
    expect_refused("tflite", base + "filter_scale=0.5:0.25:1", "filter_scale",
                   "TF_LITE_ENSURE_EQ(context, affine_quantization->scale->size, num_channels): 3 scales for 4", true);
    expect_refused("tflite", "c=1 o=1 in=2x5 k=3x3 input_scale=0.5 filter_scale=1 output_scale=1", "k",
                   "ComputeOutSize(VALID) gives height output size 0", false);
    expect_refused("tflite", base + "filter_scale=4 bias=1", "output_scale",
                   "effective_output_scale 2.000000 >= 1: MultiplyByQuantizedMultiplier computes x * (1 << 2)", false);
    expect_refused("tflite", base + "filter_scale=0.5 input_zero_point=128", "input_zero_point", "[-128, 127]", false);
    expect_refused("tflite", base + "filter_scale=0.5 padding=EXPLICIT", "padding", "SAME or VALID", false);
    expect_refused("tflite", base + "filter_scale=0 ", "wsc", "a scale must be > 0", false);
    expect_refused("tflite", "c=1 o=1 in=3x3 k=1x1 input_scale=1e-38 filter_scale=1 output_scale=1e-38 "
                   "fused_activation_function=RELU6", "output_scale",
                   "no_integer_overflow_from_quantization", true);
}
