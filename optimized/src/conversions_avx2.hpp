// Internal: the AVX2 conversions (conversions_avx2.cpp), apart from conversions.hpp so that the kernel file
// sees only the plain structs of problem.hpp, never the descriptor.
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

// The data of pack_src_ncx_blocks by input rows, and store_dst_ncx_blocks, of f32 buffers with AVX2
// 8x8 transposes (conversions_avx2.cpp; only on a CPU with AVX2 and FMA): the same floats.
namespace avx2 {
i64 pack_src_ncx_row_count(const Geometry& g);
void pack_src_ncx_rows_f32(const Geometry& g, const float* src, float* xp, i64 begin, i64 end);
void store_dst_ncx_blocks_f32(const Geometry& g, const float* y, float* dst, i64 begin, i64 end);
}  // namespace avx2

}  // namespace convcheck::optimized::detail
