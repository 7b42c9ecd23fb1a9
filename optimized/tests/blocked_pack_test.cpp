// The blocked kernels' packed weights and bias start on a cache line (64 bytes): each 64-byte weight
// vector a tile loads then lies in one line (straddling two cost the 3x3 and 1x1 layers of ResNet-50
// 5-30 %; docs/performance-forward-padding.md). Internal: pack_blocked (blocked_pack.hpp).
#include <gtest/gtest.h>

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
