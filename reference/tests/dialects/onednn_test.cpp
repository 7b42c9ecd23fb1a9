// oneDNN: the primitive API (0-based dilates, padding_l / padding_r, truncating dst check) and the
// Graph Convolution op; pads and shapes derived by hand from conv_desc_init and infer_auto_pad.
#include "case_table.hpp"
#include "convcheck/reference/dialects/onednn.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(OnednnPrimitiveDialect, ByHand) {
    check_table("onednn", {
        // (5 - 3 + 1 + 1) / 2 + 1 = 3
        {"in=5 k=3 strides=2 padding_l=1 padding_r=1", "pb=1 pe=1 out=3"},
        // dilates are 0-based: ker_range = 1 + (3-1)*(1+1) = 5; (7 - 5) / 1 + 1 = 3; canonical d = 2
        {"in=7 k=3 dilates=1", "d=2 out=3"},
        // a negative right pad, allowed since padding_r + stride = 1 > 0: (5 - 3 - 1) / 2 + 1 = 1
        {"in=5 k=3 strides=2 padding_r=-1", "pb=0 pe=-1 out=1"},
        {"in=6 k=2 strides=3 padding_r=-2", "pb=0 pe=-2 out=1"},
        // the kernel overhangs: (2 - 3) / 2 = 0 in C, so dst = 1; read as pads_end + 1
        {"in=2 k=3 strides=2", "pb=0 pe=1 out=1"},
        // (1 - 4) / 2 + 1 = -1 + 1 = 0: an empty dst
        {"in=1 k=4 strides=2", "empty out=0"},
        {"in=2 k=3", "empty out=0"},
    });
}

TEST(OnednnPrimitiveDialect, RejectsWhatConvDescInitRejects) {
    check_table("onednn", {
        {"in=5 k=3 strides=2 padding_r=-2", "error problem is not mathematically consistent"},
        {"in=5 k=3 padding_l=-1", "error problem is not mathematically consistent"},
        {"in=5 k=3 dilates=-1", "error problem is not mathematically consistent"},
        {"in=5 k=3 strides=0", "error bad dimension strides:0"},
        // (1 - 6) / 2 + 1 = -2 + 1 = -1: no dst memory can have that size
        {"in=1 k=6 strides=2", "ours is negative"},
    });
}

// v3.2 and later (src/graph/interface/shape_infer.cpp, infer_auto_pad since commit 4029cdbda1):
// K = (k-1)*d + 1, t = K - (in % s == 0 ? s : in % s), clamped at 0.
TEST(OnednnGraphDialect, ByHand) {
    check_table("onednn_graph", {
        // in % s = 1: t = 4 - 1 = 3; SAME_LOWER pb = (3+1)/2 = 2, SAME_UPPER pb = 3/2 = 1
        {"auto_pad=SAME_LOWER in=7 k=4 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=2 pe=1 out=4"},
        {"auto_pad=SAME_UPPER in=7 k=4 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=1 pe=2 out=4"},
        // in % s = 0: t = 1 - 2 = -1, clamped at 0: no pads, (4 - 1)/2 + 1 = 2
        {"auto_pad=SAME_UPPER in=4 k=1 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=0 pe=0 out=2"},
        {"auto_pad=SAME_LOWER in=4 k=1 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=0 pe=0 out=2"},
        // the case: in % s = 3, t = 1 - 3 = -2 -> 0 (before v3.2: pads -1/-1)
        {"auto_pad=SAME_UPPER in=7 k=1 strides=4 dilations=1 pads_begin=0 pads_end=0", "pb=0 pe=0 out=2"},
        // dilation is accepted and the dilated kernel used: K = 5, in % 1 = 0, t = 5 - 1 = 4 -> 2/2
        {"auto_pad=SAME_UPPER in=7 k=3 strides=1 dilations=2 pads_begin=0 pads_end=0", "pb=2 pe=2 out=7 d=2"},
        // stride and dilation: K = 5, in % 2 = 1, t = 5 - 1 = 4 -> 2/2, (9 + 4 - 5)/2 + 1 = 5
        {"auto_pad=SAME_LOWER in=9 k=3 strides=2 dilations=2 pads_begin=0 pads_end=0", "pb=2 pe=2 out=5 d=2"},
        // None (or NONE): (5 + 1 + 1 - 3) / 2 + 1 = 3
        {"in=5 k=3 strides=2 dilations=1 pads_begin=1 pads_end=1", "pb=1 pe=1 out=3"},
        {"auto_pad=NONE in=5 k=3 strides=2 dilations=1 pads_begin=1 pads_end=1", "pb=1 pe=1 out=3"},
        // VALID ignores the pads
        {"auto_pad=VALID in=5 k=3 strides=1 dilations=1 pads_begin=1 pads_end=1", "pb=0 pe=0 out=3"},
        // dilations are 1-based in Graph: K = 5
        {"in=7 k=3 strides=1 dilations=2 pads_begin=0 pads_end=0", "d=2 out=3"},
    });
}

TEST(OnednnGraphDialect, Rejects) {
    check_table("onednn_graph", {
        {"auto_pad=same_upper in=7 k=3 strides=1 dilations=1 pads_begin=0 pads_end=0",
         "error auto padding attribute can only be set to the following values: VALID, SAME_UPPER, SAME_LOWER, NONE. given value: same_upper"},
        {"in=7 k=3 dilations=1 pads_begin=0 pads_end=0", "ours the attribute is required"},
        {"in=7 k=3 strides=1 dilations=0 pads_begin=0 pads_end=0", "ours positive values"},
    });
}

// Before v3.2 (the infer_auto_pad that 4029cdbda1 replaced): t = (ceil(in/s)-1)*s + k - in, not
// clamped, the raw kernel, and SAME_* with dilation unimplemented.
TEST(OnednnGraphBeforeV3_2Dialect, ByHand) {
    check_table("onednn_graph@<3.2", {
        {"auto_pad=SAME_LOWER in=7 k=4 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=2 pe=1 out=4"},
        // t = (2-1)*2 + 1 - 4 = -1, not clamped: UPPER pb = -1/2 = 0 (C), pe = -1; LOWER pb = 0/2 = 0, pe = -1
        {"auto_pad=SAME_UPPER in=4 k=1 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=0 pe=-1 out=2"},
        {"auto_pad=SAME_LOWER in=4 k=1 strides=2 dilations=1 pads_begin=0 pads_end=0", "pb=0 pe=-1 out=2"},
        // the case: t = (2-1)*4 + 1 - 7 = -2 -> pads -1/-1
        {"auto_pad=SAME_UPPER in=7 k=1 strides=4 dilations=1 pads_begin=0 pads_end=0", "pb=-1 pe=-1 out=2"},
    });
    check_table("onednn_graph@<3.2", {
        {"auto_pad=SAME_UPPER in=7 k=3 strides=1 dilations=2 pads_begin=0 pads_end=0", "error unimplemented"},
        {"auto_pad=same_upper in=7 k=3 strides=1 dilations=1 pads_begin=0 pads_end=0", "error auto_pad must be None"},
        {"auto_pad=NONE in=7 k=3 strides=1 dilations=1 pads_begin=0 pads_end=0", "error auto_pad must be None"},
    });
}

TEST(OnednnDialects, DefaultLayouts) {
    DialectResult r = cases::run("onednn", "in=5x5 k=3x3");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::ncx);
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::oix);
    r = cases::run("onednn_graph", "in=5x5 k=3x3 strides=1x1 dilations=1x1 pads_begin=0x0 pads_end=0x0");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::nxc);
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::xio);
}
