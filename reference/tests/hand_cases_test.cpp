// Small cases computed by hand from the seed texts, checked against both readings.
// Each comment carries the hand computation; the descriptor string reproduces the case.
#include <gtest/gtest.h>

#include "convcheck/reference/as_if.hpp"
#include "convcheck/reference/convolution.hpp"

using namespace convcheck;

namespace {

struct HandCase {
    const char* name;
    const char* descriptor;
    std::vector<double> src, weights, bias;
    std::vector<std::int64_t> dst_dims;  // NCX
    std::vector<double> dst;
};

const std::vector<HandCase>& hand_cases() {
    static const std::vector<HandCase> cases = {
        // Seed 001, step by step. Input [1 2 3 4 5], p_b = 1, p_e = 2: padded [0 1 2 3 4 5 0 0] (8).
        // Kernel [1 2] stretched by d = 2: [1 0 2], last index d(X_K-1) = 2.
        // Complete overlap: 8 - 2 = 6 positions p = 0..5:
        //   p0 0+0+2*2=4, p1 1+0+3*2=7, p2 2+0+4*2=10, p3 3+0+5*2=13, p4 4+0+0=4, p5 5+0+0=5.
        // Keep multiples of s = 2: p0 p2 p4 -> [4 10 4]; floor((1+2+5-2*1-1)/2)+1 = 3 outputs.
        {"PadStretchKeepEverySecond", "c=1,o=1,in=5,k=2,d=2,s=2,pb=1,pe=2",
         {1, 2, 3, 4, 5}, {1, 2}, {}, {1, 1, 3}, {4, 10, 4}},
        // Negative pads crop: input [1 2 3 4 5 6], p_b = -1, p_e = -2: "padded" [2 3 4] (6-1-2 = 3).
        // Kernel [1 -1]: 3 - 1 = 2 positions: 2-3 = -1, 3-4 = -1.
        {"NegativePadsCrop", "c=1,o=1,in=6,k=2,pb=-1,pe=-2",
         {1, 2, 3, 4, 5, 6}, {1, -1}, {}, {1, 1, 2}, {-1, -1}},
        // Seed 002 "Convolution with Groups", G = 2, IC_G = OC_G = 1, bias [10 -1], 3x3 inputs:
        //   ch0 = [1 2 3; 4 5 6; 7 8 9] with kernel [1 0; 0 1]: 1+5=6, 2+6=8, 4+8=12, 5+9=14; +10
        //   ch1 = identity [1 0 0; 0 1 0; 0 0 1] with [1 1; 1 1]: 2, 1, 1, 2; -1
        {"GroupsAndBias", "c=2,o=2,g=2,in=3x3,k=2x2,bias=1",
         {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {1, 0, 0, 1, 1, 1, 1, 1}, {10, -1},
         {1, 2, 2, 2}, {16, 18, 22, 24, 1, 0, 0, 1}},
        // 4x4 input 1..16, 3x3 ones kernel, pads 1 all round, s = 2: padded 6x6, 4x4 full-overlap
        // positions, keep rows/cols 0 and 2 -> 2x2; floor((1+1+4-2-1)/2)+1 = 2.
        //   (0,0) rows 0-1, cols 0-1: 1+2+5+6 = 14        (0,1) rows 0-1, cols 1-3: 2+3+4+6+7+8 = 30
        //   (1,0) rows 1-3, cols 0-1: 5+6+9+10+13+14 = 57 (1,1) rows 1-3, cols 1-3: 21+33+45 = 99
        {"StridedPadded2D", "c=1,o=1,in=4x4,k=3x3,s=2x2,pb=1x1,pe=1x1",
         {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {},
         {1, 1, 2, 2}, {14, 30, 57, 99}},
        // 3-D, dilation 2 on depth only, two samples: depth columns [1 2 3] and [10 20 30], kernel
        // [1 1] stretched to [1 0 1]: 1+3 = 4 and 10+30 = 40; one output each (3 - 2*1 = 1).
        {"DilatedDepthTwoSamples", "n=2,c=1,o=1,in=3x1x1,k=2x1x1,d=2x1x1",
         {1, 2, 3, 10, 20, 30}, {1, 1}, {}, {2, 1, 1, 1, 1}, {4, 40}},
        // Two input channels summed into two output channels (no groups), 1-D, k = 1:
        //   oc0 = 1*x0 + 2*x1 = [1+2*4, 2+2*5] = [9 12]; oc1 = -1*x0 + 0*x1 = [-1 -2]
        {"ChannelsSum", "c=2,o=2,in=2,k=1",
         {1, 2, 4, 5}, {1, 2, -1, 0}, {}, {1, 2, 2}, {9, 12, -1, -2}},
    };
    return cases;
}

}  // namespace

TEST(HandCases, SummationReading) {
    for (const auto& c : hand_cases()) {
        const auto d = parse_descriptor(c.descriptor);
        const auto r = reference::convolution_summation(d, c.src, c.weights, c.bias);
        EXPECT_EQ(r.dst, c.dst) << c.name << ": " << to_string(d);
    }
}

TEST(HandCases, AsIfReading) {
    for (const auto& c : hand_cases()) {
        const auto d = parse_descriptor(c.descriptor);
        const auto r = reference::convolution_as_if(d, c.src, c.weights, c.bias);
        EXPECT_EQ(r.dst_dims, c.dst_dims) << c.name << ": " << to_string(d);
        EXPECT_EQ(r.dst, c.dst) << c.name << ": " << to_string(d);
    }
}

TEST(HandCases, ShapesAgreeWithTheFormula) {
    for (const auto& c : hand_cases()) {
        const auto d = parse_descriptor(c.descriptor);
        std::vector<std::int64_t> formula{d.batch, d.out_channels};
        for (int a = 0; a < d.rank; ++a) formula.push_back(d.output_size(a));
        EXPECT_EQ(formula, c.dst_dims) << c.name << ": " << to_string(d);
    }
}
