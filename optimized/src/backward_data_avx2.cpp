// The backward-data kernels of their own for AVX2 (backward_data_depthwise.inl, backward_data_narrow.inl,
// backward_data_pointwise.inl, backward_data_rows.inl); called only when the CPU has it.
#include "backward_data_depthwise.hpp"
#include "backward_data_narrow.hpp"
#include "backward_data_pointwise.hpp"
#include "backward_data_rows.hpp"
#include "isa_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {
// The pointwise kernel's pixels per tile for NB vectors: P*NB accumulators + NB weights + 1 broadcast
// within 16 registers, P dividing kPointwiseChunk.
constexpr int kPointwiseRows[4] = {0, 12, 6, 4};
constexpr int kPointwiseMaxBlocks = 3;
// The row kernel's outputs per tile for NB vectors: R*NB accumulators + NB weights + 1 broadcast within
// 16 registers.
constexpr int kRowsTile[4] = {0, 14, 6, 4};
constexpr int kRowsMaxBlocks = 3;
// No tiles of two rows (backward_data_avx512.cpp): not measured on AVX2
constexpr int kRowsPairWidth = 0;
}  // namespace
}  // namespace convcheck::optimized::detail::avx2

#include "backward_data_depthwise.inl"
#include "backward_data_narrow.inl"
#include "backward_data_pointwise.inl"
#include "backward_data_rows.inl"
