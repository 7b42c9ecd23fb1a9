// The parallel, vectorized reading 1 (convolution_summation, issue 22) sums every output in the
// literal order: on data whose sums round (so any other order would show), every value, magnitude
// and term count equals, bit for bit, the one-output walk (convolution_output: one output at a time,
// its terms in for_each_term's order, as the single-threaded reference always did), at 1 and at 2
// threads, on random descriptors of every rank, with groups, dilation, negative pads, bias,
// every dtype and every layout.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/testing/random_descriptor.hpp"
#include "problem_data.hpp"

using namespace convcheck;

namespace {

// Values of mixed sign spread over 2^-12 .. 2^12, stored in d.dtype: their sums round in double.
std::vector<unsigned char> spread_values(const ConvDescriptor& d, std::int64_t count, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-12, 12);
    std::vector<unsigned char> buffer(static_cast<std::size_t>(count * size_of(d.dtype)) + 1);
    for (std::int64_t i = 0; i < count; ++i) store_from_double(buffer.data(), d.dtype, i, std::ldexp(mantissa(rng), exponent(rng)));
    return buffer;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string exact_text(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%a", v);
    return text;
}

// "" when the whole reference at `threads` threads equals the one-output walk bit for bit.
std::string compare_with_one_output_walk(const ConvDescriptor& d, std::uint64_t seed, int threads) {
    std::mt19937_64 rng(seed);
    // dense buffers of d.dtype in the descriptor's own formats
    const auto src = spread_values(d, d.src_elements(), rng);
    const auto weights = spread_values(d, d.weights_elements(), rng);
    const auto bias = spread_values(d, d.bias_elements(), rng);
    const auto whole = reference::convolution(d, src.data(), weights.data(), d.has_bias ? bias.data() : nullptr, threads);
    for (std::int64_t i = 0; i < d.dst_elements(); ++i) {
        const auto one = reference::convolution_output(d, src.data(), weights.data(), bias.data(), i);
        if (!same_bits(one.value, whole.dst[i]) || !same_bits(one.magnitude, whole.magnitude[i]) ||
            one.terms != whole.terms[i])
            return "threads=" + std::to_string(threads) + " output " + std::to_string(i) + ": " +
                   exact_text(whole.dst[i]) + " vs " + exact_text(one.value) + " (terms " +
                   std::to_string(whole.terms[i]) + " vs " + std::to_string(one.terms) + ")" + "; " + testdata::repro(d, seed);
    }
    return "";
}

}  // namespace

RC_GTEST_PROP(ParallelSummation, EqualsTheOneOutputWalkBitForBitAtOneAndTwoThreads, ()) {
    const auto d = *testgen::valid_descriptor();  // every dtype, data format, filter format, rank 1-3
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    for (int threads : {1, 2}) {
        const std::string failure = compare_with_one_output_walk(d, seed, threads);
        if (!failure.empty()) RC_FAIL(failure);
    }
}

TEST(ParallelSummation, LargePlanesSplitIntoRowBlocksKeepTheOrder) {
    // planes of many rows (several parallel blocks each), strides, dilation, negative and positive pads
    for (const char* text : {"n=2,c=6,o=4,g=2,in=45x41,k=3x5,s=1x2,d=2x1,pb=1x-1,pe=2x3,bias=1",
                             "c=5,o=3,in=9x30x33,k=2x3x3,s=1x1x3,pb=0x1x1,pe=1x1x1,data=nxc,wei=xio,bias=1",
                             "n=3,c=4,o=4,g=4,in=3000,k=7,d=3,pb=-2,pe=5,dt=bf16"}) {
        for (int threads : {1, 2}) EXPECT_EQ(compare_with_one_output_walk(parse_descriptor(text), 7, threads), "") << text;
    }
}

TEST(ParallelSummation, PointwiseRowsSummedAsOneRunKeepTheOrder) {
    // 1x1 along h and w, unit strides, no begin pads, OW = IW: a block's rows of one od are one run of lanes
    // (row_terms.hpp rows_per_run); blocks that cross an od boundary, fewer output rows than input rows, groups
    for (const char* text : {"n=2,c=5,o=3,in=4x30x20,k=3x1x1,pb=1x0x0,pe=1x0x0,bias=1",
                             "n=2,c=6,o=4,g=2,in=40x33,k=1x1,pe=-3x0,data=nxc,bias=1", "c=3,o=2,in=7x9,k=1x1,dt=f16",
                             "c=3,o=2,in=7x9,k=1x1,s=2x1,pe=1x0", "c=2,o=2,in=6x9,k=1x1,pb=1x0",
                             "c=3,o=2,in=7x9,k=1x1,pe=0x-2"}) {
        for (int threads : {1, 2}) EXPECT_EQ(compare_with_one_output_walk(parse_descriptor(text), 7, threads), "") << text;
    }
}

TEST(ParallelSummation, LongTermListsInSegmentsKeepTheOrder) {
    // lists longer than a segment (chunk_sums.cpp: about 256 KiB of input rows per segment): each lane's sum is
    // carried in memory from one segment to the next; padded columns (pieces) and a pointwise run
    for (const char* text : {"c=600,o=2,in=3x40,k=3x3,pb=1x1,pe=1x1,bias=1", "c=300,o=2,in=20x20,k=1x1",
                             "n=2,c=64,o=4,g=2,in=5x5x33,k=3x3x3,d=1x2x2,pb=1x1x2,pe=1x1x2,data=nxc"}) {
        for (int threads : {1, 2}) EXPECT_EQ(compare_with_one_output_walk(parse_descriptor(text), 7, threads), "") << text;
    }
}
