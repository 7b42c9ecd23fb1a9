// The f32 NCX edges (conversions_avx2.cpp on a CPU with AVX2: 8 channels x 8 pixels per register
// transpose, scalar tails): channel counts below, at and between multiples of 8 and 16, row widths
// and output planes below, at and past multiples of 8, positive pads and crops (negative pads), ranks
// 1 to 3. Every path that converts NCX buffers (blocked, im2col, scalar) must agree exactly with the
// reference on integer data: a float moved to the wrong pixel or channel changes the result.
#include <gtest/gtest.h>

#include <string>

#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

TEST(EdgesNcx, ChannelTailsWidthsPadsAndCropsAgreeWithTheReference) {
    int cases = 0;
    for (int channels : {3, 8, 13, 16, 21, 40})
        for (int width : {5, 8, 9, 17, 24})
            for (const char* pads : {"pb=0x0,pe=0x0", "pb=1x2,pe=2x1", "pb=-1x-1,pe=0x-1"}) {
                const int out = 8 + (channels + width) % 17;  // output channels: tails of the dst edge too
                const std::string text = "conv:n=2,c=" + std::to_string(channels) + ",o=" + std::to_string(out) +
                                         ",in=3x" + std::to_string(width) + ",k=2x3," + pads + ",bias=1,data=ncx";
                EXPECT_TRUE(paths_agree_exactly(text, static_cast<std::uint64_t>(channels * 31 + width),
                                                {Path::blocked_avx2, Path::im2col_gemm}));
                ++cases;
            }
    EXPECT_EQ(cases, 90);
}

TEST(EdgesNcx, RanksAndStridesAgreeWithTheReference) {
    const char* cases[] = {
        "conv:c=24,o=17,in=37,k=3,s=2,pb=1,pe=0,data=ncx",
        "conv:n=2,c=16,o=32,in=4x5x19,k=3x1x3,pb=1x0x1,pe=1x0x-2,bias=1,data=ncx",
        "conv:c=33,o=9,in=16x16,k=1x1,s=2x2,data=ncx",
        "conv:n=3,c=8,o=8,g=2,in=9x12,k=3x3,pb=1x1,pe=1x1,bias=1,data=ncx",
    };
    for (const char* text : cases)
        EXPECT_TRUE(paths_agree_exactly(text, 11, {Path::blocked_avx2, Path::im2col_gemm, Path::scalar})) << text;
}
