// The dispatcher: what applies where, forcing a path, and clear errors for bad requests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "convcheck/optimized/conv_plan.hpp"

using namespace convcheck;
using namespace convcheck::optimized;

namespace {
bool has(const std::vector<Path>& paths, Path p) { return std::find(paths.begin(), paths.end(), p) != paths.end(); }

// Every path (and the automatic choice) refuses `d` with a ConvError on `attribute` whose rule contains
// `rule_part`; returns the error of the automatic choice.
ConvError expect_every_path_refuses(const ConvDescriptor& d, const std::string& attribute, const std::string& rule_part) {
    std::vector<float> w(d.weights_elements(), 0.5f);
    std::vector<Path> paths = available_paths(d);
    paths.push_back(Path::automatic);
    ConvError last("", "", "");
    for (const Path path : paths) {
        try {
            ConvPlan plan(d, w.data(), nullptr, Options{1, path});
            ADD_FAILURE() << to_string(d) << " path=" << to_string(path) << ": must throw";
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), attribute) << to_string(d) << " path=" << to_string(path);
            EXPECT_NE(e.rule().find(rule_part), std::string::npos) << e.rule();
            last = e;
        }
    }
    return last;
}
}  // namespace

TEST(Dispatch, PathNamesRoundTrip) {
    for (Path p : {Path::automatic, Path::scalar, Path::im2col_gemm, Path::gemm_1x1, Path::blocked_avx2,
                   Path::blocked_avx512, Path::depthwise_avx2, Path::depthwise_avx512}) {
        Path back = Path::scalar;
        ASSERT_TRUE(parse_path(to_string(p), &back)) << to_string(p);
        EXPECT_EQ(back, p);
    }
    Path unused;
    EXPECT_FALSE(parse_path("winograd", &unused));
}

TEST(Dispatch, SpecialisedPathsApplyOnlyToTheirShapes) {
    const ConvDescriptor dense = parse_descriptor("conv:c=8,o=8,in=5x5,k=3x3");
    const ConvDescriptor pointwise = parse_descriptor("conv:c=8,o=8,in=5x5,k=1x1");
    const ConvDescriptor strided_pointwise = parse_descriptor("conv:c=8,o=8,in=5x5,k=1x1,s=2x2");
    const ConvDescriptor depthwise = parse_descriptor("conv:c=8,o=8,g=8,in=5x5,k=3x3");
    EXPECT_FALSE(has(available_paths(dense), Path::gemm_1x1));
    EXPECT_FALSE(has(available_paths(dense), Path::depthwise_avx512));
    EXPECT_FALSE(has(available_paths(strided_pointwise), Path::gemm_1x1));
    EXPECT_FALSE(has(available_paths(pointwise), Path::depthwise_avx2));
    if (cpu_has_avx2_fma()) {
        EXPECT_TRUE(has(available_paths(pointwise), Path::gemm_1x1));
        EXPECT_TRUE(has(available_paths(depthwise), Path::depthwise_avx2));
        EXPECT_TRUE(has(available_paths(dense), Path::im2col_gemm));
    }
    if (cpu_has_avx512()) {
        EXPECT_EQ(choose_path(depthwise), Path::depthwise_avx512);
        EXPECT_EQ(choose_path(dense), Path::blocked_avx512);
    }
}

// f32 NCX depthwise layers whose rows the AVX2 NCX kernel takes (3 wide, at least 8 outputs a row) run it on
// the user's buffers even with AVX-512, whose kernel converts them to channels last and back (2-3.7x slower
// at 56-112 pixels a row); the others keep AVX-512.
TEST(Dispatch, NcxDepthwiseRowsTheAvxTwoKernelTakesStayOnTheUsersBuffers) {
    if (!cpu_has_avx512()) GTEST_SKIP() << "no AVX-512";
    EXPECT_EQ(choose_path(parse_descriptor("conv:c=32,o=32,g=32,in=12x12,k=3x3,pb=1x1,pe=1x1,data=ncx")), Path::depthwise_avx2);
    EXPECT_EQ(choose_path(parse_descriptor("conv:c=32,o=32,g=32,in=20x20,k=3x3,s=2x2,pe=1x1,data=ncx")), Path::depthwise_avx2);
    EXPECT_EQ(choose_path(parse_descriptor("conv:c=32,o=32,g=32,in=7x7,k=3x3,pb=1x1,pe=1x1,data=ncx")), Path::depthwise_avx512);
    EXPECT_EQ(choose_path(parse_descriptor("conv:c=32,o=32,g=32,in=12x12,k=3x3,pb=1x1,pe=1x1,data=nxc")), Path::depthwise_avx512);
    EXPECT_EQ(choose_path(parse_descriptor("conv:c=32,o=32,g=32,in=12x12,k=3x3,pb=1x1,pe=1x1,dt=bf16,data=ncx")),
              Path::depthwise_avx512);
    EXPECT_EQ(choose_path(parse_descriptor("conv:c=32,o=32,g=32,in=12x12,k=5x5,pb=2x2,pe=2x2,data=ncx")), Path::depthwise_avx512);
}

TEST(Dispatch, ForcingAPathThatDoesNotApplyNamesThePathAndTheRule) {
    const ConvDescriptor dense = parse_descriptor("conv:c=8,o=8,in=5x5,k=3x3");
    std::vector<float> w(dense.weights_elements(), 0.5f);
    try {
        ConvPlan plan(dense, w.data(), nullptr, Options{1, Path::depthwise_avx2});
        FAIL() << "forcing depthwise on a dense convolution must throw";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "path");
        EXPECT_EQ(e.value(), "depthwise_avx2");
        EXPECT_NE(e.rule().find("depthwise"), std::string::npos) << e.rule();
    }
    if (!cpu_has_avx512()) {
        EXPECT_THROW(ConvPlan(dense, w.data(), nullptr, Options{1, Path::blocked_avx512}), ConvError);
    }
}

TEST(Dispatch, BadInputIsAConvErrorNotACrash) {
    ConvDescriptor bad = parse_descriptor("conv:c=8,o=8,in=5x5,k=3x3");
    bad.strides[0] = 0;
    std::vector<float> w(8 * 8 * 9, 0.5f);
    EXPECT_THROW(ConvPlan(bad, w.data(), nullptr), ConvError);
    const ConvDescriptor with_bias = parse_descriptor("conv:c=8,o=8,in=5x5,k=3x3,bias=1");
    EXPECT_THROW(ConvPlan(with_bias, w.data(), nullptr), ConvError);
    EXPECT_THROW(ConvPlan(with_bias, w.data(), w.data(), Options{-1, Path::automatic}), ConvError);
    const ConvPlan ok(parse_descriptor("conv:c=8,o=8,in=5x5,k=3x3"), w.data(), nullptr);
    EXPECT_THROW(ok.execute(nullptr, w.data()), ConvError);
}

// A valid descriptor whose padded input has more than 2^60 floats (here 2^66: the fuzzers found the
// signed overflow in the tap offsets, fuzz/corpus/abi/crash-b4f8b135...): every path refuses it with a
// ConvError naming the pads, the padded sizes and the 62-bit rule, before any index is computed.
TEST(Dispatch, IndicesBeyondSixtyTwoBitsAreAConvErrorNotUB) {
    const ConvDescriptor d = parse_descriptor(
        "conv:n=1,c=1,o=1,in=5x5,k=3x3,s=1x10995116277760001,d=4294967296x4294967296,pb=4294967296x4294967296,"
        "pe=4294967296x4294967296");
    ASSERT_NO_THROW(validate(d)) << to_string(d);
    const std::string why = why_too_large(d);
    EXPECT_NE(why.find("62 bits"), std::string::npos) << to_string(d) << ": " << why;
    const ConvError e = expect_every_path_refuses(d, "pads_begin/pads_end", "62 bits");
    EXPECT_EQ(e.value(), "input+pads=8589934597x8589934597") << to_string(d);
    // padding much larger than the data, but within the limits: accepted
    EXPECT_EQ(why_too_large(parse_descriptor("conv:c=1,o=1,in=5x5,k=3x3,d=1000x1,pb=1000x0,pe=1000x0")), "");
}

// Padding far larger than the data would make a tiny problem allocate without bound (the padded input is
// materialised): a pad of 2^41 skipped by a stride of 2^42 asked for 48 TiB of workspace for one output
// (the ABI fuzzer, fuzz/corpus/abi/crash-ff9b3f93...; ASan aborted on the allocation). Declined up front
// with a ConvError naming the pads and the rule, by every path; the same dilation case as above at 10^6
// (an 896 MiB workspace for a 5x5 input) likewise.
TEST(Dispatch, PaddingFarLargerThanTheDataIsDeclinedNotAllocated) {
    for (const char* text : {"conv:n=1,c=1,o=1,in=1,k=1,s=4398046511104,pb=2199023255552,pe=0",
                             "conv:c=1,o=1,in=5x5,k=3x3,d=1000000x1,pb=1000000x0,pe=1000000x0"}) {
        const ConvDescriptor d = parse_descriptor(text);
        ASSERT_NO_THROW(validate(d)) << text;
        const std::string why = why_too_large(d);
        EXPECT_NE(why.find("declined, not allocated"), std::string::npos) << text << ": " << why;
        expect_every_path_refuses(d, "pads_begin/pads_end", "32 times the input and output");
    }
    // at the floor: a 4096x4096 single-channel input with pads of 1 (its 16-channel workspace is over 2^26
    // floats, but not 32 times the data) is accepted
    EXPECT_EQ(why_too_large(parse_descriptor("conv:c=1,o=1,in=4096x4096,k=3x3,pb=1x1,pe=1x1")), "");
}

// CONVCHECK_NO_AVX512=1 (ctest optimized_dispatch_test_without_avx512, docs/optimized.md): the AVX-512 paths are
// unavailable and say why, and the automatic choice takes the AVX2 kernels. Skipped in the plain run.
TEST(Dispatch, AvxFiveTwelveSwitchedOffByTheEnvironment) {
    const char* v = std::getenv("CONVCHECK_NO_AVX512");
    if (v == nullptr || std::string(v) != "1") GTEST_SKIP() << "CONVCHECK_NO_AVX512 is not 1";
    EXPECT_FALSE(cpu_has_avx512());
    const ConvDescriptor dense = parse_descriptor("conv:c=8,o=8,in=5x5,k=3x3");
    const ConvDescriptor depthwise = parse_descriptor("conv:c=8,o=8,g=8,in=5x5,k=3x3");
    EXPECT_EQ(why_unavailable(dense, Path::blocked_avx512), "needs AVX-512, switched off by CONVCHECK_NO_AVX512=1");
    EXPECT_FALSE(has(available_paths(depthwise), Path::depthwise_avx512));
    if (cpu_has_avx2_fma()) {
        EXPECT_EQ(choose_path(dense), Path::blocked_avx2);
        EXPECT_EQ(choose_path(depthwise), Path::depthwise_avx2);
    }
}
