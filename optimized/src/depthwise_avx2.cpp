// The depthwise kernels for AVX2 + FMA (8 channels per vector, 16 registers). Compiled with
// -mavx2 -mfma; called only when the CPU has both (see dispatch.cpp).
#include "isa_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {
// outputs per tile of the 3-wide depthwise kernel, stride 1 and 2: R sums + 3 weights + 1 input (its columns are
// loaded one at a time, k3_kernel_row); 8 outputs are 8 independent FMA chains (measured 1.1-1.25x faster
// than 4 on the MobileNet layers; 12 no faster; the two-row tile of 4 outputs slower on dw32@112)
constexpr int kDepthwiseK3WidthS1 = 8, kDepthwiseK3WidthS2 = 8;
constexpr int kDepthwiseK3PairWidthS1 = 0, kDepthwiseK3PairWidthS2 = 0;
constexpr int kDepthwiseTileWidth = 12;
// Rows of layers over 16 MiB prefetch their next rows in software (depthwise_k3_rows): measured on
// the AMD EPYC, 1.3-1.5x faster at batch 8 (bench/results/forward-threads.md).
constexpr bool kDepthwiseRowPrefetch = true;
// Never (-1): the next channel block's output prefetch (depthwise_k3_rows) is measured on AVX-512 only.
constexpr i64 kDepthwisePrefetchOutputsAbove = -1;
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#include "depthwise_k3_rows.inl"
#include "depthwise_kernels.inl"
