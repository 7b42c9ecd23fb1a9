// Internal: the portable path and the Eigen GEMM paths.
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

// Weights packed [G][taps][ICg][OCg]; bias [O] or null. Rows (n, od, oh).
struct ScalarProblem {
    const Geometry* geometry = nullptr;
    const i64* tap_offsets = nullptr;
    const float* weights = nullptr;
    const float* bias = nullptr;
    i64 rows() const { return geometry->batch * geometry->out[0] * geometry->out[1]; }
};
void scalar_rows(const ScalarProblem& p, const float* xp, float* y, i64 begin, i64 end);

// im2col + GEMM: per task (n, g, chunk of `chunk_pixels` output pixels), the matrix
// A[pixel][tap*ICg + ic] (gathered from xp, or xp itself for a 1x1 kernel with unit strides)
// times B_g = weights [G][taps*ICg][OCg] (row-major), added to the bias, written into y.
// chunk_pixels depends only on the descriptor, never on the thread count.
struct GemmProblem {
    const Geometry* geometry = nullptr;
    const i64* tap_offsets = nullptr;
    const float* weights = nullptr;
    const float* bias = nullptr;
    bool input_is_matrix = false;   // gemm_1x1: no gather
    i64 chunk_pixels = 256;
    i64 oc_block = 0;               // gemm_1x1_ncx_tasks: output channels per task (0: all OCg)
    i64 depth_block = 0;            // gemm_tasks: gathered columns (taps x ICg) per GEMM (0: all)
    i64 chunks_per_image() const { return (geometry->out_pixels() + chunk_pixels - 1) / chunk_pixels; }
    i64 oc_blocks() const {
        return oc_block <= 0 ? 1 : (geometry->out_per_group + oc_block - 1) / oc_block;
    }
    i64 tasks() const { return geometry->batch * geometry->groups * chunks_per_image() * oc_blocks(); }
};
// The gemm_1x1_ncx_tasks problem: pixel chunks of up to 512, and when that gives fewer than 4 tasks
// (batch 1 of a 14x14 layer is one), blocks of output channels (at least 48) until there are about 4:
// work for 2 or 4 threads, a function of the descriptor only (the sums are the same for any thread
// count). Smaller pixel chunks were measured too: they stride the input and cost up to 35%.
GemmProblem ncx_problem(const Geometry* g, const float* weights, const float* bias);
// im2col_gemm's gather (gemm_chunks.cpp), from the geometry only: chunks of about 64K floats (256 KiB),
// between 16 and 1024 pixels; when a chunk's rows (at most the output pixels) times taps x ICg exceed
// 1M floats (a kernel as large as the input), the columns are gathered and multiplied in blocks, so that
// a task's gather stays within 4 MiB however large the kernel. gemm_gather_floats: the floats one gemm_tasks call gathers at once.
i64 gemm_chunk_pixels(const Geometry& g);
i64 gemm_depth_block(const Geometry& g);
i64 gemm_gather_floats(const Geometry& g);
// Compiled with -mavx2 -mfma (gemm.cpp): call only when the CPU has both.
void gemm_tasks(const GemmProblem& p, const float* xp, float* y, i64 begin, i64 end);
// gemm_1x1 straight on the user's f32 NCX buffers (no padding): per task (n, g, chunk of pixels,
// block of output channels) dst_g[block][chunk] = B_g^T [block][ICg] * src_g[ICg][chunk] + bias. No layout
// conversion at all. ncx_problem picks the chunk and block sizes from the descriptor only.
void gemm_1x1_ncx_tasks(const GemmProblem& p, const float* src, float* dst, i64 begin, i64 end);

}  // namespace convcheck::optimized::detail
