// The AVX2 + FMA vocabulary of the direct kernels: the vector type `vf` (8 floats), its width W and
// load/broadcast/zero/fma/store, then the register-tile helpers written once over that vocabulary
// (register_tile.inl). Included only by the units compiled with -mavx2 -mfma
// (blocked_avx2.cpp, depthwise_avx2.cpp), each before its kernel source; everything here has
// internal linkage, so no function compiled for this ISA is shared with a unit built for another.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "problem.hpp"

#define CONVCHECK_ISA_NAMESPACE avx2

namespace convcheck::optimized::detail::avx2 {
namespace {
using vf = __m256;
constexpr int W = 8;
inline vf load(const float* p) { return _mm256_loadu_ps(p); }
inline vf broadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline vf zero() { return _mm256_setzero_ps(); }
inline vf fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
inline void store(float* p, vf v) { _mm256_storeu_ps(p, v); }
// a non-temporal store (no read for ownership; needs a vector-aligned address and an sfence before others read)
inline void stream(float* p, vf v) { _mm256_stream_ps(p, v); }
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#include "register_tile.inl"
