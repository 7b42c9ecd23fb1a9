// TFLite CONV_2D / DEPTHWISE_CONV_2D float32: pads and shapes derived by hand from ComputeOutSize and
// ComputePaddingWithOffset (tensorflow/lite/kernels/padding.h); the fused activation from
// CalculateActivationRange (kernel_util.h) as the post-op it computes.
#include "case_table.hpp"
#include "convcheck/reference/dialects/tflite.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(TfliteF32Dialect, ByHand) {
    check_table("tflite_f32", {
        // SAME: out = (7 + 2 - 1) / 2 = 4; total = 3*2 + 3 - 7 = 2 -> 1 / 1
        {"c=2 o=3 in=7x7 k=3x3 padding=SAME stride_h=2 stride_w=2", "pb=1x1 pe=1x1 out=4x4 g=1 po=none"},
        // odd total: 3*2 + 3 - 8 = 1 -> begin 0, end 1 (the odd pad at the end)
        {"c=2 o=3 in=8x8 k=3x3 padding=SAME stride_h=2 stride_w=2", "pb=0x0 pe=1x1 out=4x4"},
        // VALID: (5 + 1 - 5) / 1 = 1 with dilation 2 (effective 5)
        {"c=1 o=1 in=5x6 k=3x3 dilation_h_factor=2", "pb=0x0 pe=0x0 out=1x4 d=2x1"},
        // the fused activations: ActivationFunctionWithMinMax after the bias
        {"c=1 o=1 in=3x3 k=1x1 fused_activation_function=RELU", "po=relu"},
        {"c=1 o=1 in=3x3 k=1x1 fused_activation_function=RELU6", "po=clip:0:6"},
        {"c=1 o=1 in=3x3 k=1x1 fused_activation_function=RELU_N1_TO_1", "po=clip:-1:1"},
        {"c=1 o=1 in=3x3 k=1x1 fused_activation_function=NONE", "po=none"},
        // DEPTHWISE_CONV_2D: groups = c, o = c * depth_multiplier
        {"op=DEPTHWISE_CONV_2D c=3 depth_multiplier=2 in=6x6 k=3x3 padding=SAME", "g=3 o=6 pb=1x1 pe=1x1 out=6x6"},
    });
}

TEST(TfliteF32Dialect, RefusesWhatItCannotReadAsTfliteComputesIt) {
    check_table("tflite_f32", {
        // CalculateActivationRange has no branch for TANH: the float kernel would apply none
        {"c=1 o=1 in=3x3 k=1x1 fused_activation_function=TANH", "ours CalculateActivationRange has branches for RELU"},
        {"c=1 o=1 in=3x3 k=1x1 fused_activation_function=SIGN_BIT", "ours applies none"},
        {"c=1 o=1 in=2x2 k=3x3", "ours ComputeOutSize(VALID) gives height output size 0"},
        {"c=1 o=1 in=5 k=3", "ours two spatial axes"},
        {"op=DEPTHWISE_CONV_2D c=3 o=5 in=6x6 k=3x3", "ours C * depth_multiplier"},
        {"c=1 o=1 in=5x5 k=3x3 padding=EXPLICIT", "ours SAME or VALID"},
        {"c=1 o=1 in=5x5 k=3x3 stride_h=0", "ours must be >= 1"},
    });
}

TEST(TfliteF32Dialect, SpellsOnlyWhatItHas) {
    Request q;
    q.rank = 2, q.in_channels = 4, q.out_channels = 8, q.groups = 2;
    std::string why_not;
    EXPECT_FALSE(tflite::spell(q, &why_not));
    EXPECT_NE(why_not.find("DEPTHWISE_CONV_2D needs groups = c"), std::string::npos) << why_not;
    q.groups = 1, q.pads_begin = {1, 0, 0};
    EXPECT_FALSE(tflite::spell(q, &why_not));
    EXPECT_NE(why_not.find("no explicit pads"), std::string::npos) << why_not;
    q.pads_begin = {0, 0, 0}, q.padding = PaddingRequest::same_lower;
    EXPECT_FALSE(tflite::spell(q, &why_not));
    q.padding = PaddingRequest::same_upper;
    const auto spelled = tflite::spell(q, &why_not);
    ASSERT_TRUE(spelled);
    EXPECT_EQ(spelled->at("padding"), "SAME");
}
