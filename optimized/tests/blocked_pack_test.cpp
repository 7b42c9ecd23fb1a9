// The blocked kernels' packed weights and bias start on a cache line (64 bytes): each 64-byte weight
// vector a tile loads then lies in one line (straddling two cost the 3x3 and 1x1 layers of ResNet-50
// 5-30 %; bench/results/forward-padding.md). Internal: pack_blocked (blocked_pack.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "blocked_pack.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "conversions.hpp"
#include "without_unit_axes.hpp"

using namespace convcheck::optimized::detail;

TEST(BlockedPack, WeightsAndBiasStartOnACacheLine) {
    // sizes whose std::vector storage would come from mmap (16 bytes past a line) and from the heap
    for (const i64 channels : {i64{8}, i64{64}, i64{512}}) {
        for (const bool avx512 : {false, true}) {
            const i64 taps = 9;
            const std::vector<float> canonical(static_cast<std::size_t>(channels * channels * taps), 1.0f);
            const std::vector<float> bias(static_cast<std::size_t>(channels), 0.5f);
            const BlockedWeights packed = pack_blocked(canonical, bias, 1, channels, channels, taps, avx512);
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(packed.weights.data()) % 64, 0u) << channels;
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(packed.bias.data()) % 64, 0u) << channels;
        }
    }
}

// A run of fewer than 32 work items whose halves hold more than 5 % over half of the pixels takes smaller pixel
// chunks, so that 2 threads share the pixels evenly (blocked_balanced_chunk_pixels).
TEST(BlockedPack, FewWorkItemsComeInChunksThatTwoThreadsShareEvenly) {
    // MobileNet-v2's and ResNet-50's small 1x1 layers at batch 1 (chunk, plane, images x groups x super blocks)
    EXPECT_EQ(blocked_balanced_chunk_pixels(448, 56 * 56, 1), 392);    // pw144_24_56: 7 chunks of 448 -> 8 of 392
    EXPECT_EQ(blocked_balanced_chunk_pixels(448, 28 * 28, 1), 392);    // pw192_32_28: 448 + 336 -> 2 x 392
    EXPECT_EQ(blocked_balanced_chunk_pixels(192, 7 * 7, 5), 25);       // pw960_320_7: 5 items -> 10 of 25 and 24
    EXPECT_EQ(blocked_balanced_chunk_pixels(192, 56 * 56, 1), 192);    // res2_1x1_64: 8 and 9 chunks, 1536 and 1600
    EXPECT_EQ(blocked_balanced_chunk_pixels(192, 112 * 112, 1), 192);  // 66 items: as they are
    // the halves' pixels counted one item at a time (chunks innermost, the last of each plane short)
    const auto worst_half = [](i64 pixels, i64 plane, i64 others) {
        const i64 count = (plane + pixels - 1) / pixels, items = others * count;
        i64 half[2] = {0, 0};
        for (i64 i = 0; i < items; ++i) {
            const i64 chunk = i % count;
            half[i < items / 2 ? 0 : 1] += std::min(pixels, plane - chunk * pixels);
        }
        return static_cast<double>(std::max(half[0], half[1])) / (0.5 * static_cast<double>(others * plane));
    };
    for (const i64 chunk : {i64{84}, i64{192}, i64{448}})
        for (i64 plane = 1; plane <= 3000; ++plane)
            for (i64 others = 1; others <= 6; ++others) {
                const i64 pixels = blocked_balanced_chunk_pixels(chunk, plane, others);
                ASSERT_LE(pixels, chunk);
                if (others * ((plane + chunk - 1) / chunk) >= 32 || pixels == chunk) continue;
                // changed: the halves within 5 %, where the given chunk's were not
                EXPECT_LE(worst_half(pixels, plane, others), 1.05) << chunk << " " << plane << " " << others;
                EXPECT_GT(worst_half(chunk, plane, others), 1.05) << chunk << " " << plane << " " << others;
            }
}

// A plan on the blocked register tiles runs in the chunk that blocked_plan_chunk_pixels gives: the chunk the memory
// rule's estimate of the padded input's bands assumes (path_memory.cpp). The small layers at batch 1 take the balanced
// chunk (pw192_32_28 on AVX-512: 392 pixels, not 448), a large batch the plain one (1x1: of equal sizes, 2 x 392 at
// batch 8 too); unit axes are left out first. Planned for one thread: at more, a 1x1 layer read in place (no bands)
// cuts its plane finer for the threads (blocked_thread_chunk_pixels), as the last check shows.
TEST(BlockedPack, APlanRunsInTheChunkTheMemoryRuleAssumes) {
    using convcheck::optimized::ConvPlan;
    using convcheck::optimized::Path;
    const char* cases[] = {
        "conv:c=192,o=32,in=28x28,k=1x1,data=nxc",             // pw192_32_28, batch 1
        "conv:n=8,c=192,o=32,in=28x28,k=1x1,data=nxc",         // the same at batch 8
        "conv:c=960,o=320,in=7x7,k=1x1,bias=1,data=ncx",       // pw960_320_7
        "conv:c=3,o=64,in=47x49,k=7x7,s=2x2,pb=3x3,pe=3x3",    // conv1's kind, NCX
        "conv:c=144,o=24,in=1x56x56,k=1x1x1,data=nxc",         // a unit depth axis
    };
    for (const Path path : {Path::blocked_avx2, Path::blocked_avx512}) {
        const bool avx512 = path == Path::blocked_avx512;
        if (avx512 ? !convcheck::optimized::cpu_has_avx512() : !convcheck::optimized::cpu_has_avx2_fma()) continue;
        for (const char* text : cases) {
            const convcheck::ConvDescriptor d = convcheck::parse_descriptor(text);
            const std::vector<float> weights(static_cast<std::size_t>(d.weights_elements()), 1.0f);
            const std::vector<float> bias(static_cast<std::size_t>(d.out_channels), 0.5f);
            const ConvPlan plan(d, weights.data(), d.has_bias ? bias.data() : nullptr, {.threads = 1, .forced_path = path});
            const Geometry g = make_geometry(without_unit_axes(d), 1);
            EXPECT_EQ(plan.work_item_pixels(), blocked_plan_chunk_pixels(g, avx512)) << text << " " << to_string(path);
        }
        if (!avx512) continue;
        const convcheck::ConvDescriptor pw192 = convcheck::parse_descriptor(cases[0]);
        const std::vector<float> weights(static_cast<std::size_t>(pw192.weights_elements()), 1.0f);
        EXPECT_EQ(ConvPlan(pw192, weights.data(), nullptr, {.threads = 1, .forced_path = path}).work_item_pixels(), 392);
        // 2 items of 392 (28 tiles of 14 each): one per thread at 2 threads; at 16, 14 items of 56 pixels, 4 tiles for
        // the busiest thread (as 56 items of one tile would give), not 28
        EXPECT_EQ(ConvPlan(pw192, weights.data(), nullptr, {.threads = 2, .forced_path = path}).work_item_pixels(), 392);
        EXPECT_EQ(ConvPlan(pw192, weights.data(), nullptr, {.threads = 16, .forced_path = path}).work_item_pixels(), 56);
    }
}

// A 1x1 layer's plane comes in chunks of equal sizes (blocked_even_chunk_pixels: as many as the 32-tile chunk makes,
// the last at most one pixel per chunk shorter), so that a plan's one range of items per thread is even work; other
// kernels keep the 32-tile chunk with its short last chunk.
TEST(BlockedPack, OneByOnePlanesComeInChunksOfEqualSizes) {
    EXPECT_EQ(blocked_even_chunk_pixels(192, 28 * 28), 157);  // res3_1x1_512: 4 x 192 + 16 -> 4 x 157 + 156
    EXPECT_EQ(blocked_even_chunk_pixels(192, 14 * 14), 98);   // res4_1x1_1024: 192 + 4 -> 2 x 98
    EXPECT_EQ(blocked_even_chunk_pixels(192, 56 * 56), 185);  // res2_1x1_64: 16 x 192 + 64 -> 16 x 185 + 176
    EXPECT_EQ(blocked_even_chunk_pixels(256, 14 * 14), 196);  // one chunk: the plane
    for (const i64 chunk : {i64{84}, i64{192}, i64{448}})
        for (i64 plane = 1; plane <= 3000; ++plane) {
            const i64 pixels = blocked_even_chunk_pixels(chunk, plane), count = (plane + pixels - 1) / pixels;
            ASSERT_LE(pixels, chunk);
            EXPECT_EQ(count, (plane + chunk - 1) / chunk) << chunk << " " << plane;  // as many chunks
            EXPECT_LE(count * pixels - plane, count - 1) << chunk << " " << plane;   // the last at most count-1 short
        }
    // the plan's chunk (AVX-512): res3_1x1_512 at batch 1 (40 items: not rebalanced) in even chunks, a 3x3 layer's not
    const auto plan_chunk = [](const char* text) {
        return blocked_plan_chunk_pixels(make_geometry(convcheck::parse_descriptor(text), 16), true);
    };
    EXPECT_EQ(plan_chunk("conv:c=128,o=512,in=28x28,k=1x1,data=nxc"), 157);
    EXPECT_EQ(plan_chunk("conv:c=128,o=512,in=28x28,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc"), 192);
}
