// Reading 1 against small cases computed by hand from the seed texts, and its error scale.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

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

// The error scale of the accuracy contract: magnitude = sum |src*w| (+ |bias|) is the convolution of
// the absolute values, and terms = the products that fall inside the input (+ 1 for bias) is the
// convolution of all-ones data.
RC_GTEST_PROP(Summation, MagnitudeAndTermsAreConvolutionsOfAbsoluteValuesAndOnes, ()) {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    const auto d = *testgen::valid_descriptor(lim);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const auto p = testdata::make_problem(d, seed);
    auto absolute = [](std::vector<double> v) {
        for (auto& x : v) x = std::fabs(x);
        return v;
    };
    const auto r = reference::convolution_summation(d, p.src, p.weights, p.bias);
    const auto of_absolutes =
        reference::convolution_summation(d, absolute(p.src), absolute(p.weights), absolute(p.bias));
    const auto of_ones = reference::convolution_summation(d, std::vector<double>(p.src.size(), 1.0),
                                                          std::vector<double>(p.weights.size(), 1.0),
                                                          std::vector<double>(p.bias.size(), 1.0));
    for (std::size_t i = 0; i < r.dst.size(); ++i) {
        if (r.magnitude[i] != of_absolutes.dst[i] || double(r.terms[i]) != of_ones.dst[i])
            RC_FAIL("output " + std::to_string(i) + "; " + testdata::repro(d, seed));
        RC_ASSERT(std::fabs(r.dst[i]) <= r.magnitude[i]);
    }
}
