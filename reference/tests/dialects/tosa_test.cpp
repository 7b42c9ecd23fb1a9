// TOSA CONV2D / CONV3D / DEPTHWISE_CONV2D (arm/tosa-specification v1.0.1, pseudocode/operators/*.tosac):
// shapes derived by hand from the ERROR_IF output rule, and one test per ERROR_IF rule, named after it
// (as TOSA's own conformance suite names its negative tests).
#include "case_table.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/dialects/tosa.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(TosaDialect, OutputSizesByHand) {
    check_table("tosa", {
        // OH = idiv_check(5 - 1 + 1 + 1 - (3 - 1) * 1, 2) + 1 = 4/2 + 1 = 3
        {"in=5x5 k=3x3 pad=1x1x1x1 stride=2x2", "pb=1x1 pe=1x1 out=3x3 s=2x2"},
        // an MLIR tosa.conv2d (input 2x4x4x3, weight 16x3x6x3, pad [2, 2, 5, 5]) -> 2x6x9x16:
        // OH = 4 - 1 + 4 - 2 + 1 = 6, OW = 4 - 1 + 10 - 5 + 1 = 9
        {"n=2 c=3 o=16 in=4x4 k=3x6 pad=2x2x5x5 stride=1x1 dilation=1x1", "pb=2x5 pe=2x5 out=6x9"},
        // dilation: (9 - 1 - (3 - 1) * 2) / 2 + 1 = 3
        {"in=9x9 k=3x3 stride=2x2 dilation=2x2", "d=2x2 out=3x3"},
        // the graph states the output: accepted when it is the rule's
        {"in=5x5 k=3x3 pad=1x1x1x1 stride=2x2 out=3x3", "out=3x3"},
        // CONV3D: pad [pad_d0, pad_d1, pad_top, pad_bottom, pad_left, pad_right]
        {"op=CONV3D in=5x6x7 k=3x3x3 pad=1x1x0x0x0x2", "pb=1x0x0 pe=1x0x2 out=5x4x7"},
        {"in=5x6x7 k=3x3x3", "out=3x4x5"},
    });
}

TEST(TosaDialect, NhwcDataOhwiWeightsNamed) {
    const DialectResult r = cases::run("tosa", "c=3 o=8 in=5x5 k=3x3 pad=1x1x1x1");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::nxc);
    EXPECT_EQ(r.data_layout, "NHWC");
    EXPECT_EQ(r.filter_layout, "OHWI");  // [OC,KH,KW,IC]: no canonical format, the descriptor says OIX
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::oix);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("[OC,KH,KW,IC]"), std::string::npos);
    EXPECT_EQ(cases::run("tosa", "op=CONV3D in=3x3x3 k=1x1x1").filter_layout, "ODHWI");
    EXPECT_TRUE(cases::run("tosa", "c=4 o=4 in=3x3 k=1x1 bias=4").descriptor.has_bias);
}

// DEPTHWISE_CONV2D: weight [KH,KW,C,M] is the canonical XIO with groups = C, output channel c*M + m.
TEST(TosaDialect, DepthwiseIsCanonicalXioWithGroupsC) {
    const DialectResult r = cases::run("tosa", "op=DEPTHWISE_CONV2D c=2 multiplier=3 in=4x4 k=3x3 pad=1x1x1x1");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.groups, 2);
    EXPECT_EQ(r.descriptor.out_channels, 6);
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::xio);
    EXPECT_EQ(r.filter_layout, "HWCM");
    // the pseudo-code's loop, literally, on a 1x1 input: out[c*M + m] = in[c] * weight[0][0][c][m]
    const DialectResult one = cases::run("tosa", "op=DEPTHWISE_CONV2D c=2 multiplier=2 in=1x1 k=1x1");
    ASSERT_TRUE(one.ok());
    const std::vector<double> input{3, 5}, weight_hwcm{1, 2, 10, 20};  // [1][1][C=2][M=2]
    EXPECT_EQ(reference::convolution_summation(one.descriptor, input, weight_hwcm, {}).dst,
              (std::vector<double>{3, 6, 50, 100}));
    check_table("tosa", {{"op=DEPTHWISE_CONV2D c=2 o=5 in=4x4 k=3x3", "ours C*M channels"}});
}

// One test per ERROR_IF rule of CONV2D (and the rank's own names for CONV3D).
TEST(TosaErrorIf, InputZeroPointOnlyForI8) {
    check_table("tosa", {{"in=5x5 k=3x3 input_zp=1", "error ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0)"}});
}
TEST(TosaErrorIf, WeightZeroPointOnlyForI8) {
    check_table("tosa", {{"in=5x5 k=3x3 weight_zp=-1", "error ERROR_IF(!is_same<weight_t,i8_t>() && weight_zp != 0)"}});
}
TEST(TosaErrorIf, PadsAreNeverNegative) {
    check_table("tosa", {
        {"in=5x5 k=3x3 pad=0x-1x0x0", "error ERROR_IF(pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0)"},
        {"op=CONV3D in=5x5x5 k=3x3x3 pad=-1x0x0x0x0x0", "error ERROR_IF(pad_d0 < 0 || pad_d1 < 0 || pad_top < 0"},
    });
}
TEST(TosaErrorIf, StrideAtLeastOne) {
    check_table("tosa", {{"in=5x5 k=3x3 stride=1x0", "error ERROR_IF(stride_y < 1 || stride_x < 1)"},
                         {"op=CONV3D in=5x5x5 k=1x1x1 stride=0x1x1", "error ERROR_IF(stride_d < 1 || stride_y < 1 || stride_x < 1)"}});
}
TEST(TosaErrorIf, DilationAtLeastOne) {
    check_table("tosa", {{"in=5x5 k=3x3 dilation=0x1", "error ERROR_IF(dilation_y < 1 || dilation_x < 1)"}});
}
// The padded extent minus the dilated kernel must divide exactly by the stride (idiv_check):
// IH - 1 + pads - (KH - 1) * dilation_y = 6 - 1 - 2 = 3, not a multiple of 2.
TEST(TosaErrorIf, OutputHeightRuleNeedsAnExactDivision) {
    check_table("tosa", {
        {"in=6x5 k=3x3 stride=2x2",
         "error ERROR_IF(OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1): "
         "idiv_check's ERROR_IF(input1 % input2 != 0): IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y = 3 "
         "is not a multiple of stride_y = 2"},
        // one more pad makes it exact: (6 - 1 + 1 - 2) / 2 + 1 = 3
        {"in=6x5 k=3x3 stride=2x2 pad=0x1x0x0", "out=3x2"},
        // a stated OH that is not the rule's
        {"in=5x5 k=3x3 out=4x3", "error ERROR_IF(OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1): OH = 4 but the rule gives 3"},
    });
}
TEST(TosaErrorIf, OutputWidthRuleNeedsAnExactDivision) {
    check_table("tosa", {{"in=5x6 k=3x3 stride=2x2",
                          "error ERROR_IF(OW != idiv_check(IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x, stride_x) + 1)"}});
    check_table("tosa", {{"op=CONV3D in=6x5x5 k=3x3x3 stride=2x2x2",
                          "error ERROR_IF(OD != idiv_check(ID - 1 + pad_d0 + pad_d1 - (KD - 1) * dilation_d, stride_d) + 1)"}});
}
TEST(TosaErrorIf, BiasHasOcOrOneElements) {
    check_table("tosa", {{"o=4 in=5x5 k=3x3 bias=3", "error ERROR_IF(BC != OC && BC != 1)"},
                         {"op=DEPTHWISE_CONV2D c=2 multiplier=2 in=5x5 k=3x3 bias=3", "error ERROR_IF(BC != C*M && BC != 1)"},
                         // legal TOSA that the canonical descriptor cannot say: a broadcast bias
                         {"o=4 in=5x5 k=3x3 bias=1", "ours a bias of shape [1] broadcast"}});
}
// The introduction: "The tensor shape in each dimension must be greater than or equal to 1": a
// kernel larger than the padded input is an error, never an empty tensor. (2 - 1 - 2) / 1 + 1 = 0.
TEST(TosaErrorIf, TensorShapesAreAtLeastOne) {
    check_table("tosa", {{"in=2x2 k=3x3", "error The tensor shape in each dimension must be greater than or equal to 1: OH = 0"},
                         {"in=2x2 k=0x3", "error The tensor shape in each dimension must be greater than or equal to 1 (weight)"}});
}

TEST(TosaDialect, RefusesWhatItCannotSay) {
    check_table("tosa", {{"in=7 k=3", "ours CONV2D has 2 spatial axes"},
                         {"op=CONV3D in=7x7 k=3x3", "ours CONV3D has 3 spatial axes"},
                         {"op=CONV1D in=7 k=3", "ours must be CONV2D, CONV3D or DEPTHWISE_CONV2D"},
                         {"in=5x5 k=3x3 pad=1x1", "ours [pad_top, pad_bottom, pad_left, pad_right]"}});
}
