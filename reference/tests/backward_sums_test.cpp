// The fast backward sums (backward_data_summation, backward_weights_summation: elements advanced
// together, chunks in registers, threads) add every gradient element's terms in the literal walk's
// order: on data whose sums round (so any other order would show), every value, magnitude and term
// count equals, bit for bit, backward_*_walk (one (output, term) pair at a time over the index set),
// on random descriptors of every rank with groups, strides, dilations and negative pads, narrow and wide.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "convcheck/reference/backward.hpp"
#include "convcheck/testing/random_descriptor.hpp"
#include "problem_data.hpp"

using namespace convcheck;

namespace {

// Values of mixed sign spread over 2^-12 .. 2^12: their sums round in double.
std::vector<double> spread(std::int64_t count, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-12, 12);
    std::vector<double> values(static_cast<std::size_t>(count));
    for (double& v : values) v = std::ldexp(mantissa(rng), exponent(rng));
    return values;
}

std::string exact_text(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%a", v);
    return text;
}

// "" when the two results are the same bit for bit.
std::string compare(const char* what, const reference::GradientResult& fast, const reference::GradientResult& walk,
                    const ConvDescriptor& d, std::uint64_t seed) {
    for (std::size_t i = 0; i < walk.values.size(); ++i)
        if (std::memcmp(&fast.values[i], &walk.values[i], sizeof(double)) != 0 ||
            std::memcmp(&fast.magnitude[i], &walk.magnitude[i], sizeof(double)) != 0 || fast.terms[i] != walk.terms[i])
            return std::string(what) + " element " + std::to_string(i) + ": " + exact_text(fast.values[i]) + " vs walk " +
                   exact_text(walk.values[i]) + " (magnitude " + exact_text(fast.magnitude[i]) + " vs " +
                   exact_text(walk.magnitude[i]) + ", terms " + std::to_string(fast.terms[i]) + " vs " +
                   std::to_string(walk.terms[i]) + "); " + testdata::repro(d, seed);
    return fast.values.size() == walk.values.size() ? "" : std::string(what) + ": sizes differ; " + testdata::repro(d, seed);
}

std::string compare_both(const ConvDescriptor& d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto src = spread(d.src_elements(), rng), weights = spread(d.weights_elements(), rng);
    const auto diff_dst = spread(d.dst_elements(), rng);
    std::string failure = compare("diff_src", reference::backward_data_summation(d, diff_dst, weights),
                                  reference::backward_data_walk(d, diff_dst, weights), d, seed);
    if (failure.empty())
        failure = compare("diff_weights", reference::backward_weights_summation(d, src, diff_dst),
                          reference::backward_weights_walk(d, src, diff_dst), d, seed);
    return failure;
}

ConvDescriptor descriptor(int extra_input) {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    lim.max_extra_input = extra_input;
    return *testgen::valid_descriptor(lim);
}

}  // namespace

RC_GTEST_PROP(BackwardSums, EqualTheWalkBitForBit, ()) {
    const auto d = descriptor(7);
    const std::string failure = compare_both(d, *rc::gen::arbitrary<std::uint32_t>());
    if (!failure.empty()) RC_FAIL(failure);
}

RC_GTEST_PROP(BackwardSums, EqualTheWalkBitForBitOnWideRows, ()) {
    // rows wide enough for every chunk width (16, 8, 4, 2) and the columns after them
    const auto d = descriptor(45);
    const std::string failure = compare_both(d, *rc::gen::arbitrary<std::uint32_t>());
    if (!failure.empty()) RC_FAIL(failure);
}

TEST(BackwardSums, HandPickedGeometriesEqualTheWalk) {
    for (const char* text : {"n=2,c=6,o=4,g=2,in=45x41,k=3x5,s=1x2,d=2x1,pb=1x-1,pe=2x3",
                             "c=5,o=3,in=9x30x33,k=2x3x3,s=1x1x3,pb=0x1x1,pe=1x1x1",
                             "n=3,c=4,o=4,g=4,in=300,k=7,d=3,s=2,pb=-2,pe=5",
                             "c=8,o=8,in=40,k=3,s=4,pb=1,pe=1",  // a stride above the kernel: phases no tap reaches
                             "c=16,o=4,in=23x37,k=1x1"}) {
        EXPECT_EQ(compare_both(parse_descriptor(text), 7), "") << text;
    }
}
