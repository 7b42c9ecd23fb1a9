// The memory rule of the dispatcher (issue 22; docs/optimized.md, "Memory"): the chosen path holds at
// most the tensors' bytes again plus kFixedWorkspaceBytes. Estimates only, from the descriptor; the
// measured peaks are bench/memory_table.cpp's (ctest bench_memory_rules).
#include <gtest/gtest.h>

#include "convcheck/optimized/conv_plan.hpp"

using namespace convcheck;
using namespace convcheck::optimized;

namespace {

std::string why(const ConvDescriptor& d, Path p) {
    return to_string(d) + " path=" + std::string(to_string(p)) + ": needs " + std::to_string(path_memory_bytes(d, p)) +
           " bytes beyond " + std::to_string(tensor_bytes(d)) + " bytes of tensors";
}

}  // namespace

// benchdnn shapes_3d "3d_conv_large_shape:2" (kernel = input = 192^3, oc = 1) and its analogues: the
// blocked path pads oc = 1 to a vector of output channels (8 or 16 times the weights, 14.5 GB for 2.7 GB
// of tensors); the dispatcher must take a path within the rule.
TEST(MemoryRule, TinyOutputChannelsOfAKernelAsLargeAsTheInputAreNotPadded) {
    for (const char* text : {"conv:n=2,c=32,o=1,in=192x192x192,k=192x192x192,bias=1",
                             "conv:n=2,c=32,o=1,in=64x64x64,k=64x64x64,bias=1"}) {
        const ConvDescriptor d = parse_descriptor(text);
        const Path chosen = choose_path(d);
        EXPECT_TRUE(within_memory_rule(d, chosen)) << why(d, chosen);
        for (const Path blocked : {Path::blocked_avx2, Path::blocked_avx512})
            EXPECT_FALSE(within_memory_rule(d, blocked)) << why(d, blocked);
    }
}

// The speed rule on the same kind of layer when its memory is small (benchdnn 3d_conv_large_shape:1,
// 33^3): the blocked kernel's tiles would hold one pixel of one useful channel (7x slower than
// im2col_gemm); and a 7x7 -> 1x1 layer of 1000 outputs (11x). Small sums stay blocked.
TEST(MemoryRule, OnePixelPlanesWithLargeSumsTakeTheGemm) {
    if (!cpu_has_avx2_fma()) GTEST_SKIP() << "im2col_gemm needs AVX2 and FMA";
    for (const char* text : {"conv:n=2,c=16,o=1,in=33x33x33,k=33x33x33,bias=1", "conv:n=2,c=512,o=1000,in=7x7,k=7x7,bias=1"})
        EXPECT_EQ(choose_path(parse_descriptor(text)), Path::im2col_gemm) << text;
    for (const char* text : {"conv:n=2,c=16,o=2,in=7x7,k=7x7,bias=1", "conv:n=2,c=64,o=1,in=56x56,k=3x3,pb=1x1,pe=1x1"})
        EXPECT_NE(choose_path(parse_descriptor(text)), Path::im2col_gemm) << text;
}

// c=1,o=1,in=4096x4096,k=1x1: depthwise pads the channels to 16 (16 times the input, 1.1 GiB) and is 36x
// slower than gemm_1x1 on the user's buffers.
TEST(MemoryRule, OneChannelPointwiseRunsOnTheUsersBuffers) {
    const ConvDescriptor d = parse_descriptor("conv:n=1,c=1,o=1,in=4096x4096,k=1x1,bias=1");
    EXPECT_FALSE(within_memory_rule(d, Path::depthwise_avx2)) << why(d, Path::depthwise_avx2);
    if (cpu_has_avx2_fma()) {
        EXPECT_EQ(choose_path(d), Path::gemm_1x1) << to_string(d);
    }
    EXPECT_TRUE(within_memory_rule(d, choose_path(d))) << why(d, choose_path(d));
}

// Layers of every kind: the chosen path is within the rule, and path_memory_bytes counts at least the
// packed weights and the padded input it must hold.
TEST(MemoryRule, UsualLayersKeepTheirPathAndTheRule) {
    for (const char* text : {"conv:n=50,c=64,o=64,in=56x56,k=3x3,pb=1x1,pe=1x1,bias=1",
                             "conv:n=1,c=3,o=64,in=224x224,k=7x7,s=2x2,pb=3x3,pe=2x2,bias=1",
                             "conv:n=8,c=144,o=144,g=144,in=56x56,k=3x3,pb=1x1,pe=1x1,data=nxc,bias=1",
                             "conv:n=1,c=1,o=1,in=4096x4096,k=3x3,pb=1x1,pe=1x1",
                             "conv:n=2,c=256,o=256,in=11x7x9,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1"}) {
        const ConvDescriptor d = parse_descriptor(text);
        const Path chosen = choose_path(d);
        EXPECT_TRUE(within_memory_rule(d, chosen)) << why(d, chosen);
        EXPECT_GE(path_memory_bytes(d, Path::scalar), 4 * d.weights_elements()) << text;
    }
}

// Padding that makes the padded input of the whole batch exceed the input by more than the fixed
// workspace: the plan packs and runs the batch in chunks of images (xp_images_per_chunk; here 2 of 4).
// Every path gives, bit for bit, what plans of one image give.
TEST(MemoryRule, ABatchInChunksGivesTheSameBitsAsOneImageAtATime) {
    const std::string shape = ",c=16,o=16,in=64x64,k=3x3,s=8x8,pb=200x200,pe=200x200,bias=1";
    for (const std::string groups : {",g=1", ",g=4", ",g=16"}) {
        const ConvDescriptor d = parse_descriptor("conv:n=4" + shape + groups);
        const ConvDescriptor one = parse_descriptor("conv:n=1" + shape + groups);
        std::vector<float> src(d.src_elements()), weights(d.weights_elements()), bias(d.bias_elements());
        for (std::size_t i = 0; i < src.size(); ++i) src[i] = float(int(i % 13) - 6) / 8.0f;
        for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = float(int(i % 7) - 3) / 4.0f;
        for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = float(i) / 16.0f;
        for (const Path path : available_paths(d)) {
            const ConvPlan batch(d, weights.data(), bias.data(), Options{2, path});
            std::vector<float> got(d.dst_elements()), want(d.dst_elements());
            batch.execute(src.data(), got.data());
            const ConvPlan image(one, weights.data(), bias.data(), Options{1, path});
            for (std::int64_t n = 0; n < d.batch; ++n)
                image.execute(src.data() + n * one.src_elements(), want.data() + n * one.dst_elements());
            EXPECT_EQ(got, want) << to_string(d) << " path=" << to_string(path);
        }
    }
}

// One output row whose padded input alone exceeds the input by more than the fixed workspace (padding
// along the row: no bands of rows or planes can split it; benchdnn shapes_gemm's 1000x1000 layer with
// dilation 128 needed this before the blocked paths ran bands, xp_bands_test.cpp), so no path keeps the
// rule. The dispatcher then takes the first path within the fixed workspace of the least, never scalar
// for a few bytes less.
TEST(MemoryRule, WhenNoPathKeepsTheRuleTheFastestOfTheLeastIsTaken) {
    const ConvDescriptor d = parse_descriptor("conv:n=1,c=64,o=64,in=1x500000,k=1x3,d=1x100000,pb=0x200000,pe=0x200000,bias=1");
    for (const Path p : available_paths(d)) EXPECT_FALSE(within_memory_rule(d, p)) << why(d, p);
    if (cpu_has_avx2_fma()) {
        EXPECT_NE(choose_path(d), Path::scalar) << to_string(d);
    }
}
