// The AVX-512 vocabulary of the direct kernels: the vector type `vf` (16 floats), its width W and
// load/broadcast/zero/fma/store, then the register-tile helpers written once over that vocabulary
// (register_tile.inl). Included only by the units compiled with -mavx512f -mavx512bw -mavx512vl -mfma
// (blocked_avx512.cpp, depthwise_avx512.cpp), each before its kernel source; everything here has
// internal linkage, so no function compiled for this ISA is shared with a unit built for another.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "problem.hpp"

#define CONVCHECK_ISA_NAMESPACE avx512

namespace convcheck::optimized::detail::avx512 {
namespace {
using vf = __m512;
constexpr int W = 16;
inline vf load(const float* p) { return _mm512_loadu_ps(p); }
inline vf broadcast(const float* p) { return _mm512_set1_ps(*p); }
inline vf zero() { return _mm512_setzero_ps(); }
inline vf fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
inline void store(float* p, vf v) { _mm512_storeu_ps(p, v); }
// a non-temporal store (no read for ownership; needs a vector-aligned address and an sfence before others read)
inline void stream(float* p, vf v) { _mm512_stream_ps(p, v); }
}  // namespace
}  // namespace convcheck::optimized::detail::avx512

#include "register_tile.inl"
