// Reading 1 against small cases computed by hand from the seed texts.
#include <gtest/gtest.h>

#include "convcheck/reference/convolution.hpp"

using namespace convcheck;

TEST(Summation, OneDimensionalByHand) {
    // in = [1 2 3 4 5], k = [1 0 -1], pads 1/1, stride 2: padded [0 1 2 3 4 5 0]
    // windows at 0, 2, 4: (0 - 2), (2 - 4), (4 - 0) = -2, -2, 4
    auto d = parse_descriptor("c=1,o=1,in=5,k=3,s=2,pb=1,pe=1");
    auto r = reference::convolution_summation(d, std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{1, 0, -1}, {});
    EXPECT_EQ(r.dst, (std::vector<double>{-2, -2, 4}));
    EXPECT_EQ(r.magnitude, (std::vector<double>{2, 6, 4}));
    EXPECT_EQ(r.terms, (std::vector<std::int64_t>{2, 3, 2}));
}

TEST(Summation, DilationAndBiasByHand) {
    // in = [1 2 3 4 5], k = [1 1], d = 3: taps at x and x+3 -> 1+4, 2+5; bias 10
    auto d = parse_descriptor("c=1,o=1,in=5,k=2,d=3,bias=1");
    auto r = reference::convolution_summation(d, std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{1, 1},
                                              std::vector<double>{10});
    EXPECT_EQ(r.dst, (std::vector<double>{15, 17}));
    EXPECT_EQ(r.terms, (std::vector<std::int64_t>{3, 3}));
}
