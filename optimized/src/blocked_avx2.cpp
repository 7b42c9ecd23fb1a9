// The direct kernels for AVX2 + FMA (8 floats per vector, 16 registers). Compiled with -mavx2 -mfma;
// called only when the CPU has both (see dispatch.cpp).
#include <immintrin.h>

#include "problem.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {
using vf = __m256;
constexpr int W = 8;
// Output pixels per register tile for NB vector blocks: R*NB accumulators + NB weights + 1 broadcast <= 16.
constexpr int kTileWidth[5] = {0, 12, 6, 4, 0};
// outputs per tile of the 3-wide depthwise kernel, stride 1 and 2: (R-1)*S + 3 inputs + R sums + 3 weights
constexpr int kDepthwiseK3WidthS1 = 4, kDepthwiseK3WidthS2 = 4;
constexpr int kDepthwiseK3PairWidthS1 = 0, kDepthwiseK3PairWidthS2 = 0;  // no two-row tile: 16 registers are too few
constexpr int kDepthwiseTileWidth = 12;
inline vf load(const float* p) { return _mm256_loadu_ps(p); }
inline vf broadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline vf zero() { return _mm256_setzero_ps(); }
inline vf fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
inline void store(float* p, vf v) { _mm256_storeu_ps(p, v); }
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#define CONVCHECK_ISA_NAMESPACE avx2
#define CONVCHECK_MAX_NB 3
#include "direct_kernels.inl"
