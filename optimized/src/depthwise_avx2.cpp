// The depthwise kernels for AVX2 + FMA (8 channels per vector, 16 registers). Compiled with
// -mavx2 -mfma; called only when the CPU has both (see dispatch.cpp).
#include "isa_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {
// outputs per tile of the 3-wide depthwise kernel, stride 1 and 2: (R-1)*S + 3 inputs + R sums + 3 weights
constexpr int kDepthwiseK3WidthS1 = 4, kDepthwiseK3WidthS2 = 4;
constexpr int kDepthwiseK3PairWidthS1 = 0, kDepthwiseK3PairWidthS2 = 0;  // no two-row tile: 16 registers are too few
constexpr int kDepthwiseTileWidth = 12;
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#include "depthwise_k3_rows.inl"
#include "depthwise_kernels.inl"
