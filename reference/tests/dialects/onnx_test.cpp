// ONNX Conv: pads and shapes derived by hand from the ONNX spec's auto_pad rules.
#include "case_table.hpp"
#include "convcheck/reference/dialects/onnx.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(OnnxDialect, AutoPadByHand) {
    check_table("onnx", {
        // SAME_*: out = ceil(7/2) = 4; t = 3*2 + 4 - 7 = 3; UPPER 1/2, LOWER 2/1
        {"auto_pad=SAME_UPPER in=7x7 k=4x4 strides=2x2", "pb=1x1 pe=2x2 out=4x4"},
        {"auto_pad=SAME_LOWER in=7x7 k=4x4 strides=2x2", "pb=2x2 pe=1x1 out=4x4"},
        // t = max(0, 1*3 + 1 - 6) = 0
        {"auto_pad=SAME_UPPER in=6 k=1 strides=3", "pb=0 pe=0 out=2"},
        // dilation: K = 5, t = 4 -> 2/2
        {"auto_pad=SAME_LOWER in=10 k=3 dilations=2", "pb=2 pe=2 out=10 d=2"},
        // NOTSET: floor((5 + 1 + 2 - 3) / 2) + 1 = 3
        {"pads=1x2 in=5 k=3 strides=2", "pb=1 pe=2 out=3"},
        // pads layout [x1_begin, x2_begin, x1_end, x2_end]
        {"pads=1x0x2x3 in=5x5 k=3x3", "pb=1x0 pe=2x3 out=6x6"},
        // VALID: floor((7 - 3) / 2) + 1 = 3
        {"auto_pad=VALID in=7 k=3 strides=2", "pb=0 pe=0 out=3"},
        {"kernel_shape=3x3 in=5x5", "k=3x3 out=3x3"},
        {"group=2 c=4 o=6 in=5 k=3", "out=3"},
    });
}

// ONNX's shape inference (onnx/defs/nn/defs.cc, convPoolShapeInference; checked with Debian's
// python3-onnx 1.12.0, onnx.shape_inference): out = (in + pads - K) / s + 1 with C division.
TEST(OnnxDialect, AKernelLargerThanTheInputFollowsShapeInference) {
    check_table("onnx", {
        // (2 - 3) / 2 + 1 = 0 + 1 = 1: the window overhangs by 1, read as pads_end + 1
        {"auto_pad=VALID in=2 k=3 strides=2", "pb=0 pe=1 out=1"},
        {"in=2 k=3 strides=2", "pb=0 pe=1 out=1"},
        {"pads=1x0 in=1 k=4 strides=3", "pb=1 pe=2 out=1"},
        // (2 - 3) / 1 + 1 = 0: an empty tensor; (1 - 4) / 2 + 1 = 0 too
        {"auto_pad=VALID in=2 k=3", "empty out=0"},
        {"auto_pad=VALID in=1 k=4 strides=2", "empty out=0"},
    });
}

TEST(OnnxDialect, RejectsWhatTheSpecForbids) {
    check_table("onnx", {
        {"auto_pad=SAME_UPPER pads=1x1 in=5 k=3", "error This attribute cannot be used simultaneously with auto_pad attribute."},
        {"pads=1 in=5 k=3", "error Attribute pads has incorrect length"},
        {"strides=1x1 in=5 k=3", "error Attribute strides has incorrect length"},
        {"kernel_shape=3x3 in=5 k=3", "error Attribute kernel_shape has incorrect length"},
        {"auto_pad=same_upper in=5 k=3", "ours must be NOTSET, SAME_UPPER, SAME_LOWER or VALID"},
        {"pads=-1x0 in=5 k=3", "ours every pad to be >= 0"},
        // shape inference: (1 - 6) / 2 + 1 = -2 + 1 = -1, a negative size
        {"auto_pad=VALID in=1 k=6 strides=2", "ours negative output size -1"},
        {"group=3 c=4 o=6 in=5 k=3", "ours divisible by groups"},
    });
}

TEST(OnnxDialect, LayoutIsNcxOix) {
    const DialectResult r = cases::run("onnx", "in=5x5 k=3x3 c=2 o=4");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::ncx);
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::oix);
}
