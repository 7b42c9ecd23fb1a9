// The sizes of im2col_gemm's gather (scalar.hpp): functions of the descriptor only, so that the
// summation is the same for any thread count.
#include <algorithm>

#include "scalar.hpp"

namespace convcheck::optimized::detail {

namespace {
constexpr i64 kChunkFloats = 65536, kGatherFloats = i64{1} << 20;
}

i64 gemm_chunk_pixels(const Geometry& g) {
    return std::clamp<i64>(kChunkFloats / std::max<i64>(1, g.taps() * g.in_per_group), 16, 1024);
}

i64 gemm_depth_block(const Geometry& g) {
    const i64 depth = g.taps() * g.in_per_group, rows = std::min(gemm_chunk_pixels(g), g.out_pixels());
    return depth <= kGatherFloats / rows ? depth : kGatherFloats / rows;
}

i64 gemm_gather_floats(const Geometry& g) {
    return std::min(gemm_chunk_pixels(g), g.out_pixels()) * gemm_depth_block(g);
}

}  // namespace convcheck::optimized::detail
