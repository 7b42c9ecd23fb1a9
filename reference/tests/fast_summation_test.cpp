// The fast evaluator (fast_convolution_summation, fast_summation.hpp) against the definition
// (convolution_summation, convolution.cpp): on data whose sums round (so any other order of any
// output's terms would show), every value, error scale sum |x*w| (+ |bias|) and term count is the
// same bit for bit, at 1, 2 and 3 threads, on random descriptors of rank 1-3 with groups, strides,
// dilation, pads (negative too) and bias, and on larger shapes that exercise the evaluator's row
// blocks, pointwise runs and long term lists. The whole reference on buffers (convolution(): every
// dtype and layout, widened by the edges) is checked against the definition the same way.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
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

// The first output where `got` and the definition's `want` differ in value, magnitude or count, as text;
// "" when every output is the same bit for bit.
std::string first_difference(const reference::ConvResult& got, const reference::ConvResult& want) {
    if (got.dst.size() != want.dst.size()) return "sizes " + std::to_string(got.dst.size()) + " vs " + std::to_string(want.dst.size());
    for (std::size_t i = 0; i < want.dst.size(); ++i)
        if (!same_bits(got.dst[i], want.dst[i]) || !same_bits(got.magnitude[i], want.magnitude[i]) ||
            got.terms[i] != want.terms[i])
            return "output " + std::to_string(i) + ": " + exact_text(got.dst[i]) + " vs " + exact_text(want.dst[i]) +
                   ", magnitude " + exact_text(got.magnitude[i]) + " vs " + exact_text(want.magnitude[i]) + ", terms " +
                   std::to_string(got.terms[i]) + " vs " + std::to_string(want.terms[i]);
    return "";
}

// "" when, on data drawn from `seed`, the fast evaluator at `threads` threads and the whole reference
// on buffers equal the definition bit for bit.
std::string compare_with_the_definition(const ConvDescriptor& d, std::uint64_t seed, std::initializer_list<int> thread_counts) {
    std::mt19937_64 rng(seed);
    // dense buffers of d.dtype in the descriptor's own formats, widened to canonical doubles by the edges
    const auto src = spread_values(d, d.src_elements(), rng);
    const auto weights = spread_values(d, d.weights_elements(), rng);
    const auto bias = spread_values(d, d.bias_elements(), rng);
    const std::vector<double> src_ncx = reference::src_to_ncx(d, src.data());
    const std::vector<double> weights_oix = reference::weights_to_oix(d, weights.data());
    const std::vector<double> bias_values = reference::bias_to_double(d, d.has_bias ? bias.data() : nullptr);
    const auto want = reference::convolution_summation(d, src_ncx, weights_oix, bias_values);
    for (int threads : thread_counts) {
        const auto fast = reference::fast_convolution_summation(d, src_ncx, weights_oix, bias_values, threads);
        if (std::string why = first_difference(fast, want); !why.empty())
            return "fast_convolution_summation, threads=" + std::to_string(threads) + ", " + why + "; " + testdata::repro(d, seed);
    }
    const auto whole = reference::convolution(d, src.data(), weights.data(), d.has_bias ? bias.data() : nullptr, 2);
    if (std::string why = first_difference(whole, want); !why.empty()) return "convolution(), " + why + "; " + testdata::repro(d, seed);
    return "";
}

}  // namespace

RC_GTEST_PROP(FastSummation, EqualsTheDefinitionBitForBitAtOneTwoAndThreeThreads, ()) {
    const auto d = *testgen::valid_descriptor();  // rank 1-3, groups, strides, dilations, pads (negative too), bias
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const std::string failure = compare_with_the_definition(d, seed, {1, 2, 3});
    if (!failure.empty()) RC_FAIL(failure);
}

TEST(FastSummation, LargePlanesSplitIntoRowBlocksKeepTheOrder) {
    // planes of many rows (several parallel blocks each), strides, dilation, negative and positive pads
    for (const char* text : {"n=2,c=6,o=4,g=2,in=45x41,k=3x5,s=1x2,d=2x1,pb=1x-1,pe=2x3,bias=1",
                             "c=5,o=3,in=9x30x33,k=2x3x3,s=1x1x3,pb=0x1x1,pe=1x1x1,data=nxc,wei=xio,bias=1",
                             "n=3,c=4,o=4,g=4,in=3000,k=7,d=3,pb=-2,pe=5,dt=bf16"}) {
        EXPECT_EQ(compare_with_the_definition(parse_descriptor(text), 7, {1, 2}), "") << text;
    }
}

TEST(FastSummation, PointwiseRowsSummedAsOneRunKeepTheOrder) {
    // 1x1 along h and w, unit strides, no begin pads, OW = IW: a block's rows of one od are one run of lanes
    // (row_terms.hpp rows_per_run); blocks that cross an od boundary, fewer output rows than input rows, groups
    for (const char* text : {"n=2,c=5,o=3,in=4x30x20,k=3x1x1,pb=1x0x0,pe=1x0x0,bias=1",
                             "n=2,c=6,o=4,g=2,in=40x33,k=1x1,pe=-3x0,data=nxc,bias=1", "c=3,o=2,in=7x9,k=1x1,dt=f16",
                             "c=3,o=2,in=7x9,k=1x1,s=2x1,pe=1x0", "c=2,o=2,in=6x9,k=1x1,pb=1x0",
                             "c=3,o=2,in=7x9,k=1x1,pe=0x-2"}) {
        EXPECT_EQ(compare_with_the_definition(parse_descriptor(text), 7, {1, 2}), "") << text;
    }
}

TEST(FastSummation, LongTermListsInSegmentsKeepTheOrder) {
    // lists longer than a segment (chunk_sums.cpp: about 256 KiB of input rows per segment): each lane's sum is
    // carried in memory from one segment to the next; padded columns (pieces) and a pointwise run
    for (const char* text : {"c=600,o=2,in=3x40,k=3x3,pb=1x1,pe=1x1,bias=1", "c=300,o=2,in=20x20,k=1x1",
                             "n=2,c=64,o=4,g=2,in=5x5x33,k=3x3x3,d=1x2x2,pb=1x1x2,pe=1x1x2,data=nxc"}) {
        EXPECT_EQ(compare_with_the_definition(parse_descriptor(text), 7, {1, 2}), "") << text;
    }
}
