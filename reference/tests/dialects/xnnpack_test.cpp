// XNNPACK convolution2d: pads and shapes derived by hand from xnn_create/setup_convolution2d_nhwc.
#include "case_table.hpp"
#include "convcheck/reference/dialects/xnnpack.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(XnnpackDialect, ByHand) {
    check_table("xnnpack", {
        // the TF SAME flag: out = divide_round_up(7, 2) = 4; t = 3*2 + 3 - 7 = 2 -> 1/1
        {"flags=TENSORFLOW_SAME_PADDING in=7x7 k=3x3 subsampling_height=2 subsampling_width=2", "pb=1x1 pe=1x1 out=4x4"},
        // odd total: t = 3*2 + 3 - 8 = 1 -> top 0, bottom 1 (as TF)
        {"flags=TENSORFLOW_SAME_PADDING in=8x8 k=3x3 subsampling_height=2 subsampling_width=2", "pb=0x0 pe=1x1 out=4x4"},
        // explicit: H (1 + 5 + 1 - 3) / 2 + 1 = 3; W (5 - 3) / 1 + 1 = 3
        {"input_padding_top=1 input_padding_bottom=1 in=5x5 k=3x3 subsampling_height=2", "pb=1x0 pe=1x0 out=3x3"},
        // the padded input just fits the kernel: 1 + 2 = 3 >= 3
        {"input_padding_top=1 in=2x3 k=3x3", "pb=1x0 pe=0x0 out=1x1"},
        {"kernel_height=3 kernel_width=1 in=5x5 dilation_height=2", "k=3x1 d=2x1 out=1x5"},
    });
}

TEST(XnnpackDialect, RejectsWhatXnnpackRejects) {
    check_table("xnnpack", {
        {"flags=TENSORFLOW_SAME_PADDING input_padding_top=1 in=7x7 k=3x3",
         "error padding: TensorFlow SAME padding can't be combined with explicit padding specification"},
        {"kernel_height=0 kernel_width=3 in=7x7", "error kernel dimensions must be non-zero"},
        {"subsampling_width=0 in=7x7 k=3x3", "error subsampling dimensions must be non-zero"},
        {"dilation_height=0 in=7x7 k=3x3", "error dilation dimensions must be non-zero"},
        {"in=7 k=3", "ours 2-D only"},
        // today's reshape check (src/operators/convolution-nhwc.c, commit a07bc8f71b); sizes W x H
        {"in=2x2 k=3x3", "error failed to reshape Convolution (NHWC, F32) operator with 2x2 input: the padded input "
                         "(2x2) is smaller than the effective kernel (3x3)"},
        {"in=5x4 k=3x3 dilation_width=2", "error with 4x5 input: the padded input (4x5) is smaller than the effective kernel (5x3)"},
    });
}

// Debian's 0.0~git20220216 (what the bundled plugin runs) had no reshape check: doz gives one output.
TEST(XnnpackDebianSnapshotDialect, AKernelLargerThanThePaddedInputGivesOneOutput) {
    check_table("xnnpack@git20220216", {
        // doz(2, 3) / 1 + 1 = 1: the kernel overhangs by 1 on each axis: read as pads_end + 1
        {"in=2x2 k=3x3", "pb=0x0 pe=1x1 out=1x1"},
        {"in=5x4 k=3x3 dilation_width=2", "pb=0x0 pe=0x1 out=3x1"},
        {"flags=TENSORFLOW_SAME_PADDING in=7x7 k=3x3 subsampling_height=2 subsampling_width=2", "pb=1x1 pe=1x1 out=4x4"},
    });
}

TEST(XnnpackDialect, NhwcDataAndAnOhwiNote) {
    const DialectResult r = cases::run("xnnpack", "in=5x5 k=3x3 c=2 o=4");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::nxc);
    EXPECT_EQ(r.filter_layout, "OHWI");
    ASSERT_FALSE(r.notes.empty());
}
