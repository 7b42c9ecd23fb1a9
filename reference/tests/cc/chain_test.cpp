// Paper, appendix A.2, Eq. 4 and Table 4: the output shapes of an 8-layer CC chain on a 32x32
// input with target scale 1/4, for both augmentation examples, with the exact scales of the table.
#include <gtest/gtest.h>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/cc/chain.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

Scale2 sc(std::int64_t ph, std::int64_t qh, std::int64_t pw, std::int64_t qw) { return {Rational(ph, qh), Rational(pw, qw)}; }

const Scale2 kTarget = sc(1, 4, 1, 4);

// Table 4, augmentation example 1: layer, [s_h, s_w], [H, W] output
const std::vector<Scale2> kExample1Scales{sc(1, 1, 1, 1), sc(5, 6, 7, 9),     sc(5, 6, 4, 5), sc(8, 9, 5, 6),
                                          sc(189, 250, 3, 4), sc(6, 7, 6, 7), sc(5, 6, 7, 8), sc(3, 4, 6, 7)};
const std::vector<Shape2> kExample1Shapes{{32, 32}, {27, 25}, {23, 20}, {20, 17}, {15, 13}, {13, 11}, {11, 10}, {8, 8}};

// augmentation example 2
const std::vector<Scale2> kExample2Scales{sc(1, 1, 1, 1), sc(75, 98, 7, 8), sc(4, 5, 2, 3), sc(4, 5, 3, 4),
                                          sc(7, 8, 5, 6),  sc(5, 6, 5, 6),  sc(7, 9, 864, 875), sc(9, 10, 5, 6)};
const std::vector<Shape2> kExample2Shapes{{32, 32}, {25, 28}, {20, 19}, {16, 14}, {14, 12}, {12, 10}, {9, 10}, {8, 8}};

}  // namespace

TEST(Chain, Table4AugmentationExample1) {
    EXPECT_EQ(chain_output_shapes({32, 32}, kExample1Scales, kTarget), kExample1Shapes);
}

TEST(Chain, Table4AugmentationExample2) {
    EXPECT_EQ(chain_output_shapes({32, 32}, kExample2Scales, kTarget), kExample2Shapes);
}

TEST(Chain, Table4ScalesMultiplyToTheTarget) {
    // "we uniformly at random choose one layer j and set s_j = (1/4) / prod_{i != j} s_i"
    for (const auto* scales : {&kExample1Scales, &kExample2Scales})
        for (int a = 0; a < 2; ++a) {
            Rational product(1);
            for (const Scale2& s : *scales) product = product * s[a];
            EXPECT_EQ(product, Rational(1, 4)) << "axis " << a;
        }
}

TEST(Chain, ShapesComeFromTheCumulativeProductNotFromTheRoundedPreviousShape) {
    // Eq. 4 measures every layer from the chain's input. Example 1, layer 3 (H): 32 * 5/6 * 5/6 =
    // 22.2 -> 23, while ceil(27 * 5/6) from the previous output would give 23 too, but layer 4:
    // 32 * 25/36 * 8/9 = 19.75 -> 20 and ceil(23 * 8/9) = 21.
    const auto shapes = chain_output_shapes({32, 32}, kExample1Scales, kTarget);
    EXPECT_EQ(shapes[3][0], 20);
    EXPECT_EQ((Rational(23) * Rational(8, 9)).ceil(), 21);
}

TEST(Chain, LayerDescriptorsRunThroughTheReference) {
    // every layer of example 2 as a CC layer (input = previous output, Eq. 4 output size), chained
    CcDescriptor base = parse_cc_descriptor("cin=1,cout=1,in=4,kernel=linear");
    std::vector<double> x = cctest::uniform(32 * 32, 3);
    for (std::size_t j = 0; j < kExample2Scales.size(); ++j) {
        const CcDescriptor d = chain_layer(base, {32, 32}, kExample2Scales, kTarget, j);
        EXPECT_EQ(d.output_size, kExample2Shapes[j]) << to_string(d);
        ASSERT_EQ(static_cast<std::int64_t>(x.size()), d.src_elements()) << to_string(d);
        x = cc_four_blocks(d, x, cctest::kernel_for(d, 0), {}).dst;
    }
    EXPECT_EQ(x.size(), 64u);
}

TEST(Chain, BadChainsAreErrors) {
    EXPECT_THROW(chain_output_shapes({32, 32}, {}, kTarget), ConvError);
    EXPECT_THROW(chain_output_shapes({0, 32}, kExample1Scales, kTarget), ConvError);
    EXPECT_THROW(chain_output_shapes({32, 32}, {sc(0, 1, 1, 1)}, kTarget), ConvError);
    EXPECT_THROW(chain_output_shapes({32, 32}, kExample1Scales, sc(-1, 4, 1, 4)), ConvError);
}
