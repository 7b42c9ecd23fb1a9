// The seed texts' errata and the frameworks' disagreements (docs/errata.md), each shown by its
// smallest case. Each test states what the seed's words would give and what the framework does.
#include "case_table.hpp"
#include "convcheck/reference/convolution.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

// Seed 000: "Output shape with 'VALID' padding is: [batch, height - 2 * (filter_width - 1),
// width - 2 * (filter_height - 1), out_channels]". Smallest case: rate 1, a 2x2 filter, 3x3 input:
// the seed says 3 - 2*1 = 1, the real size is 3 - 1*1 = 2. And the seed swaps the filter's axes:
// a 1x2 filter, rate 2, 5x5 input: seed 5 - 2*(2-1) = 3 by 5 - 2*(1-1) = 5; real 5 x 5 - 2 = 3.
TEST(Errata, AtrousValidShapeIsHeightMinusRateTimesFilterHeightMinusOne) {
    auto seed_height = [](std::int64_t h, std::int64_t /*fh*/, std::int64_t fw) { return h - 2 * (fw - 1); };
    auto seed_width = [](std::int64_t w, std::int64_t fh, std::int64_t /*fw*/) { return w - 2 * (fh - 1); };
    EXPECT_EQ(seed_height(3, 2, 2), 1);
    check_table("atrous", {{"in=3x3 k=2x2 rate=1 padding=VALID", "out=2x2"}});
    EXPECT_EQ(seed_height(5, 1, 2), 3);
    EXPECT_EQ(seed_width(5, 1, 2), 5);
    check_table("atrous", {{"in=5x5 k=1x2 rate=2 padding=VALID", "out=5x3"}});
}

// Seed 001: "With same_upper and same_lower the padding is chosen to make the pre-stride output
// spatial shape the same as the input shape" would pad t = K - 1. OpenVINO pads so that the
// post-stride output is ceil(in/s): t = max(0, (ceil(in/s)-1)*s + K - in). Smallest case where the
// values differ: in = 2, k = 3, s = 2: pre-stride t = 2 -> pads 1/1; OpenVINO t = 1 -> pads 0/1.
TEST(Errata, OpenvinoSameUpperMakesThePostStrideOutputCeilInOverS) {
    check_table("openvino",
                {{"auto_pad=same_upper in=2 k=3 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=0 pe=1 out=1"}});
    // the two readings give different values on x = [1 2], w = [1 2 3]
    const auto code = parse_descriptor("c=1,o=1,in=2,k=3,s=2,pb=0,pe=1");
    const auto pre_stride = parse_descriptor("c=1,o=1,in=2,k=3,s=2,pb=1,pe=1");
    const std::vector<double> x{1, 2}, w{1, 2, 3};
    EXPECT_EQ(reference::convolution_summation(code, x, w, {}).dst, std::vector<double>{5});        // 1*1 + 2*2
    EXPECT_EQ(reference::convolution_summation(pre_stride, x, w, {}).dst, std::vector<double>{8});  // 1*2 + 2*3
}

// Seed 001: "all but the results on a multiple of d spatial axis are removed": d where s is meant.
// Smallest case: in = 5, k = 2, d = 2, s = 1: 5 - 2*(2-1) = 3 full-overlap outputs; keeping those on
// a multiple of d would leave 2 (positions 0 and 2), the seed's own formula (and OpenVINO) gives 3.
TEST(Errata, OpenvinoKeepsEveryStrideThOutputNotEveryDilationTh) {
    const std::int64_t full_overlap = 5 - 2 * (2 - 1);
    std::int64_t kept_on_multiples_of_d = 0;
    for (std::int64_t i = 0; i < full_overlap; ++i) kept_on_multiples_of_d += (i % 2 == 0);
    EXPECT_EQ(kept_on_multiples_of_d, 2);
    check_table("openvino", {{"in=5 k=2 strides=1 dilations=2 pads_begin=0 pads_end=0", "out=3"}});
}

// Seed 003: the 2-D syntax's text says "By default it's HWC", its signature says imageLayout="cudnn"
// (and the N-D syntax: "The only supported value is cudnn"). convcheck follows the signature.
TEST(Errata, CntkTwoDimensionalDefaultImageLayoutIsTheSignaturesCudnn) {
    const DialectResult r =
        cases::run("cntk", "in=3x3 c=2 kernelWidth=1 kernelHeight=1 horizontalStride=1 verticalStride=1");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::ncx);
}

// Seed 003: the 2-D signature lists no mapCount although the parameter list documents it and the
// example passes it (kW, kH, outMap, hStride, vStride): convcheck takes it by name.
TEST(Errata, CntkTwoDimensionalSyntaxTakesMapCount) {
    const DialectResult r =
        cases::run("cntk", "in=3x3 mapCount=5 kernelWidth=1 kernelHeight=1 horizontalStride=1 verticalStride=1");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.out_channels, 5);
}

// Disagreement: where an odd pad goes. in = 8, k = 3, s = 2 (t = 1): TF, ONNX SAME_UPPER, XNNPACK and
// PyTorch-style put it at the end; ONNX SAME_LOWER, OpenVINO same_lower and CNTK (e = 1) at the beginning.
TEST(Disagreements, WhereAnOddPadGoes) {
    check_table("tensorflow", {{"in=8 k=3 strides=2 padding=SAME", "pb=0 pe=1 out=4"}});
    check_table("onnx", {{"in=8 k=3 strides=2 auto_pad=SAME_UPPER", "pb=0 pe=1 out=4"},
                         {"in=8 k=3 strides=2 auto_pad=SAME_LOWER", "pb=1 pe=0 out=4"}});
    check_table("cntk", {{"in=8 kernel=3:1 stride=2:1 autoPadding=true:false", "pb=1 pe=0 out=4"}});
    check_table("pytorch", {{"in=8 k=2 padding=same", "pb=0 pe=1 out=8"}});
}

// Disagreement: CNTK's unclamped pads give TF's shape but other values. in = 7, k = 2, s = 4:
// TF t = max(0, 4 + 2 - 7) = 0, windows [0,1] and [4,5]; CNTK e = 2, pads -1/0, windows [1,2] and [5,6].
TEST(Disagreements, CntkNegativeAutoPadSameShapeDifferentValues) {
    const DialectResult tf = cases::run("tensorflow", "in=7 k=2 strides=4 padding=SAME");
    const DialectResult cntk = cases::run("cntk", "in=7 kernel=2:1 stride=4:1 autoPadding=true:false");
    ASSERT_TRUE(tf.ok());
    ASSERT_TRUE(cntk.ok());
    EXPECT_EQ(tf.output_size, cntk.output_size);
    const std::vector<double> x{1, 2, 3, 4, 5, 6, 7}, w{1, 1};
    EXPECT_EQ(reference::convolution_summation(tf.descriptor, x, w, {}).dst, (std::vector<double>{3, 11}));
    EXPECT_EQ(reference::convolution_summation(cntk.descriptor, x, w, {}).dst, (std::vector<double>{5, 13}));
}

// Disagreement: a kernel larger than the input, in = 2, k = 3, no padding.
TEST(Disagreements, KernelLargerThanTheInput) {
    check_table("tensorflow", {{"in=2 k=3 padding=VALID", "empty out=0"}});           // an empty tensor
    check_table("onednn", {{"in=2 k=3", "empty out=0"}});                             // (2-3)/1 + 1 = 0
    check_table("onednn", {{"in=2 k=3 strides=2", "pb=0 pe=1 out=1"}});               // (2-3)/2 + 1 = 1
    check_table("xnnpack", {{"in=2x2 k=3x3", "error is smaller than the effective kernel"}});  // reshape check
    check_table("xnnpack@git20220216", {{"in=2x2 k=3x3", "out=1x1 pe=1x1"}});         // doz: one element
    check_table("onnx", {{"in=2 k=3", "empty out=0"}});                               // (2-3)/1 + 1 = 0
    check_table("onnx", {{"in=2 k=3 strides=2", "pb=0 pe=1 out=1"}});                 // (2-3)/2 + 1 = 1
    check_table("stablehlo", {{"in=2 k=3", "empty out=0"}});                          // no window fits
    check_table("tosa", {{"in=2x2 k=3x3", "error greater than or equal to 1: OH = 0"}});  // no empty tensors
    check_table("pytorch", {{"in=2 k=3", "error Kernel size can't be greater than actual input size"}});
    check_table("cntk", {{"in=2 kernel=3:1 autoPadding=false", "error requires that kernel dim 3 <= input dim 2"}});
    check_table("openvino", {{"in=2 k=3 strides=1 dilations=1 pads_begin=0 pads_end=0", "error larger than the data shape after padding"}});
    // with SAME-style padding most frameworks pad up to the kernel; CNTK still refuses
    check_table("tensorflow", {{"in=2 k=3 padding=SAME", "pb=1 pe=1 out=2"}});
    check_table("cntk", {{"in=2 kernel=3:1 autoPadding=true:false", "error requires that kernel dim 3 <= input dim 2"}});
}

// Framework versions move (docs/errata.md, "Framework versions"): the current reading, and the older
// one where convcheck keeps it as a versioned dialect. One smallest case per change.

// oneDNN Graph infer_auto_pad, commit 4029cdbda1 (v3.2): the total SAME pad is clamped at 0 and the
// dilated kernel is used. in = 7, k = 1, s = 4: before, t = (2-1)*4 + 1 - 7 = -2 (pads -1/-1);
// since, t = max(0, 1 - 7 % 4) = 0. The output size (2) is the same, the values are not: the
// windows are [0] and [4] now, [1] and [5] before (pads_begin -1 shifts them).
TEST(FrameworkVersions, OnednnGraphClampsTheSamePadSinceV3_2) {
    const char* attributes = "auto_pad=SAME_UPPER in=7 k=1 strides=4 dilations=1 pads_begin=0 pads_end=0";
    check_table("onednn_graph", {{attributes, "pb=0 pe=0 out=2"}});
    check_table("onednn_graph@<3.2", {{attributes, "pb=-1 pe=-1 out=2"}});
    const std::vector<double> x{1, 2, 3, 4, 5, 6, 7}, w{1};
    const DialectResult now = cases::run("onednn_graph", attributes), before = cases::run("onednn_graph@<3.2", attributes);
    ASSERT_TRUE(now.ok() && before.ok());
    EXPECT_EQ(reference::convolution_summation(now.descriptor, x, w, {}).dst, (std::vector<double>{1, 5}));
    EXPECT_EQ(reference::convolution_summation(before.descriptor, x, w, {}).dst, (std::vector<double>{2, 6}));
    // ... and dilation, unimplemented before, uses the dilated kernel: K = 5, t = 4
    const char* dilated = "auto_pad=SAME_UPPER in=7 k=3 strides=1 dilations=2 pads_begin=0 pads_end=0";
    check_table("onednn_graph", {{dilated, "pb=2 pe=2 out=7"}});
    check_table("onednn_graph@<3.2", {{dilated, "error unimplemented"}});
}

// TensorFlow: the Conv2D op defines stride > 1 with dilation > 1; tf.nn.convolution's wrapper refuses it.
TEST(FrameworkVersions, TensorflowConvOpAndConvolutionWrapperAreTwoEntryPoints) {
    const char* attributes = "in=9 k=3 strides=2 dilations=2 padding=SAME";
    check_table("tensorflow", {{attributes, "pb=2 pe=2 out=5"}});
    check_table("tf_convolution", {{attributes, "error strides > 1 not supported in conjunction with dilation_rate > 1"}});
}

// ONNX VALID with the kernel larger than the input: shape inference gives (2 - 3) / 2 + 1 = 1 (C
// division; python3-onnx 1.12), where convcheck used to refuse (floor division gave 0 outputs).
TEST(FrameworkVersions, OnnxValidFollowsShapeInference) {
    check_table("onnx", {{"auto_pad=VALID in=2 k=3 strides=2", "pb=0 pe=1 out=1"}});
    EXPECT_EQ(cases::run("onnx", "auto_pad=VALID in=2 k=3 strides=2").notes.size(), 1u);  // the overhang is said
}

// XNNPACK: since commit a07bc8f71b a padded input smaller than the effective kernel is an invalid
// configuration; the Debian snapshot 0.0~git20220216 computed one output (doz).
TEST(FrameworkVersions, XnnpackRejectsAKernelLargerThanThePaddedInputSinceA07bc8f) {
    check_table("xnnpack", {{"in=2x2 k=3x3", "error failed to reshape"}});
    check_table("xnnpack@git20220216", {{"in=2x2 k=3x3", "pb=0x0 pe=1x1 out=1x1"}});
}
