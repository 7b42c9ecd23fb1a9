// The GEMM-shaped paths on Eigen: im2col + GEMM (the general fallback) and the 1x1 kernel with unit
// strides, where the padded channels-last input already is the GEMM's left matrix.
// Compiled with -mavx2 -mfma; every Eigen instantiation of the library lives in this unit, so that
// no code built for one ISA is shared with units built for another.
#include <algorithm>
#include <Eigen/Core>

#include "scalar.hpp"

namespace convcheck::optimized::detail {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Strided = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using ConstStrided = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

}  // namespace

void gemm_tasks(const GemmProblem& p, const float* xp, float* y, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 cs = g.channel_stride, ICg = g.in_per_group, OCg = g.out_per_group, taps = g.taps();
    const i64 depth = taps * ICg, pixels = g.out_pixels(), chunks = p.chunks_per_image();
    RowMajor gathered;
    for (i64 task = begin; task < end; ++task) {
        const i64 chunk = task % chunks;
        const i64 grp = (task / chunks) % g.groups;
        const i64 n = task / (chunks * g.groups);
        const i64 p0 = chunk * p.chunk_pixels;
        const i64 count = pixels - p0 < p.chunk_pixels ? pixels - p0 : p.chunk_pixels;
        const ConstStrided weights(p.weights + grp * depth * OCg, depth, OCg, Eigen::OuterStride<>(OCg));
        Strided out(y + (n * pixels + p0) * g.out_channels + grp * OCg, count, OCg, Eigen::OuterStride<>(g.out_channels));
        if (p.bias) {
            const Eigen::Map<const Eigen::RowVectorXf> bias(p.bias + grp * OCg, OCg);
            out.rowwise() = bias;
        } else {
            out.setZero();
        }
        if (p.input_is_matrix) {
            const ConstStrided a(xp + (n * pixels + p0) * cs + grp * ICg, count, ICg, Eigen::OuterStride<>(cs));
            out.noalias() += a * weights;
            continue;
        }
        // the columns (tap, ic) in blocks of depth_block: one GEMM when they all fit (every usual layer)
        const i64 block = p.depth_block <= 0 || p.depth_block > depth ? depth : p.depth_block;
        gathered.resize(count, block);
        for (i64 k0 = 0; k0 < depth; k0 += block) {
            const i64 width = depth - k0 < block ? depth - k0 : block;
            for (i64 i = 0; i < count; ++i) {
                const i64 pix = p0 + i;
                const i64 ow = pix % g.out[2], oh = (pix / g.out[2]) % g.out[1], od = pix / (g.out[2] * g.out[1]);
                const float* x = xp + (((n * g.padded[0] + od * g.stride[0]) * g.padded[1] + oh * g.stride[1]) *
                                           g.padded[2] + ow * g.stride[2]) * cs + grp * ICg;
                float* row = gathered.data() + i * block;
                for (i64 k = k0, t = k0 / ICg, ic = k0 % ICg; k < k0 + width; ++k) {
                    row[k - k0] = x[p.tap_offsets[t] + ic];
                    if (++ic == ICg) ic = 0, ++t;
                }
            }
            if (width == depth) {
                out.noalias() += gathered * weights;
            } else {
                out.noalias() += gathered.leftCols(width) * weights.middleRows(k0, width);
            }
        }
    }
}

void gemm_1x1_ncx_tasks(const GemmProblem& p, const float* src, float* dst, i64 begin, i64 end) {
    using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
    const Geometry& g = *p.geometry;
    const i64 ICg = g.in_per_group, OCg = g.out_per_group, pixels = g.out_pixels(), chunks = p.chunks_per_image();
    const i64 blocks = p.oc_blocks(), block = p.oc_block <= 0 ? OCg : p.oc_block;
    for (i64 task = begin; task < end; ++task) {
        const i64 ocb = task % blocks;
        const i64 chunk = (task / blocks) % chunks;
        const i64 grp = (task / (blocks * chunks)) % g.groups;
        const i64 n = task / (blocks * chunks * g.groups);
        const i64 p0 = chunk * p.chunk_pixels;
        const i64 count = pixels - p0 < p.chunk_pixels ? pixels - p0 : p.chunk_pixels;
        const i64 o0 = ocb * block, rows = OCg - o0 < block ? OCg - o0 : block;
        // B_g is [ICg][OCg] row-major, i.e. B_g^T column-major (leading dimension OCg); rows o0.. of it
        const Eigen::Map<const ColMajor, 0, Eigen::OuterStride<>> weights_t(p.weights + grp * ICg * OCg + o0, rows, ICg,
                                                                            Eigen::OuterStride<>(OCg));
        const ConstStrided x(src + (n * g.in_channels + grp * ICg) * pixels + p0, ICg, count, Eigen::OuterStride<>(pixels));
        Strided out(dst + (n * g.out_channels + grp * OCg + o0) * pixels + p0, rows, count, Eigen::OuterStride<>(pixels));
        if (p.bias) {
            const Eigen::Map<const Eigen::VectorXf> bias(p.bias + grp * OCg + o0, rows);
            out.colwise() = bias;
        } else {
            out.setZero();
        }
        out.noalias() += weights_t * x;
    }
}

GemmProblem ncx_problem(const Geometry* g, const float* weights, const float* bias) {
    GemmProblem p{g, nullptr, weights, bias, true, 512};
    constexpr i64 kWanted = 4;
    const auto ceil_div = [](i64 a, i64 b) { return (a + b - 1) / b; };
    // output-channel blocks of at least 48 channels, about equal: the weights split without striding the
    // input, and each GEMM keeps at least one full Eigen register block (3 x 16 rows) of outputs
    if (p.tasks() < kWanted) {
        const i64 blocks = std::min(ceil_div(kWanted, p.tasks()), std::max<i64>(1, g->out_per_group / 48));
        if (blocks > 1) p.oc_block = ceil_div(ceil_div(g->out_per_group, blocks), 16) * 16;
    }
    return p;
}

}  // namespace convcheck::optimized::detail
