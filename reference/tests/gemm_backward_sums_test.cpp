// The backward passes' GEMM evaluators (gemm_backward_data_summation, gemm_backward_weights_summation,
// gemm_backward_sums.hpp) against the definition (backward_data_summation, backward_weights_summation,
// backward.hpp: the literal walk's bits), on random descriptors of rank 1-3 with groups, strides, dilation and
// pads (negative too), more than one task's input channels, and on shapes of many column blocks:
//   - integer data (every product and partial sum exact in double, exact mode's kind of data): every value,
//     magnitude and term count bit for bit the same;
//   - data whose sums round (mixed signs over 2^-12 .. 2^12): the same term counts, and every value and
//     magnitude within 2 gamma_n(2^-53) M of the definition's (both are within gamma_n(2^-53) M of the exact
//     sum: gemm_backward_sums.hpp, docs/accuracy.md "The reference's own error");
//   - the same bits at 1, 2 and 3 threads.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/rounding_error.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/gemm_backward_sums.hpp"
#include "convcheck/reference/gemm_summation.hpp"
#include "convcheck/testing/random_descriptor.hpp"
#include "gemm_test_values.hpp"
#include "problem_data.hpp"

using namespace convcheck;

namespace {

using gemm_test::kU64, gemm_test::same_bits, gemm_test::spread_values, gemm_test::text;

// "" when `got` equals `want` (the definition's) within `slack` * 2 gamma_n(2^-53) M per element (slack 0: bit
// for bit), with the same term counts; else the first element that does not, as text.
std::string first_difference(const char* gradient, const reference::GradientResult& got,
                             const reference::GradientResult& want, double slack) {
    if (got.values.size() != want.values.size() || got.magnitude.size() != want.magnitude.size() ||
        got.terms.size() != want.terms.size())
        return std::string(gradient) + " sizes " + std::to_string(got.values.size()) + " vs " + std::to_string(want.values.size());
    for (std::size_t i = 0; i < want.values.size(); ++i) {
        // both within gamma_n M* of the exact sums; M* <= M / (1 - gamma_n) for the definition's computed M
        const double g = gamma(want.terms[i], kU64);
        const double allowed = slack * 2.0 * g * want.magnitude[i] / (1.0 - g);
        const bool value_ok = slack == 0.0 ? same_bits(got.values[i], want.values[i])
                                           : std::fabs(got.values[i] - want.values[i]) <= allowed;
        const bool magnitude_ok = slack == 0.0 ? same_bits(got.magnitude[i], want.magnitude[i])
                                               : std::fabs(got.magnitude[i] - want.magnitude[i]) <= allowed;
        if (!value_ok || !magnitude_ok || got.terms[i] != want.terms[i])
            return std::string(gradient) + " element " + std::to_string(i) + ": " + text(got.values[i]) + " vs " +
                   text(want.values[i]) + ", magnitude " + text(got.magnitude[i]) + " vs " + text(want.magnitude[i]) +
                   ", terms " + std::to_string(got.terms[i]) + " vs " + std::to_string(want.terms[i]) + " (allowed " +
                   text(allowed) + ")";
    }
    return "";
}

// The case's data: src, weights and diff_dst drawn from `seed`, integers or spread values.
struct Data {
    std::vector<double> src, weights, diff_dst;
};

Data draw(const ConvDescriptor& d, std::uint64_t seed, bool integers) {
    std::mt19937_64 rng(seed);
    if (integers) return {testdata::integers(d.src_elements(), rng), testdata::integers(d.weights_elements(), rng),
                          testdata::integers(d.dst_elements(), rng)};
    Data data;
    data.src = spread_values(d.src_elements(), rng), data.weights = spread_values(d.weights_elements(), rng);
    data.diff_dst = spread_values(d.dst_elements(), rng);
    return data;
}

// "" when both evaluators agree with the definition on data drawn from `seed` (integers: bit for bit; else
// within the bound above) at every thread count, and their results at the thread counts are the same bits.
std::string compare_with_the_definition(const ConvDescriptor& d, std::uint64_t seed, bool integers,
                                        std::initializer_list<int> thread_counts) {
    const Data data = draw(d, seed, integers);
    const auto want_data = reference::backward_data_summation(d, data.diff_dst, data.weights);
    const auto want_weights = reference::backward_weights_summation(d, data.src, data.diff_dst);
    std::vector<reference::GradientResult> data_results, weights_results;
    for (int threads : thread_counts) {
        data_results.push_back(reference::gemm_backward_data_summation(d, data.diff_dst, data.weights, threads));
        weights_results.push_back(reference::gemm_backward_weights_summation(d, data.src, data.diff_dst, threads));
        const std::string where = "threads=" + std::to_string(threads) + (integers ? ", integer data, " : ", rounding data, ");
        const double slack = integers ? 0.0 : 1.0;
        for (const auto& [gradient, got, want, first] :
             {std::tuple{"diff_src", &data_results.back(), &want_data, &data_results.front()},
              std::tuple{"diff_weights", &weights_results.back(), &want_weights, &weights_results.front()}}) {
            if (std::string why = first_difference(gradient, *got, *want, slack); !why.empty())
                return where + why + "; " + testdata::repro(d, seed);
            if (std::string why = first_difference(gradient, *got, *first, 0.0); !why.empty())
                return where + "not the bits of the first thread count: " + why + "; " + testdata::repro(d, seed);
        }
    }
    return "";
}

// Random descriptors (rank 1-3, groups, strides, dilations, pads negative too) of up to `channels_per_group`
// input and output channels per group.
ConvDescriptor descriptor(std::int64_t channels_per_group) {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    lim.max_channels_per_group = channels_per_group;
    return *testgen::valid_descriptor(lim);
}

}  // namespace

RC_GTEST_PROP(GemmBackwardSums, EqualTheDefinitionOnIntegerDataBitForBit, ()) {
    if (!reference::gemm_summation_available()) return;  // no AVX2 and FMA: the runner uses the definition's bits
    const auto d = descriptor(4);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const std::string failure = compare_with_the_definition(d, seed, true, {1, 2, 3});
    if (!failure.empty()) RC_FAIL(failure);
}

RC_GTEST_PROP(GemmBackwardSums, EqualTheDefinitionBitForBitAcrossChannelBlocks, ()) {
    // up to 20 input channels per group: one task's 16 and the rest in another
    if (!reference::gemm_summation_available()) return;
    const auto d = descriptor(20);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const std::string failure = compare_with_the_definition(d, seed, true, {1, 3});
    if (!failure.empty()) RC_FAIL(failure);
}

RC_GTEST_PROP(GemmBackwardSums, AreWithinTheReferencesOwnErrorOfTheDefinition, ()) {
    if (!reference::gemm_summation_available()) return;
    const auto d = descriptor(4);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const std::string failure = compare_with_the_definition(d, seed, false, {1, 3});
    if (!failure.empty()) RC_FAIL(failure);
}

TEST(GemmBackwardSums, ManyBlocksAndLongRowsAgree) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    // many column blocks per plane (in=60x60 past one block of 16 x 9 rows), input channels past one task's 16,
    // groups, strides, dilation, pads both ways, rank 3, a stride above the kernel (inputs no tap reaches), a
    // pointwise layer and a depthwise one
    for (const char* text : {"c=40,o=3,in=60x60,k=3x3,pb=1x1,pe=1x1",
                             "n=2,c=6,o=4,g=2,in=45x41,k=3x5,s=1x2,d=2x1,pb=1x-1,pe=2x3",
                             "c=5,o=3,in=9x30x33,k=2x3x3,s=1x1x3,pb=0x1x1,pe=1x1x1",
                             "n=3,c=4,o=4,g=4,in=300,k=7,d=3,s=2,pb=-2,pe=5", "c=8,o=8,in=40,k=3,s=4,pb=1,pe=1",
                             "n=2,c=64,o=8,in=30x30,k=1x1", "n=2,c=8,o=8,g=8,in=40x40,k=3x3,pb=1x1,pe=1x1"}) {
        EXPECT_EQ(compare_with_the_definition(parse_descriptor(text), 7, true, {1, 2}), "") << text;
        EXPECT_EQ(compare_with_the_definition(parse_descriptor(text), 7, false, {1, 2}), "") << text;
    }
}

TEST(GemmBackwardSums, DifferFromTheDefinitionsBitsWhereSumsRound) {
    // the comparison above is not vacuous: on rounding data the GEMM's order gives other bits somewhere
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    const ConvDescriptor d = parse_descriptor("n=2,c=40,o=24,in=20x20,k=3x3,pb=1x1,pe=1x1");
    const Data data = draw(d, 7, false);
    EXPECT_NE(first_difference("diff_src", reference::gemm_backward_data_summation(d, data.diff_dst, data.weights, 1),
                               reference::backward_data_summation(d, data.diff_dst, data.weights), 0.0),
              "");
    EXPECT_NE(first_difference("diff_weights", reference::gemm_backward_weights_summation(d, data.src, data.diff_dst, 1),
                               reference::backward_weights_summation(d, data.src, data.diff_dst), 0.0),
              "");
}
