// The blocked direct kernel for AVX2 + FMA (8 floats per vector, 16 registers). Compiled with
// -mavx2 -mfma; called only when the CPU has both (see dispatch.cpp).
#include "isa_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {
// Output pixels per register tile for NB vector blocks: R*NB accumulators + NB weights + 1 broadcast <= 16.
constexpr int kTileWidth[5] = {0, 12, 6, 4, 0};
constexpr int kMaxVectorBlocks = 3;
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#include "blocked_kernels.inl"
