// The transposed dialects of OpenVINO (ConvolutionBackpropData-1), TensorFlow (conv_transpose /
// Conv2DBackpropInput) and StableHLO (convolution with lhs_dilation): their formulas read literally,
// their own error words, and StableHLO's reading computed as StableHLO defines it (the input dilated
// with zeros, padded, convolved at stride 1) equal to the canonical transposed convolution.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference/dialects/transposed.hpp"
#include "transposed_cases.hpp"
#include "convcheck/reference/transposed.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using namespace convcheck::reference::dialects::transposed_cases;

namespace {
bool has_note(const TransposedResult& r, const std::string& part) {
    for (const auto& n : r.notes)
        if (n.find(part) != std::string::npos) return true;
    return false;
}
}  // namespace

TEST(OpenVinoTransposed, ReadsTheSpecsFormulas) {
    // the spec's example: 224x224, 3x3, strides 2, pads 1 -> 447x447
    EXPECT_EQ(canonical("openvino_transpose", "c=20 o=10 in=224x224 k=3x3 strides=2x2 dilations=1x1 pads_begin=1x1 pads_end=1x1"),
              "deconv:n=1,c=20,o=10,g=1,in=224x224,k=3x3,s=2x2,d=1x1,pb=1x1,pe=1x1,op=0x0,bias=0,dt=f32,data=ncx,wei=oix");
    // output_shape: total_padding = 2 * 3 + 3 - 8 = 1; same_upper: pads_end = 1 // 2 = 0, pads_begin = 1
    EXPECT_EQ(canonical("openvino_transpose", "in=4 k=3 strides=2 dilations=1 auto_pad=same_upper output_shape=8"),
              "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=1,pb=1,pe=0,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    // same_lower (and explicit, whose pads are then ignored): pads_begin = 1 // 2 = 0, pads_end = 1
    EXPECT_EQ(canonical("openvino_transpose", "in=4 k=3 strides=2 dilations=1 auto_pad=same_lower output_shape=8"),
              "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=1,pb=0,pe=1,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    const auto ignored = read("openvino_transpose", "in=4 k=3 strides=2 dilations=1 pads_begin=2 pads_end=2 output_shape=8");
    ASSERT_TRUE(ignored.ok());
    EXPECT_EQ(ignored.descriptor.pads_begin[0], 0);
    EXPECT_TRUE(has_note(ignored, "pads_begin and pads_end are ignored"));
    // without output_shape, auto_pad same_* sets the pads to 0: the full result, not X * stride
    const auto same = read("openvino_transpose", "in=4 k=3 strides=2 dilations=1 auto_pad=same_upper");
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(same.descriptor.output_size(0), 9);
    EXPECT_TRUE(has_note(same, "pads = 0"));
    // an output_shape wider than the full result (9): total -3, floor division: pads -2 and -1
    const auto wide = read("openvino_transpose", "in=4 k=3 strides=2 dilations=1 output_shape=12");
    ASSERT_TRUE(wide.ok());
    EXPECT_EQ(to_string(wide.descriptor), "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=1,pb=-2,pe=-1,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_TRUE(has_note(wide, "clamps it at 0"));
    // output_padding adds at the end; groups: GroupConvolutionBackpropData
    EXPECT_EQ(canonical("openvino_transpose", "c=4 o=6 in=5 k=2 strides=3 dilations=2 output_padding=4 groups=2"),
              "deconv:n=1,c=4,o=6,g=2,in=5,k=2,s=3,d=2,pb=0,pe=0,op=4,bias=0,dt=f32,data=ncx,wei=oix");
}

TEST(OpenVinoTransposed, RefusesInOpenVinosWords) {
    EXPECT_EQ(error("openvino_transpose", "in=4x4 k=3x3 strides=2x0 dilations=1x1"), "Strides has zero dimension(s). Strides{2, 0}");
    EXPECT_EQ(error("openvino_transpose", "in=4x4 k=3x3 strides=1x1 dilations=0x1"),
              "Filter dilations has zero dimension(s). Strides{0, 1}");
    EXPECT_EQ(error("openvino_transpose", "in=4x4 k=3x3 strides=1x1 dilations=1x1 output_shape=8"),
              "Output shape should be defined for all and only spatial dimensions.");
    EXPECT_NE(error("openvino_transpose", "in=4 k=3 dilations=1").find("required"), std::string::npos);
    EXPECT_NE(error("openvino_transpose", "in=4 k=3 strides=1 dilations=1 output_padding=-1").find("non-negative"),
              std::string::npos);
    EXPECT_NE(error("openvino_transpose", "in=4 k=3 strides=1 dilations=1 bias=1").find("unknown attribute"), std::string::npos);
}

TEST(TensorFlowTransposed, ReadsOutputShapeThroughTheForwardConvolution) {
    // SAME (the default): the forward of 8 at stride 2 is ceil(8/2) = 4; its pads 0 and 1
    EXPECT_EQ(canonical("tensorflow_transpose", "in=4x4 k=3x3 strides=2x2 output_shape=8x8"),
              "deconv:n=1,c=1,o=1,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=0x0,pe=1x1,op=0x0,bias=0,dt=f32,data=nxc,wei=xio");
    // 7 has the same forward size: pads 1 and 1
    EXPECT_EQ(canonical("tensorflow_transpose", "in=4 k=3 strides=2 output_shape=7"),
              "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=1,pb=1,pe=1,op=0,bias=0,dt=f32,data=nxc,wei=xio");
    // VALID: 9 and 10 both give (x - 3 + 2) / 2 = 4; 10 is the full result 9 plus an output padding of 1
    EXPECT_EQ(canonical("tensorflow_transpose", "in=4 k=3 strides=2 padding=VALID output_shape=10"),
              "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=1,pb=0,pe=0,op=1,bias=0,dt=f32,data=nxc,wei=xio");
    // the full NHWC / NCHW output_shape, and the filter [k, out_channels, in_channels]
    EXPECT_EQ(canonical("tensorflow_transpose", "n=2 c=3 o=5 in=4x4 k=3x3 strides=2x2 output_shape=2x5x8x8 data_format=NCHW"),
              "deconv:n=2,c=3,o=5,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=0x0,pe=1x1,op=0x0,bias=0,dt=f32,data=ncx,wei=xio");
    const auto r = read("tensorflow_transpose", "in=4x4 k=3x3 strides=2x2 output_shape=8x8");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.filter_layout, "HWIO");
}

TEST(TensorFlowTransposed, RefusesInTensorFlowsWords) {
    EXPECT_EQ(error("tensorflow_transpose", "in=4x4 k=3x3 strides=2x2 output_shape=10x8"),
              "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 4, computed = 5 "
              "spatial_dim: 1 input: 10 filter: 3 output: 4 stride: 2 dilation: 1");
    EXPECT_EQ(error("tensorflow_transpose", "in=4x4x4 k=3x3x3 strides=2 output_shape=8x8x9 data_format=NCDHW"),
              "Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = 4, computed = 5 "
              "spatial_dim: 4 input: 9 filter: 3 output: 4 stride: 2 dilation: 1");
    EXPECT_NE(error("tensorflow_transpose", "in=4 k=3 strides=2").find("required"), std::string::npos);
    // the forward's own errors are the Conv op's
    EXPECT_NE(error("tensorflow_transpose", "in=4 k=3 padding=SAMEISH output_shape=4").find("is not in the list of allowed values"),
              std::string::npos);
}

TEST(StableHloTransposed, ReadsLhsDilationAsTheStride) {
    // lhs_dilation 2, padding [2, 2], k 3: pads_begin = pads_end = (3 - 1) - 2 = 0, out = 2 + 7 + 2 - 3 + 1 = 9
    EXPECT_EQ(canonical("stablehlo_transpose", "in=4 k=3 lhs_dilation=2 padding=2x2 window_reversal=true"),
              "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=1,pb=0,pe=0,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    const auto r = read("stablehlo_transpose", "c=4 o=6 in=5x5 k=3x3 lhs_dilation=2x2 rhs_dilation=2x1 padding=4x5x1x1 "
                                               "feature_group_count=2 dim_labels=b01f_01io->b01f");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(to_string(r.descriptor), "deconv:n=1,c=4,o=6,g=2,in=5x5,k=3x3,s=2x2,d=2x1,pb=0x1,pe=-1x1,op=0x0,bias=0,dt=f32,data=nxc,wei=oix");
    EXPECT_TRUE(has_note(r, "window_reversal false on axis 0, 1"));
    EXPECT_NE(error("stablehlo_transpose", "in=4 k=3 lhs_dilation=2 window_strides=2").find("not a transposed convolution"),
              std::string::npos);
    // the verifier's constraints are StableHLO's words
    EXPECT_EQ(error("stablehlo_transpose", "in=4 k=3 lhs_dilation=0"),
              "expects window to have positive base dilation factor for 0-th window dimension, but got 0.");
}

// StableHLO's own process, literally: the input dilated by lhs_dilation (zeros between), padded by
// [low, high], convolved at stride 1 with the kernel [O][C/G][k'] read reversed where window_reversal
// is true. It equals the canonical transposed convolution of the reading, with the canonical weights
// [C][O/G][k] the kernel's feature axes swapped and flipped where window_reversal is false.
RC_GTEST_PROP(StableHloTransposed, TheReadingComputesWhatStableHloDefines, ()) {
    const std::int64_t g = *rc::gen::inRange<std::int64_t>(1, 3), cg = *rc::gen::inRange<std::int64_t>(1, 3),
                       og = *rc::gen::inRange<std::int64_t>(1, 3);
    const std::int64_t in = *rc::gen::inRange<std::int64_t>(1, 6), k = *rc::gen::inRange<std::int64_t>(1, 4);
    const std::int64_t s = *rc::gen::inRange<std::int64_t>(1, 4), d = *rc::gen::inRange<std::int64_t>(1, 3);
    const std::int64_t low = *rc::gen::inRange<std::int64_t>(-2, 5), high = *rc::gen::inRange<std::int64_t>(-2, 5);
    const bool reversed = *rc::gen::arbitrary<bool>();
    const std::int64_t C = g * cg, O = g * og;
    const std::string text = "c=" + std::to_string(C) + " o=" + std::to_string(O) + " in=" + std::to_string(in) +
                             " k=" + std::to_string(k) + " lhs_dilation=" + std::to_string(s) +
                             " rhs_dilation=" + std::to_string(d) + " padding=" + std::to_string(low) + "x" +
                             std::to_string(high) + " feature_group_count=" + std::to_string(g) +
                             " window_reversal=" + (reversed ? "true" : "false");
    const TransposedResult r = read("stablehlo_transpose", text);
    if (!r.ok()) {
        RC_ASSERT(r.error->attribute == "padding");  // only an empty output is refused here
        return;
    }
    const TransposedDescriptor& t = r.descriptor;
    const auto x = *rc::gen::container<std::vector<double>>(static_cast<std::size_t>(C * in), rc::gen::inRange(-4, 5));
    const auto kernel = *rc::gen::container<std::vector<double>>(static_cast<std::size_t>(O * cg * k), rc::gen::inRange(-4, 5));
    auto rhs = [&](std::int64_t o, std::int64_t ci, std::int64_t kk) { return kernel[(o * cg + ci) * k + kk]; };

    // StableHLO: dilated input, forward convolution at stride 1 with pads [low, high]
    ConvDescriptor f;
    f.rank = 1;
    f.in_channels = C;
    f.out_channels = O;
    f.groups = g;
    f.input_size[0] = (in - 1) * s + 1;
    f.kernel_size[0] = k;
    f.dilations[0] = d;
    f.pads_begin[0] = low;
    f.pads_end[0] = high;
    std::vector<double> dilated(static_cast<std::size_t>(C * f.input_size[0]), 0.0), w_forward;
    for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t y = 0; y < in; ++y) dilated[c * f.input_size[0] + y * s] = x[c * in + y];
    for (std::int64_t o = 0; o < O; ++o)
        for (std::int64_t ci = 0; ci < cg; ++ci)
            for (std::int64_t kk = 0; kk < k; ++kk) w_forward.push_back(rhs(o, ci, reversed ? k - 1 - kk : kk));
    const auto expected = reference::convolution_summation(f, dilated, w_forward, {}).dst;

    // canonical: weights [C][O/G][k], W[c][ol][k] = rhs[group * O/G + ol][c - group * C/G][reversed ? k : K-1-k]
    std::vector<double> w_canonical;
    for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t ol = 0; ol < og; ++ol)
            for (std::int64_t kk = 0; kk < k; ++kk)
                w_canonical.push_back(rhs((c / cg) * og + ol, c % cg, reversed ? kk : k - 1 - kk));
    const auto got = reference::transposed_convolution_summation(t, x, w_canonical, {}).dst;
    RC_ASSERT(got == expected);
}
