// The blocked direct kernel for AVX-512 (16 floats per vector, 32 registers). Compiled with
// -mavx512f -mavx512bw -mavx512vl -mfma; called only when the CPU has AVX-512 (see dispatch.cpp).
#include "isa_avx512.hpp"

namespace convcheck::optimized::detail::avx512 {
namespace {
// Output pixels per register tile for NB vector blocks: R*NB accumulators + NB weights + 1 broadcast <= 32
// (5 and 6 blocks only where the weights stay in L1: blocked_vector_blocks).
constexpr int kTileWidth[7] = {0, 14, 14, 8, 6, 5, 4};
constexpr int kMaxVectorBlocks = 6;
// 1x1 layers with more input than this prefetch the next tile's input (blocked_pixels): half the L2 of one
// core of the Xeon (2 MiB): pw144->24@56 at batch 1 (1.7 MiB of input, 1 thread) 0.195 -> 0.185 ms; at 600-800
// KiB (pw192->32@28, 64->64@56) no gain or 5 % slower (bench/results/forward-threads.md)
constexpr i64 kPrefetchInputAbove = i64{1} << 20;
// 1x1 layers whose packed weights take more than this bring the next output-channel super block's weights into
// the L2 as they go (blocked_items): the L2 of one core of the Xeon (2 MiB). Measured on the Xeon, 1 thread,
// res5_1x1_2048 (4 MiB of weights): batch 1 0.69-0.70 -> 0.63 ms, batch 8 5.73 -> 5.24
// (bench/results/forward-1x1.md)
constexpr i64 kPrefetchWeightsAbove = i64{2} << 20;
}  // namespace
}  // namespace convcheck::optimized::detail::avx512

#include "blocked_kernels.inl"
