// Backward passes on small cases computed by hand from the forward's index set
// x = y*S - P_L + k*D (seed 002); each comment carries the computation, the descriptor string
// reproduces the case. Backward data is checked against both readings.
#include <gtest/gtest.h>

#include "convcheck/reference/backward.hpp"

using namespace convcheck;

namespace {

struct BackwardHandCase {
    const char* name;
    const char* descriptor;
    std::vector<double> src, weights, diff_dst;
    std::vector<double> diff_src, diff_weights, diff_bias;
    std::vector<std::int64_t> diff_src_terms, diff_weights_terms;
};

const std::vector<BackwardHandCase>& hand_cases() {
    static const std::vector<BackwardHandCase> cases = {
        // The forward hand case "PadStretchKeepEverySecond": in 5, k 2, d 2, s 2, pb 1, pe 2, 3 outputs.
        // Pairs x = 2y - 1 + 2k: y0: k0 -> -1 (pad), k1 -> 1; y1: k0 -> 1, k1 -> 3; y2: k0 -> 3, k1 -> 5 (pad).
        // W [1 2], dy [1 10 100]: dx1 = dy0*W1 + dy1*W0 = 2 + 10 = 12, dx3 = dy1*W1 + dy2*W0 = 20 + 100 = 120;
        // x0, x2, x4 pair with nothing. src [1..5]: dW0 = x1*dy1 + x3*dy2 = 20 + 400 = 420,
        // dW1 = x1*dy0 + x3*dy1 = 2 + 40 = 42. db = 1 + 10 + 100.
        {"PadStretchKeepEverySecond", "c=1,o=1,in=5,k=2,d=2,s=2,pb=1,pe=2,bias=1",
         {1, 2, 3, 4, 5}, {1, 2}, {1, 10, 100},
         {0, 12, 0, 120, 0}, {420, 42}, {111}, {0, 2, 0, 2, 0}, {2, 2}},
        // Negative pads crop: in 6, k 2, pb -1, pe -2: 2 outputs, x = y + 1 + k: y0 -> 1, 2; y1 -> 2, 3.
        // W [1 -1], dy [1 10]: dx1 = 1, dx2 = -1 + 10 = 9, dx3 = -10; x0, x4, x5 (cropped) get 0.
        // src [1..6]: dW0 = x1*1 + x2*10 = 2 + 30 = 32, dW1 = x2*1 + x3*10 = 3 + 40 = 43.
        {"NegativePadsCrop", "c=1,o=1,in=6,k=2,pb=-1,pe=-2,bias=1",
         {1, 2, 3, 4, 5, 6}, {1, -1}, {1, 10},
         {0, 1, 9, -10, 0, 0}, {32, 43}, {11}, {0, 1, 2, 1, 0, 0}, {2, 2}},
        // Depthwise 2-D (the forward hand case "GroupsAndBias"): x = y + k, 2x2 outputs per channel.
        //   ch0: W [1 0; 0 1], dy [1 2; 3 4]: tap (0,0) puts dy at x = y, tap (1,1) at y + (1,1):
        //        dx = [1 2 0; 3 4+1 2; 0 3 4]
        //        src [1 2 3; 4 5 6; 7 8 9]: dW(k) = sum_y src(y+k) dy(y): (0,0) 1+4+12+20 = 37,
        //        (0,1) 2+6+15+24 = 47, (1,0) 4+10+21+32 = 67, (1,1) 5+12+24+36 = 77
        //   ch1: W all ones, dy [1 0; 0 1]: dx = ones at y=(0,0)'s 2x2 window plus y=(1,1)'s:
        //        [1 1 0; 1 2 1; 0 1 1]; src identity: dW(k) = src(k) + src(k+(1,1)) = [2 0; 0 2]
        //   db = [1+2+3+4, 1+0+0+1]. Every tap pairs with 4 outputs; group 1 never reads channel 0.
        {"DepthwiseGroups", "c=2,o=2,g=2,in=3x3,k=2x2,bias=1",
         {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {1, 0, 0, 1, 1, 1, 1, 1}, {1, 2, 3, 4, 1, 0, 0, 1},
         {1, 2, 0, 3, 5, 2, 0, 3, 4, 1, 1, 0, 1, 2, 1, 0, 1, 1}, {37, 47, 67, 77, 2, 0, 0, 2}, {10, 2},
         {1, 2, 1, 2, 4, 2, 1, 2, 1, 1, 2, 1, 2, 4, 2, 1, 2, 1}, {4, 4, 4, 4, 4, 4, 4, 4}},
        // Two images, two input channels into one output (no groups), in 2, k 1: x = y.
        // W [1 2]: dx(n, c) = W_c * dy(n); dy [1 -1 | 3 5] -> dx [1 -1 2 -2 | 3 5 6 10].
        // src [1 2 4 5 | 0 1 2 3]: dW_c = sum_n sum_y src(n,c,y) dy(n,y):
        //   c0: 1*1 + 2*-1 + 0*3 + 1*5 = 4;  c1: 4*1 + 5*-1 + 2*3 + 3*5 = 20. Four terms each: n*y.
        {"BatchIsSummedInWeightsGradient", "n=2,c=2,o=1,in=2,k=1,bias=1",
         {1, 2, 4, 5, 0, 1, 2, 3}, {1, 2}, {1, -1, 3, 5},
         {1, -1, 2, -2, 3, 5, 6, 10}, {4, 20}, {8}, {1, 1, 1, 1, 1, 1, 1, 1}, {4, 4}},
    };
    return cases;
}

std::vector<double> as_doubles(const std::vector<std::int64_t>& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST(BackwardHandCases, BackwardDataSummation) {
    for (const auto& c : hand_cases()) {
        const auto d = parse_descriptor(c.descriptor);
        const auto r = reference::backward_data_summation(d, c.diff_dst, c.weights);
        EXPECT_EQ(r.values, c.diff_src) << c.name << ": " << to_string(d);
        EXPECT_EQ(as_doubles(r.terms), as_doubles(c.diff_src_terms)) << c.name << ": " << to_string(d);
    }
}

TEST(BackwardHandCases, BackwardDataAsStuffedConvolution) {
    for (const auto& c : hand_cases()) {
        const auto d = parse_descriptor(c.descriptor);
        EXPECT_EQ(reference::backward_data_as_stuffed_convolution(d, c.diff_dst, c.weights), c.diff_src)
            << c.name << ": " << to_string(d);
    }
}

TEST(BackwardHandCases, BackwardWeightsAndBiasSummation) {
    for (const auto& c : hand_cases()) {
        const auto d = parse_descriptor(c.descriptor);
        const auto r = reference::backward_weights_summation(d, c.src, c.diff_dst);
        EXPECT_EQ(r.values, c.diff_weights) << c.name << ": " << to_string(d);
        EXPECT_EQ(as_doubles(r.terms), as_doubles(c.diff_weights_terms)) << c.name << ": " << to_string(d);
        EXPECT_EQ(reference::backward_bias_summation(d, c.diff_dst).values, c.diff_bias) << c.name << ": " << to_string(d);
    }
}

// The stuffed convolution of "PadStretchKeepEverySecond" (with three output channels, which become
// the stuffed convolution's input channels): dy [1 10 100] stuffed with one zero
// between neighbours is 5 long; pads_begin = D*(K-1) - P_L = 2 - 1 = 1, and pads_end makes the
// output the input's 5: 5 + 1 + pads_end - 3 + 1 = 5, pads_end = 1.
TEST(BackwardHandCases, StuffedConvolutionGeometry) {
    const auto d = parse_descriptor("c=1,o=3,in=5,k=2,d=2,s=2,pb=1,pe=2");
    const auto s = reference::stuffed_convolution_descriptor(d);
    EXPECT_EQ(to_string(s), "conv:n=1,c=3,o=1,g=1,in=5,k=2,s=1,d=2,pb=1,pe=1,bias=0,dt=f32,data=ncx,wei=oix");
}

// Wrong canonical array sizes are refused with the tensor's name, not read out of bounds.
TEST(BackwardHandCases, WrongArraySizesAreAConvError) {
    const auto d = parse_descriptor("c=1,o=1,in=5,k=2");
    const std::vector<double> four(4), two(2), five(5);
    EXPECT_THROW(reference::backward_data_summation(d, five, two), ConvError);
    EXPECT_THROW(reference::backward_weights_summation(d, four, four), ConvError);
    EXPECT_THROW(reference::backward_bias_summation(d, five), ConvError);
    try {
        reference::backward_data_summation(d, four, five);
        FAIL() << "no ConvError";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "weights");
    }
}
