// StableHLO convolution (openxla/stablehlo docs/spec.md; verifier messages from
// stablehlo/dialect/TypeInference.cpp): num_windows (C25) by hand, the spec's and the verifier tests'
// own examples (stablehlo/tests/verify_convolution.mlir), one test per constraint it refuses, and
// the forms convcheck does not compute, refused naming the attribute.
#include "case_table.hpp"
#include "convcheck/reference/dialects/stablehlo.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(StablehloDialect, NumWindowsByHand) {
    check_table("stablehlo", {
        // padded = 1 + 5 + 1 = 7, window 3: floor((7 - 3) / 2) + 1 = 3
        {"in=5 k=3 window_strides=2 padding=1x1", "pb=1 pe=1 out=3"},
        // negative padding crops: padded = -1 + 6 - 2 = 3, window 3: 1
        {"in=6 k=3 padding=-1x-2", "pb=-1 pe=-2 out=1"},
        // rhs (window) dilation: window (3 - 1) * 2 + 1 = 5; (9 - 5) / 2 + 1 = 3
        {"in=9x9 k=3x3 window_strides=2x2 rhs_dilation=2x2", "d=2x2 out=3x3"},
        // empty outputs are legal where the window does not fit: 3 > 2, or padded <= 0
        {"in=2 k=3", "empty out=0"},
        {"in=4 k=1 padding=-2x-2", "empty out=0"},
        {"in=5x2 k=3x3", "empty out=3x0"},
        // ... however far the window overhangs (floor would give -3), and however negative the padded size
        {"in=1 k=5", "empty out=0"},
        {"in=2 k=1 padding=-3x-3", "empty out=0"},
        // feature_group_count is the canonical groups
        {"c=4 o=6 in=5 k=3 feature_group_count=2", "out=3"},
    });
}

// verify_convolution.mlir, @convolution: lhs 100x26x26x32, rhs 3x3x1x32 with
// kernel_input_feature_dimension = 3, kernel_output_feature_dimension = 2 ([0, 1, o, i]), padding 2
// -> 100x28x28x1.
TEST(StablehloDialect, TheVerifierTestsFirstExample) {
    const DialectResult r = cases::run("stablehlo", "n=100 c=32 o=1 in=26x26 k=3x3 padding=2x2x2x2 dim_labels=b01f_01oi->b01f");
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_EQ(cases::spatial(r.output_size), "28x28");
    EXPECT_EQ(r.descriptor.data_format, DataFormat::nxc);
    EXPECT_EQ(r.filter_layout, "01oi");  // no canonical filter format stores it: named, OIX in the descriptor
    ASSERT_EQ(r.notes.size(), 1u);
    const DialectResult nchw = cases::run("stablehlo", "in=5x5 k=3x3 dim_labels=bf01_01io->bf01");
    ASSERT_TRUE(nchw.ok());
    EXPECT_EQ(nchw.descriptor.data_format, DataFormat::ncx);
    EXPECT_EQ(nchw.descriptor.filter_format, FilterFormat::xio);
    EXPECT_TRUE(nchw.notes.empty());
}

// docs/spec.md's example: lhs 1x4x4x1, rhs 3x3x1x1, window_strides [4, 4], lhs_dilation [2, 2] ->
// 1x2x2x1. The shape is legal StableHLO; lhs dilation is a transposed convolution: refused, named.
TEST(StablehloDialect, TheSpecExampleDilatesTheInputAndIsRefusedNamingLhsDilation) {
    check_table("stablehlo", {{"in=4x4 k=3x3 window_strides=4x4 lhs_dilation=2x2 dim_labels=b01f_01io->b01f",
                               "ours lhs (input) dilation > 1 dilates the input: a transposed convolution"}});
    const DialectResult r = cases::run("stablehlo", "in=4x4 k=3x3 window_strides=4x4 lhs_dilation=2x2");
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->attribute, "lhs_dilation");
}

TEST(StablehloDialect, BatchGroupsAreRefusedNamingTheAttribute) {
    const DialectResult r = cases::run("stablehlo", "n=2 c=1 o=2 in=4 k=3 batch_group_count=2");
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->attribute, "batch_group_count");
    EXPECT_FALSE(r.error->framework_wording);
    EXPECT_NE(r.error->message.find("backward-weights"), std::string::npos);
    check_table("stablehlo", {{"in=4 k=3 window_reversal=true", "ours a reversed window flips the kernel"}});
}

// One test per constraint the verifier checks, with its message (verify_convolution.mlir's expected-error).
TEST(StablehloConstraints, C2WindowStridesSize) {
    check_table("stablehlo", {{"in=8x8 k=3x3 window_strides=1",
                               "error expects window-strides to have same dimension-size as size of window dimensions (2), but got: 1."}});
}
TEST(StablehloConstraints, C3PositiveStride) {
    check_table("stablehlo", {{"in=8x8 k=3x3 window_strides=1x0",
                               "error expects window to have positive stride for 1-th window dimension, but got 0."}});
}
TEST(StablehloConstraints, C4PaddingShape) {
    check_table("stablehlo", {{"in=8x8 k=3x3 padding=1x1",
                               "error expects padding-entries to have same dimension-size as size of window dimensions (2), but got: 1."}});
}
TEST(StablehloConstraints, C5C6LhsDilation) {
    check_table("stablehlo", {{"in=8x8 k=3x3 lhs_dilation=1", "error expects base-dilation factors to have same dimension-size"},
                              {"in=8x8 k=3x3 lhs_dilation=1x0", "error positive base dilation factor for 1-th window dimension, but got 0."}});
}
TEST(StablehloConstraints, C7C8RhsDilation) {
    check_table("stablehlo", {{"in=8x8 k=3x3 rhs_dilation=1x1x1", "error expects window-dilation factors to have same dimension-size"},
                              {"in=8x8 k=3x3 rhs_dilation=0x1", "error positive window dilation factor for 0-th window dimension, but got 0."}});
}
TEST(StablehloConstraints, C9WindowReversalSize) {
    check_table("stablehlo", {{"in=8x8 k=3x3 window_reversal=false", "error expects window-reversal to have same dimension-size"}});
}
TEST(StablehloConstraints, C10BatchDivisibleByBatchGroupCount) {
    check_table("stablehlo", {{"n=5 c=207 o=16 in=8x8 k=3x3 batch_group_count=2",
                               "error expects input batch dimension (5) to be divisible by batch_group_count. Got batch_group_count = 2."}});
}
TEST(StablehloConstraints, C11FeaturesMultipleOfFeatureGroupCount) {
    check_table("stablehlo", {{"c=207 o=16 in=8x8 k=3x3 feature_group_count=2",
                               "error expects input feature dimension (207) to be a multiple of feature_group_count. Got feature_group_count = 2."}});
}
TEST(StablehloConstraints, C15OutputFeaturesMultipleOfBatchGroupCount) {
    check_table("stablehlo", {{"n=3 c=207 o=16 in=8x8 k=3x3 batch_group_count=3",
                               "error expects output feature dimension size (16) to be a multiple of batch_group_count. Got batch_group_count = 3."}});
}
TEST(StablehloConstraints, C16OutputFeaturesDivisibleByFeatureGroupCount) {
    check_table("stablehlo", {{"c=207 o=16 in=8x8 k=3x3 feature_group_count=3",
                               "error expects kernel output feature dimension (16) to be divisible by feature_group_count. For feature_group_count = 3."}});
}
TEST(StablehloConstraints, C21C22PositiveGroupCounts) {
    check_table("stablehlo", {{"in=8x8 k=3x3 feature_group_count=0",
                               "error op attribute 'feature_group_count' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive"},
                              {"in=8x8 k=3x3 batch_group_count=-1",
                               "error op attribute 'batch_group_count' failed to satisfy constraint"}});
}
TEST(StablehloConstraints, C23NotBothGroupCounts) {
    check_table("stablehlo", {{"n=2 c=2 o=4 in=8x8 k=3x3 feature_group_count=2 batch_group_count=2",
                               "error expects batch_group_count and feature_group_count not to be both greater than 1. Got 2 and 2 resp."}});
}
TEST(StablehloConstraints, PositiveWindowSize) {
    check_table("stablehlo", {{"in=8x8 k=0x3", "error expects window to have positive value for 0-th window dimension, but got 0."}});
}
TEST(StablehloConstraints, DimensionNumbers) {
    check_table("stablehlo", {{"in=8x8 k=3x3 dim_labels=b01f_01io", "ours written <input>_<kernel>-><output>"},
                              {"in=8x8 k=3x3 dim_labels=b00f_01io->b00f", "ours exactly once (C13, C18, C20)"},
                              {"in=8x8 k=3x3 dim_labels=fb01_oi01->fb01", "ours no canonical data format stores it"},
                              {"in=8x8 k=3x3 dim_labels=b01f_01io->bf01", "ours differs from the input's"}});
}
