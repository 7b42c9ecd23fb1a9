// The direct kernels for AVX-512 (16 floats per vector, 32 registers). Compiled with
// -mavx512f -mavx512bw -mavx512vl -mfma; called only when the CPU has AVX-512 (see dispatch.cpp).
#include <immintrin.h>

#include "problem.hpp"

namespace convcheck::optimized::detail::avx512 {
namespace {
using vf = __m512;
constexpr int W = 16;
// Output pixels per register tile for NB vector blocks: R*NB accumulators + NB weights + 1 broadcast <= 32.
constexpr int kTileWidth[5] = {0, 14, 14, 8, 6};
// outputs per tile of the 3-wide depthwise kernel, stride 1 and 2: (R-1)*S + 3 inputs + R sums + 3 weights
constexpr int kDepthwiseK3WidthS1 = 12, kDepthwiseK3WidthS2 = 8;
// outputs per row of the two-row tile, width stride 1 and 2: 2R sums + (R-1)*S + 3 inputs + 6 weights
constexpr int kDepthwiseK3PairWidthS1 = 8, kDepthwiseK3PairWidthS2 = 6;
constexpr int kDepthwiseTileWidth = 14;
inline vf load(const float* p) { return _mm512_loadu_ps(p); }
inline vf broadcast(const float* p) { return _mm512_set1_ps(*p); }
inline vf zero() { return _mm512_setzero_ps(); }
inline vf fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
inline void store(float* p, vf v) { _mm512_storeu_ps(p, v); }
}  // namespace
}  // namespace convcheck::optimized::detail::avx512

#define CONVCHECK_ISA_NAMESPACE avx512
#define CONVCHECK_MAX_NB 4
#include "direct_kernels.inl"
