// The backward-weights kernels for AVX2 + FMA (8 floats per vector, 16 registers). Compiled with
// -mavx2 -mfma; called only when the CPU has both.
#include "backward_weights_problem.hpp"
#include "isa_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {
// Tile rows for NB output-channel vectors: R*NB accumulators + NB dy vectors + 1 broadcast <= 16.
constexpr int kGeneralRows[4] = {0, 12, 6, 4};
constexpr int kGeneralMaxBlocks = 3;
// Depthwise: 9 taps x 1 channel vector: 9 + 1 + 1 <= 16.
constexpr int kDepthwiseRows = 9;
constexpr int kDepthwiseBlocks = 1;
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#include "backward_weights_kernels.inl"
#include "backward_weights_depthwise.inl"
