// The backward-weights kernels for AVX-512 (16 floats per vector, 32 registers). Compiled with
// -mavx512f -mavx512bw -mavx512vl -mfma; called only when the CPU has AVX-512.
#include "backward_weights_problem.hpp"
#include "isa_avx512.hpp"

namespace convcheck::optimized::detail::avx512 {
namespace {
// Tile rows for NB output-channel vectors: R*NB accumulators + NB dy vectors + 1 broadcast <= 32.
constexpr int kGeneralRows[5] = {0, 14, 14, 8, 6};
constexpr int kGeneralMaxBlocks = 4;
// Depthwise: 9 taps (a 3x3 kernel in one tile) x 2 channel vectors: 18 + 2 + 1 <= 32.
constexpr int kDepthwiseRows = 9;
constexpr int kDepthwiseBlocks = 2;
}  // namespace
}  // namespace convcheck::optimized::detail::avx512

#include "backward_weights_kernels.inl"
#include "backward_weights_depthwise.inl"
