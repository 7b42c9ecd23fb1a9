// The blocked direct kernel for AVX2 + FMA (8 floats per vector, 16 registers). Compiled with
// -mavx2 -mfma; called only when the CPU has both (see dispatch.cpp).
#include "isa_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {
// Output pixels per register tile for NB vector blocks: R*NB accumulators + NB weights + 1 broadcast <= 16.
constexpr int kTileWidth[7] = {0, 12, 6, 4, 0, 0, 0};
constexpr int kMaxVectorBlocks = 3;
// never prefetch the next tile's input (blocked_pixels): not measured on the AMD machine, where a prefetch
// of the next tiles' input and outputs gave no gain (bench/results/forward-threads.md)
constexpr i64 kPrefetchInputAbove = -1;
// 1x1 layers whose packed weights take more than this bring the next super block's weights into the L2 (blocked_items):
// measured only on the Xeon with CONVCHECK_NO_AVX512=1, 1 thread, res5_1x1_2048 batch 1 1.31-1.35 -> 1.23 ms
constexpr i64 kPrefetchWeightsAbove = i64{2} << 20;
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#include "blocked_kernels.inl"
