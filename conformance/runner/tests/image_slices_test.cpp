// Bound mode judged an image at a time (conv/reference_sums.cpp, compare_an_image_at_a_time): the comparison is the
// whole tensor's bit for bit whatever the slices (several images to a slice, one, a last short one; ranks 1 to 3,
// groups, pads, bias); only the cases it can judge so take it; and through the runner a passing case records the
// same error report and statistics as the whole-tensor judgement, a failing one the same reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "convcheck/accuracy_tests/same_comparison.hpp"
#include "../conv/operation.hpp"
#include "convcheck/reference/gemm_summation.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

const accuracy::Contract kF32{DataType::f32, DataType::f32, false};

}  // namespace

TEST(ImageSlices, TheComparisonIsTheWholeTensorsBitForBit) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    // 102400 outputs an image: two images to a slice, three slices; 360000: one image to a slice; 3992: a slice of 65
    // images and a short last one; 96000, rank 3 with groups: two slices of two
    for (const char* text : {"n=5,c=3,o=64,in=40x40,k=3x3,pb=1x1,pe=1x1,bias=1", "n=2,c=2,o=4,in=300x300,k=3x3,pb=1x0,pe=1x2",
                             "n=70,c=4,o=8,in=1000,k=5,s=2,pb=2,pe=1,bias=1",
                             "n=4,c=4,o=8,g=2,in=20x20x30,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1"}) {
        const ConvDescriptor d = parse_descriptor(text);
        ASSERT_TRUE(detail::judged_an_image_at_a_time(d, accuracy::Mode::bound, kF32, false)) << text;
        const accuracy::RandomFill f = accuracy::make_random_fill(d, 3);
        std::vector<std::int64_t> plane_terms;
        const auto want = detail::reference_sums(d, accuracy::Mode::bound, f.src, f.weights, f.bias, &plane_terms);
        // an f32 result: the exact sums rounded, some outputs far off, a NaN
        std::vector<float> got(want.dst.size());
        for (std::size_t i = 0; i < got.size(); ++i) got[i] = float(want.dst[i] + (i % 9973 == 3 ? 0.25 : 0.0));
        got[got.size() / 2] = std::numeric_limits<float>::quiet_NaN();
        const accuracy::Comparison whole =
            accuracy::compare_bound(kF32, want.dst, want.magnitude, plane_terms, std::span<const float>(got));
        ASSERT_GT(whole.mismatches, 1) << text;
        ASSERT_GT(whole.statistics.outputs, 0) << text;
        const std::vector<float> src(f.src.begin(), f.src.end());  // f32 values: the same numbers
        accuracy::expect_same_comparison(detail::compare_an_image_at_a_time(d, kF32, src, f.weights, f.bias, got),
                                         whole, text);
    }
}

TEST(ImageSlices, OnlyBoundModesPerOutputF32CasesWithoutScalesOrPostOpsAreSliced) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    const ConvDescriptor plain = parse_descriptor("n=2,c=3,o=4,in=9x9,k=3x3");
    EXPECT_TRUE(detail::judged_an_image_at_a_time(plain, accuracy::Mode::bound, kF32, false));
    EXPECT_FALSE(detail::judged_an_image_at_a_time(plain, accuracy::Mode::exact, kF32, false));
    EXPECT_FALSE(detail::judged_an_image_at_a_time(plain, accuracy::Mode::bound, kF32, true)) << "profiles";
    accuracy::Contract whole_tensor = kF32;
    whole_tensor.bound_kind = accuracy::BoundKind::whole_tensor;
    EXPECT_FALSE(detail::judged_an_image_at_a_time(plain, accuracy::Mode::bound, whole_tensor, false));
    for (const char* text : {"n=2,c=3,o=4,in=9x9,k=3x3,dt=f16", "n=2,c=3,o=4,in=9x9,k=3x3,data=nxc",
                             "n=2,c=3,o=4,in=9x9,k=3x3,po=relu", "n=2,c=3,o=4,in=9x9,k=3x3,dsc=2",
                             "n=2,c=3,o=4,in=9x9,k=3x3,dt=bf16:f32:f32"})
        EXPECT_FALSE(detail::judged_an_image_at_a_time(parse_descriptor(text), accuracy::Mode::bound, kF32, false))
            << text;
}

// The fill written straight into the buffers (src a run of 2^20 values at a time) is make_random_fill's, byte for byte.
TEST(ImageSlices, TheStreamedFillWritesTheBuffersOfTheWholeFill) {
    const ConvDescriptor d = parse_descriptor("n=2,c=3,o=4,in=600x601,k=3x3,bias=1,dt=f32:bf16:f32,bdt=f16");
    const accuracy::RandomFill f = accuracy::make_random_fill(d, 11);
    const Buffers whole = make_buffers(d, f.src, f.weights, f.bias);
    std::vector<double> weights, bias;
    const Buffers streamed = detail::make_random_buffers(d, 11, weights, bias);
    EXPECT_EQ(weights, f.weights);
    EXPECT_EQ(bias, f.bias);
    for (const auto& [a, b] : {std::pair{&whole.src, &streamed.src}, std::pair{&whole.weights, &streamed.weights},
                               std::pair{&whole.bias, &streamed.bias}, std::pair{&whole.dst, &streamed.dst}}) {
        ASSERT_EQ(a->bytes(), b->bytes());
        EXPECT_EQ(std::memcmp(a->data(), b->data(), a->bytes()), 0);
    }
    EXPECT_THROW(detail::make_random_buffers(parse_descriptor("n=2,c=3,o=4,in=9x9,k=3x3,data=nxc"), 11, weights, bias),
                 std::logic_error);
}

namespace {

// One bound-mode case of `descriptor` on the mutants plugin's `mutant`, judged an image at a time, or (with a
// profile asked for, which takes the whole tensor) on the whole tensor's sums.
CaseResult run_bound(const std::string& mutant, const std::string& descriptor, bool whole) {
    auto s = open_backend("mutants", {"mutant=" + mutant}, 0, "none", 10.0);
    CheckSettings settings;
    if (whole) settings.profiles = {accuracy::Profile::benchdnn};
    return check_case(s->backend, expand("slices", {SuiteEntry(descriptor)}, 1, "bound").front(), settings);
}

}  // namespace

TEST(ImageSlices, ThroughTheRunnerAVerdictIsTheWholeTensorsVerdict) {
    if (!reference::gemm_summation_available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
    // 102,400 outputs an image: slices of 2 images, 2 and a last short one of 1 (one input channel: the mutants
    // plugin's plain sums were most of this test's time, 65 s under ASan with three)
    const std::string descriptor = "conv:n=5,c=1,o=64,in=40x40,k=3x3,pb=1x1,pe=1x1,bias=1";
    for (const std::string mutant : {"none", "bias_dropped"}) {
        const CaseResult sliced = run_bound(mutant, descriptor, false), whole = run_bound(mutant, descriptor, true);
        EXPECT_EQ(sliced.status, mutant == "none" ? Status::passed : Status::failed) << mutant << ": " << sliced.reason;
        EXPECT_EQ(sliced.status, whole.status) << mutant;
        EXPECT_EQ(sliced.reason, whole.reason) << mutant;
        ASSERT_TRUE(sliced.error.has_value() && whole.error.has_value()) << mutant;
        EXPECT_EQ(case_record(sliced, "mutants").at("error").dump(), case_record(whole, "mutants").at("error").dump())
            << mutant;
    }
}
