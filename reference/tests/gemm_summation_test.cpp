// The GEMM evaluator (gemm_convolution_summation, gemm_summation.hpp) against the definition
// (convolution_summation, convolution.cpp), on random descriptors of rank 1-3 with groups, strides,
// dilation, pads (negative too) and bias, and on shapes of many im2col blocks:
//   - integer data (every product and partial sum exact in double, exact mode's kind of data): every value,
//     magnitude and term count bit for bit the same;
//   - data whose sums round (mixed signs over 2^-12 .. 2^12): the same term counts, and every value and
//     magnitude within 2 gamma_n(2^-53) M of the definition's (both are within gamma_n(2^-53) M of the exact
//     sum: gemm_summation.hpp, docs/accuracy.md "The reference's own error");
//   - the same bits at 1, 2 and 3 threads.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "convcheck/core/rounding_error.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/gemm_summation.hpp"
#include "convcheck/testing/random_descriptor.hpp"
#include "gemm_test_values.hpp"
#include "problem_data.hpp"

using namespace convcheck;

namespace {

using gemm_test::kU64, gemm_test::same_bits, gemm_test::spread_values, gemm_test::text;

// "" when `got` equals `want` (the definition's) within `slack` * 2 gamma_n(2^-53) M per output (slack 0: bit for
// bit), with the same term counts; else the first output that does not, as text.
std::string first_difference(const reference::ConvResult& got, const reference::ConvResult& want, double slack) {
    if (got.dst.size() != want.dst.size()) return "sizes " + std::to_string(got.dst.size()) + " vs " + std::to_string(want.dst.size());
    for (std::size_t i = 0; i < want.dst.size(); ++i) {
        // both within gamma_n M* of the exact sums; M* <= M / (1 - gamma_n) for the definition's computed M
        const double g = gamma(want.terms[i], kU64);
        const double allowed = slack * 2.0 * g * want.magnitude[i] / (1.0 - g);
        const bool value_ok = slack == 0.0 ? same_bits(got.dst[i], want.dst[i]) : std::fabs(got.dst[i] - want.dst[i]) <= allowed;
        const bool magnitude_ok = slack == 0.0 ? same_bits(got.magnitude[i], want.magnitude[i])
                                               : std::fabs(got.magnitude[i] - want.magnitude[i]) <= allowed;
        if (!value_ok || !magnitude_ok || got.terms[i] != want.terms[i])
            return "output " + std::to_string(i) + ": " + text(got.dst[i]) + " vs " + text(want.dst[i]) + ", magnitude " +
                   text(got.magnitude[i]) + " vs " + text(want.magnitude[i]) + ", terms " + std::to_string(got.terms[i]) +
                   " vs " + std::to_string(want.terms[i]) + " (allowed " + text(allowed) + ")";
    }
    return "";
}

// "" when the evaluator agrees with the definition on data drawn from `seed` (integers: bit for bit; else within
// the bound above) at every thread count, and its results at the thread counts are the same bits.
std::string compare_with_the_definition(const ConvDescriptor& d, std::uint64_t seed, bool integers,
                                        std::initializer_list<int> thread_counts) {
    std::mt19937_64 rng(seed);
    std::vector<double> src, weights, bias;
    if (integers) {
        const testdata::Problem p = testdata::make_problem(d, seed);
        src = p.src, weights = p.weights, bias = p.bias;
    } else {
        src = spread_values(d.src_elements(), rng), weights = spread_values(d.weights_elements(), rng);
        bias = spread_values(d.bias_elements(), rng);
    }
    const auto want = reference::convolution_summation(d, src, weights, bias);
    const reference::ConvResult* first = nullptr;
    std::vector<reference::ConvResult> results;
    results.reserve(thread_counts.size());
    for (int threads : thread_counts) {
        results.push_back(reference::gemm_convolution_summation(d, src, weights, bias, threads));
        const std::string where = "threads=" + std::to_string(threads) + (integers ? ", integer data, " : ", rounding data, ");
        if (std::string why = first_difference(results.back(), want, integers ? 0.0 : 1.0); !why.empty())
            return where + why + "; " + testdata::repro(d, seed);
        if (!first) first = &results.back();
        else if (std::string why = first_difference(results.back(), *first, 0.0); !why.empty())
            return where + "not the bits of the first thread count: " + why + "; " + testdata::repro(d, seed);
    }
    return "";
}

}  // namespace

RC_GTEST_PROP(GemmSummation, EqualsTheDefinitionOnIntegerDataBitForBit, ()) {
    if (!reference::gemm_summation_available()) return;  // no AVX2 and FMA: the runner uses the definition's bits
    const auto d = *testgen::valid_descriptor();  // rank 1-3, groups, strides, dilations, pads (negative too), bias
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const std::string failure = compare_with_the_definition(d, seed, true, {1, 2, 3});
    if (!failure.empty()) RC_FAIL(failure);
}

RC_GTEST_PROP(GemmSummation, IsWithinTheReferencesOwnErrorOfTheDefinition, ()) {
    if (!reference::gemm_summation_available()) return;
    const auto d = *testgen::valid_descriptor();
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const std::string failure = compare_with_the_definition(d, seed, false, {1, 3});
    if (!failure.empty()) RC_FAIL(failure);
}

TEST(GemmSummation, ManyBlocksAndLongRowsAgree) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    // many im2col blocks per plane (K = 600 * 9: 64-column blocks), groups, strides, dilation, pads both ways,
    // rank 3, a pointwise layer and a depthwise one
    for (const char* text : {"c=600,o=3,in=20x20,k=3x3,pb=1x1,pe=1x1,bias=1",
                             "n=2,c=6,o=4,g=2,in=45x41,k=3x5,s=1x2,d=2x1,pb=1x-1,pe=2x3,bias=1",
                             "c=5,o=3,in=9x30x33,k=2x3x3,s=1x1x3,pb=0x1x1,pe=1x1x1,bias=1",
                             "n=2,c=64,o=8,in=30x30,k=1x1", "n=2,c=8,o=8,g=8,in=40x40,k=3x3,pb=1x1,pe=1x1,bias=1",
                             // blocks of 2 rows where one or two kernel rows read only padding (DeepLab's ASPP at
                             // rate 18, their rows left out of the block's product), and blocks of outputs that read
                             // nothing but padding (no term at all) beside blocks that read the input
                             "c=600,o=3,in=33x33,k=3x3,d=18x18,pb=18x18,pe=18x18,bias=1",
                             "c=300,o=2,in=20,k=3,d=2,pb=400,pe=30", "c=300,o=2,in=20,k=3,d=2,pb=400,pe=30,bias=1"}) {
        EXPECT_EQ(compare_with_the_definition(parse_descriptor(text), 7, true, {1, 2}), "") << text;
        EXPECT_EQ(compare_with_the_definition(parse_descriptor(text), 7, false, {1, 2}), "") << text;
    }
}

TEST(GemmSummation, DiffersFromTheDefinitionsBitsWhereSumsRound) {
    // the comparison above is not vacuous: on rounding data the GEMM's order gives other bits somewhere
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    const ConvDescriptor d = parse_descriptor("c=600,o=3,in=20x20,k=3x3,pb=1x1,pe=1x1,bias=1");
    std::mt19937_64 rng(7);
    const auto src = spread_values(d.src_elements(), rng), weights = spread_values(d.weights_elements(), rng),
               bias = spread_values(d.bias_elements(), rng);
    const auto want = reference::convolution_summation(d, src, weights, bias);
    const auto got = reference::gemm_convolution_summation(d, src, weights, bias, 1);
    EXPECT_NE(first_difference(got, want, 0.0), "");
}

// gemm_convolution_sums: the same bits as gemm_convolution_summation without the per-output term counts, and
// plane_term_counts repeated for every (n, oc) are the definition's counts of every output (pads both ways make
// them vary over the plane; groups, bias, rank 1 and 3 too).
TEST(GemmSummation, SumsWithoutTermsAreTheSameBitsAndOnePlanesCountsRepeat) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    for (const char* text : {"n=2,c=6,o=4,g=2,in=15x11,k=3x5,s=1x2,d=2x1,pb=1x-1,pe=2x3,bias=1",
                             "n=3,c=2,o=5,in=17,k=4,s=2,pb=3,pe=1", "c=3,o=2,in=5x6x7,k=2x3x3,s=1x1x2,pb=1x1x1,pe=0x1x1,bias=1"}) {
        const ConvDescriptor d = parse_descriptor(text);
        const testdata::Problem p = testdata::make_problem(d, 11);
        const auto whole = reference::gemm_convolution_summation(d, p.src, p.weights, p.bias, 2);
        const auto sums = reference::gemm_convolution_sums(d, p.src, p.weights, p.bias, 2);
        const auto definition = reference::convolution_summation(d, p.src, p.weights, p.bias);
        EXPECT_TRUE(sums.terms.empty()) << text;
        ASSERT_EQ(sums.dst.size(), whole.dst.size()) << text;
        for (std::size_t i = 0; i < whole.dst.size(); ++i)
            ASSERT_TRUE(same_bits(sums.dst[i], whole.dst[i]) && same_bits(sums.magnitude[i], whole.magnitude[i]))
                << text << ": output " << i;
        const std::vector<std::int64_t> plane = reference::plane_term_counts(d);
        ASSERT_FALSE(plane.empty()) << text;
        ASSERT_EQ(definition.terms.size() % plane.size(), 0u) << text;
        for (std::size_t i = 0; i < definition.terms.size(); ++i)
            ASSERT_EQ(plane[i % plane.size()], definition.terms[i]) << text << ": output " << i;
        EXPECT_EQ(whole.terms, definition.terms) << text;
    }
}

// gemm_summation_work_bytes counts the weights laid out taps first (16 bytes a weight: the values and their
// magnitudes) only where a block leaves taps out: two layers of the same K, blocks and weights, one with blocks whose
// kernel rows read only padding (rate 18 on 33x33), one without padding (33x33 outputs of a 35x35 input).
TEST(GemmSummation, WorkBytesCountTheTapsFirstWeightsWhereABlockLeavesTapsOut) {
    const ConvDescriptor dead = parse_descriptor("c=600,o=3,in=33x33,k=3x3,d=18x18,pb=18x18,pe=18x18");
    const ConvDescriptor every = parse_descriptor("c=600,o=3,in=35x35,k=3x3");
    EXPECT_EQ(reference::gemm_summation_work_bytes(dead, 1) - reference::gemm_summation_work_bytes(every, 1),
              16.0 * static_cast<double>(dead.weights_elements()));
}

// GemmSums, prepared once, summing runs of the batch's images into the caller's arrays: each image's sums are the whole
// batch's bits whichever run it is in (runs of 1, 2 and 3 images, into arrays that hold the previous run's sums; a
// layer whose blocks leave taps out too: rate 18 on 33x33), and a run whose arrays do not match its size is refused.
TEST(GemmSummation, PreparedSumsOfRunsOfImagesAreTheWholeBatchsBits) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    for (const char* text : {"n=5,c=6,o=4,g=2,in=15x11,k=3x5,s=1x2,d=2x1,pb=1x-1,pe=2x3,bias=1",
                             "n=3,c=600,o=3,in=33x33,k=3x3,d=18x18,pb=18x18,pe=18x18,bias=1"}) {
        const ConvDescriptor d = parse_descriptor(text);
        const testdata::Problem p = testdata::make_problem(d, 5);
        const auto whole = reference::gemm_convolution_sums(d, p.src, p.weights, p.bias, 2);
        const reference::GemmSums sums(d, p.weights, p.bias);
        const std::size_t image_src = p.src.size() / static_cast<std::size_t>(d.batch);
        const std::size_t image_dst = whole.dst.size() / static_cast<std::size_t>(d.batch);
        for (const std::int64_t run : {1, 2, 3}) {
            std::vector<double> dst(static_cast<std::size_t>(run) * image_dst, 7.0), magnitude(dst.size(), 7.0);
            for (std::int64_t n = 0; n < d.batch; n += run) {
                const std::int64_t images = std::min(run, d.batch - n);
                const std::size_t outputs = static_cast<std::size_t>(images) * image_dst;
                sums.sum_images(std::span<const double>(p.src).subspan(static_cast<std::size_t>(n) * image_src,
                                                                       static_cast<std::size_t>(images) * image_src),
                                images, std::span<double>(dst).first(outputs), std::span<double>(magnitude).first(outputs),
                                static_cast<int>(run));
                for (std::size_t i = 0; i < outputs; ++i) {
                    const std::size_t at = static_cast<std::size_t>(n) * image_dst + i;
                    ASSERT_TRUE(same_bits(dst[i], whole.dst[at]) && same_bits(magnitude[i], whole.magnitude[at]))
                        << text << ": runs of " << run << ", output " << at;
                }
            }
        }
        std::vector<double> short_dst(image_dst - 1), magnitude(image_dst);
        EXPECT_THROW(sums.sum_images(std::span<const double>(p.src).first(image_src), 1, short_dst, magnitude),
                     std::invalid_argument)
            << text;
        EXPECT_THROW(sums.sum_images(std::span<const double>(p.src).first(image_src + 1), 1, magnitude, magnitude),
                     std::invalid_argument)
            << text;
    }
}
