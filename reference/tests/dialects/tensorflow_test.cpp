// TensorFlow conv: pads and shapes derived by hand from TF's GetWindowedOutputSize formulas.
#include "case_table.hpp"
#include "convcheck/reference/dialects/tensorflow.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(TensorflowDialect, SameValidExplicitByHand) {
    check_table("tensorflow", {
        // SAME: out = ceil(7/2) = 4; t = max(0, 3*2 + 3 - 7) = 2 -> 1/1
        {"in=7x7 k=3x3 strides=2x2 padding=SAME", "pb=1x1 pe=1x1 out=4x4"},
        // SAME: out = ceil(8/2) = 4; t = 3*2 + 3 - 8 = 1 -> the odd pad at the END: 0/1
        {"in=8 k=3 strides=2 padding=SAME", "pb=0 pe=1 out=4"},
        // SAME, even kernel: t = 4 - 1 = 3 -> 1/2
        {"in=5 k=4 padding=SAME", "pb=1 pe=2 out=5"},
        // SAME with dilation: K = (3-1)*2 + 1 = 5; t = 4 -> 2/2
        {"in=10 k=3 dilations=2 padding=SAME", "pb=2 pe=2 out=10 d=2"},
        // the Conv2D op defines stride > 1 with dilation > 1: out = ceil(9/2) = 5, K = 5,
        // t = max(0, 4*2 + 5 - 9) = 4 -> 2/2
        {"in=9 k=3 strides=2 dilations=2 padding=SAME", "pb=2 pe=2 out=5 s=2 d=2"},
        // VALID: (9 - 5 + 2) / 2 = 3; EXPLICIT: (9 + 1 + 0 - 5 + 2) / 2 = 3
        {"in=9 k=3 strides=2 dilations=2 padding=VALID", "pb=0 pe=0 out=3"},
        {"in=9 k=3 strides=2 dilations=2 padding=EXPLICIT explicit_paddings=1x0", "pb=1 pe=0 out=3"},
        // SAME, kernel smaller than stride: t = max(0, 1*3 + 1 - 6) = 0
        {"in=6 k=1 strides=3 padding=SAME", "pb=0 pe=0 out=2"},
        // SAME, kernel larger than the input: out = 2, t = 0 + 5 - 2 = 3 -> 1/2
        {"in=2 k=5 padding=SAME strides=2", "pb=1 pe=2 out=1"},
        // VALID: (7 - 3 + 2) / 2 = 3
        {"in=7 k=3 strides=2 padding=VALID", "pb=0 pe=0 out=3"},
        // EXPLICIT: (5 + 1 + 2 - 3 + 2) / 2 = 3
        {"in=5 k=3 strides=2 padding=EXPLICIT explicit_paddings=1x2", "pb=1 pe=2 out=3"},
        // EXPLICIT, TF's full form (N, H, W, C pairs): H 1/1, W 2/2 -> 5 + 2 - 3 + 1 = 5, 5 + 4 - 3 + 1 = 7
        {"in=5x5 k=3x3 padding=EXPLICIT explicit_paddings=0x0x1x1x2x2x0x0", "pb=1x2 pe=1x2 out=5x7"},
        // full-length strides in NHWC order
        {"in=7x7 k=3x3 strides=1x2x2x1 padding=SAME", "s=2x2 out=4x4"},
        {"in=7x7 k=3x3 strides=1x1x2x2 padding=SAME data_format=NCHW", "s=2x2 out=4x4"},
    });
}

TEST(TensorflowDialect, KernelLargerThanInput) {
    check_table("tensorflow", {
        // VALID: (2 - 3 + 1) / 1 = 0: TF returns an empty tensor
        {"in=2 k=3 padding=VALID", "empty out=0"},
        // VALID: (1 - 3 + 1) / 1 = -1: TF's error
        {"in=1 k=3 padding=VALID", "error Computed output size would be negative: -1 [input_size: 1, effective_filter_size: 3, stride: 1]"},
        // VALID: (1 - 4 + 2) / 2 = -1/2, which C division truncates to 0: empty (floor would say -1)
        {"in=1 k=4 strides=2 padding=VALID", "empty out=0"},
        {"in=4x2 k=3x3 padding=VALID", "empty out=2x0"},
    });
}

TEST(TensorflowDialect, RejectsWhatTensorflowRejects) {
    check_table("tensorflow", {
        {"in=7 k=3 padding=FULL", "error Value for attr 'padding' of \"FULL\" is not in the list of allowed values"},
        {"in=7 k=3 padding=EXPLICIT explicit_paddings=1x-1", "error All elements of explicit_paddings must be nonnegative"},
        {"in=7 k=3 padding=SAME explicit_paddings=1x1", "error explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"},
        {"in=7 k=3 padding=EXPLICIT explicit_paddings=1x1x1", "error explicit_paddings attribute must contain 6 values"},
        {"in=7x7 k=3x3 padding=EXPLICIT explicit_paddings=1x1x1x1x1x1x0x0", "error Nonzero explicit padding in the batch or depth dimensions"},
        {"in=7x7 k=3x3 strides=2x2x2x1", "error does not yet support strides in the batch and depth dimensions"},
        {"in=7x7 k=3x3 strides=2x2x2", "error strides should be of length 1, 2 or 4"},
        {"in=7x7 k=3x3 dilations=0", "error Dilated rates should be larger than 0."},
        {"in=7x7 k=3x3 data_format=NCW", "error Value for attr 'data_format' of \"NCW\""},
        {"in=7x7 k=3x3 stride=2", "ours unknown attribute"},
    });
}

TEST(TensorflowDialect, LayoutsAreNhwcOrNchwWithHwioFilters) {
    {
        tensorflow::ConvAttributes a;
        a.shapes.in_channels = 3;
        a.shapes.out_channels = 8;
        a.shapes.input_size = {9, 9};
        a.shapes.kernel_size = {3, 3};
        a.padding = "SAME";
        DialectResult r = tensorflow::conv(a);
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.descriptor.data_format, DataFormat::nxc);
        EXPECT_EQ(r.descriptor.filter_format, FilterFormat::xio);
        EXPECT_EQ(r.data_layout, "NHWC");
        EXPECT_EQ(r.filter_layout, "HWIO");
        a.data_format = "NCHW";
        r = tensorflow::conv(a);
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.descriptor.data_format, DataFormat::ncx);
        EXPECT_EQ(r.descriptor.filter_format, FilterFormat::xio);
    }
}

TEST(TensorflowDialect, ThreeDimensionsUseNdhwc) {
    const DialectResult r = cases::run("tensorflow", "in=4x5x6 k=3x3x3 padding=SAME strides=2");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.data_layout, "NDHWC");
    EXPECT_EQ(cases::spatial(r.output_size), "2x3x3");
}

// tf.nn.convolution and Keras: the Python wrapper's rules (nn_ops.py, _get_strides_and_dilation_rate).
TEST(TfConvolutionDialect, SameAsTheOpWhereTheWrapperAccepts) {
    check_table("tf_convolution", {
        {"in=7x7 k=3x3 strides=2x2 padding=SAME", "pb=1x1 pe=1x1 out=4x4"},
        {"in=10 k=3 dilations=2 padding=SAME", "pb=2 pe=2 out=10 d=2"},
        {"in=7 k=3 strides=2 padding=VALID", "pb=0 pe=0 out=3"},
    });
}

TEST(TfConvolutionDialect, RefusesStrideWithDilationAndExplicitPadding) {
    check_table("tf_convolution", {
        {"in=9 k=3 strides=2 dilations=2 padding=SAME", "error strides > 1 not supported in conjunction with dilation_rate > 1"},
        {"in=9x9 k=3x3 strides=1x2 dilations=2x1 padding=VALID", "error strides > 1 not supported in conjunction with dilation_rate > 1"},
        {"in=9 k=3 padding=EXPLICIT", "ours EXPLICIT padding is the Conv2D op's"},
        {"in=9 k=3 padding=SAME explicit_paddings=1x1", "ours unknown attribute"},
    });
}
