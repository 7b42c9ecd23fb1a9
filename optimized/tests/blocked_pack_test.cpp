// The blocked kernels' packed weights and bias start on a cache line (64 bytes): each 64-byte weight
// vector a tile loads then lies in one line (straddling two cost the 3x3 and 1x1 layers of ResNet-50
// 5-30 %; docs/performance-forward-padding.md). Internal: pack_blocked (blocked_pack.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "blocked_pack.hpp"

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
