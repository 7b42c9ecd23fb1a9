// The depthwise kernels for AVX-512 (16 channels per vector, 32 registers). Compiled with
// -mavx512f -mavx512bw -mavx512vl -mfma; called only when the CPU has AVX-512 (see dispatch.cpp).
#include "depthwise_streamed.hpp"
#include "isa_avx512.hpp"

namespace convcheck::optimized::detail::avx512 {
namespace {
// outputs per tile of the 3-wide depthwise kernel, stride 1 and 2: (R-1)*S + 3 inputs + R sums + 3 weights
constexpr int kDepthwiseK3WidthS1 = 12, kDepthwiseK3WidthS2 = 8;
// outputs per row of the two-row tile, width stride 1 and 2: 2R sums + (R-1)*S + 3 inputs + 6 weights
constexpr int kDepthwiseK3PairWidthS1 = 8, kDepthwiseK3PairWidthS2 = 6;
constexpr int kDepthwiseTileWidth = 14;
// Rows of layers over 16 MiB are not prefetched in software (depthwise_k3_rows): measured on the Xeon
// (Emerald Rapids, 2 cores, 2026-11-24, batch 8, 1 thread) the hardware prefetchers alone were
// 1.3-1.4x faster on dw32@112 and dw96@112/2, the same on dw144@56 (bench/results/forward-threads.md).
constexpr bool kDepthwiseRowPrefetch = false;
// Layers whose input and output take more than this (the L2 of one core of the Xeon) prefetch each tile's next
// channel block's outputs (depthwise_k3_rows). Measured on the Xeon, batch 8, 1 thread: dw192@28 0.455 -> 0.43 ms,
// dw576@14 0.34 -> 0.32, dw144@56 -1..3 %, dw32@112 and dw960@7 within the noise or a little faster; at batch 1
// in L2 (dw192@28, dw576@14) 3-10 % slower, hence the bound (bench/results/forward-depthwise.md).
constexpr i64 kDepthwisePrefetchOutputsAbove = i64{2} << 20;
}  // namespace
}  // namespace convcheck::optimized::detail::avx512

#include "depthwise_k3_rows.inl"
#include "depthwise_kernels.inl"
