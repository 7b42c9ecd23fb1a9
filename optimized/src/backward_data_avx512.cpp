// The backward-data kernels of their own for AVX512 (backward_data_depthwise.inl, backward_data_narrow.inl,
// backward_data_pointwise.inl, backward_data_pointwise_quads.inl, backward_data_rows.inl); called only when the CPU has it.
#include "backward_data_depthwise.hpp"
#include "backward_data_narrow.hpp"
#include "backward_data_pointwise.hpp"
#include "backward_data_rows.hpp"
#include "isa_avx512.hpp"

namespace convcheck::optimized::detail::avx512 {
namespace {
// The pointwise kernel's pixels per tile for NB vectors: P*NB accumulators + NB weights + 1 broadcast
// within 32 registers, P dividing kPointwiseChunk. Up to 24 accumulators and 4 vectors (AVX2's 12 and 3
// before: res4_1x1_1024 backward data, batch 8, 1 thread, 6.0-6.4 -> 4.6-5.6 ms, alternated under load);
// one vector keeps 12 pixels (16 measured no faster on pw16_96_112: broadcasts as many as FMAs).
constexpr int kPointwiseRows[5] = {0, 12, 12, 8, 6};
constexpr int kPointwiseMaxBlocks = 4;
// The row kernel's outputs per tile for NB vectors: R*NB accumulators + NB weights + 1 broadcast within
// 32 registers.
constexpr int kRowsTile[5] = {0, 16, 14, 9, 6};
constexpr int kRowsMaxBlocks = 4;
// The widest rows that the row kernel runs two at a time in one tile of NB = 2 (kRowsTile[2] outputs at most)
constexpr int kRowsPairWidth = 7;
}  // namespace
}  // namespace convcheck::optimized::detail::avx512

#include "backward_data_depthwise.inl"
#include "backward_data_narrow.inl"
#include "backward_data_pointwise.inl"
#include "backward_data_pointwise_quads.inl"
#include "backward_data_rows.inl"
