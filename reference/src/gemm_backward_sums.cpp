// The GEMM evaluators of the backward passes (gemm_backward_sums.hpp). The work is cut into tasks that each own
// their part of the result, so that no element's order of additions depends on the thread count:
//   backward data     one task per (image n, group g, block of at most 16 of g's input channels): for each
//                     block of output positions p in order,  C = W_g(:, the block's rows)^T * dY_g(:, p),
//                     then col2im adds C into the block's diff_src planes of image n;
//   backward weights  one task per (group g, block of at most 16 of g's input channels): for each image n and
//                     block of output positions p in order,  dW_g(:, the block's rows) += dY_g(:, p) * A^T,
//                     A the im2col of image n's block of input channels at p.
// A block's rows are its term positions (ic_g, kd, kh, kw) in OIX order, so a row of W_g and of dW_g is a
// slice of OIX weights. Built with -mavx2 -mfma (reference/CMakeLists.txt), as gemm_summation.cpp, and run only
// where gemm_summation_available() says so.
#include "convcheck/reference/gemm_backward_sums.hpp"

// As in gemm_summation.cpp: always Eigen's blocked product, whose order of additions depends on the sizes only
// (and this CPU's cache sizes), never on a buffer's alignment.
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 1
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "chunk_sums.hpp"
#include "geometry.hpp"
#include "gradient_arrays.hpp"
#include "im2col.hpp"

namespace convcheck::reference {

namespace {

using i64 = std::int64_t;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrix = Eigen::Map<const RowMajor>;
using ConstBlock = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Block = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

// Input channels of one task: enough tasks for the cores on a layer of one group, rows enough for a GEMM.
constexpr i64 kChannelsPerTask = 16;

// The sizes both passes cut their work by.
struct Sizes {
    i64 N, IC, OC, ICg, OCg, G, taps, K, in_plane, P, channel_blocks;
    explicit Sizes(const ConvDescriptor& d, const detail::Geometry3& g)
        : N(d.batch), IC(d.in_channels), OC(d.out_channels), ICg(d.in_channels_per_group()),
          OCg(d.out_channels_per_group()), G(d.groups), taps(g.kernel[0] * g.kernel[1] * g.kernel[2]),
          K(ICg * taps), in_plane(g.in[0] * g.in[1] * g.in[2]), P(g.out[0] * g.out[1] * g.out[2]),
          channel_blocks((ICg + kChannelsPerTask - 1) / kChannelsPerTask) {}
    // the first input channel (within its group) of a block, and how many it holds
    i64 first_channel(i64 block) const { return block * kChannelsPerTask; }
    i64 channels(i64 block) const { return std::min(kChannelsPerTask, ICg - first_channel(block)); }
};

std::vector<double> absolute(std::span<const double> v) {
    std::vector<double> a(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) a[i] = std::fabs(v[i]);
    return a;
}

double thread_count(int threads) {
    return threads > 0 ? threads : static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));
}

// One thread's blocks (see the header): a block of columns and its magnitudes, and Eigen's packed operands.
double per_thread_bytes(const ConvDescriptor& d) {
    const Sizes s(d, detail::lift(d));
    const i64 R = std::min(kChannelsPerTask, s.ICg) * s.taps, C = detail::block_columns(R, s.P);
    return 24.0 * static_cast<double>(R) * static_cast<double>(C) +
           8.0 * static_cast<double>(s.OCg) * static_cast<double>(std::max(R, C));
}

}  // namespace

double gemm_backward_data_work_bytes(const ConvDescriptor& d, int threads) {
    return 8.0 * static_cast<double>(d.weights_elements() + d.dst_elements()) + thread_count(threads) * per_thread_bytes(d);
}

double gemm_backward_weights_work_bytes(const ConvDescriptor& d, int threads) {
    return 8.0 * static_cast<double>(d.dst_elements()) + thread_count(threads) * per_thread_bytes(d);
}

GradientResult gemm_backward_data_summation(const ConvDescriptor& d, std::span<const double> diff_dst,
                                            std::span<const double> weights, int threads) {
    detail::check_canonical_size("diff_dst", diff_dst.size(), d.dst_elements());
    detail::check_canonical_size("weights", weights.size(), d.weights_elements());
    const detail::Geometry3 g = detail::lift(d);
    const Sizes s(d, g);
    GradientResult r = detail::zero_gradient(d.src_elements());
    const std::vector<double> weights_magnitude = absolute(weights), diff_dst_magnitude = absolute(diff_dst);

    auto sum_task = [&](i64 task) {
        const i64 block = task % s.channel_blocks, group = (task / s.channel_blocks) % s.G;
        const i64 n = task / (s.channel_blocks * s.G);
        const i64 ic0 = s.first_channel(block), rows = s.channels(block) * s.taps;
        const i64 columns = detail::block_columns(rows, s.P);
        // W_g's columns of this block's rows (an OC_G x rows slice of OIX weights), transposed below
        const i64 w_first = group * s.OCg * s.K + ic0 * s.taps;
        const ConstBlock w(weights.data() + w_first, s.OCg, rows, Eigen::OuterStride<>(s.K));
        const ConstBlock w_magnitude(weights_magnitude.data() + w_first, s.OCg, rows, Eigen::OuterStride<>(s.K));
        const i64 planes = (n * s.IC + group * s.ICg + ic0) * s.in_plane;
        thread_local detail::BlockArrays c;
        for (i64 p0 = 0; p0 < s.P; p0 += columns) {
            const i64 width = std::min(columns, s.P - p0);
            const i64 dy_first = (n * s.OC + group * s.OCg) * s.P + p0;
            const ConstBlock dy(diff_dst.data() + dy_first, s.OCg, width, Eigen::OuterStride<>(s.P));
            const ConstBlock dy_magnitude(diff_dst_magnitude.data() + dy_first, s.OCg, width, Eigen::OuterStride<>(s.P));
            c.reserve(static_cast<std::size_t>(rows * width));
            Eigen::Map<RowMajor> cm(c.values.get(), rows, width), cm_magnitude(c.magnitude.get(), rows, width);
            cm.noalias() = w.transpose() * dy;
            cm_magnitude.noalias() = w_magnitude.transpose() * dy_magnitude;
            detail::col2im_add_block(g, c.values.get(), c.magnitude.get(), s.channels(block), p0, width,
                                     r.values.data() + planes, r.magnitude.data() + planes);
        }
    };
    detail::for_each_block(s.N * s.G * s.channel_blocks, threads, d.dst_elements() * s.K, sum_task);

    // the term counts, from the geometry: OC_G times the (tap, output) pairs reaching x, a product over the
    // axes; the same for every (n, ic)
    std::array<std::vector<i64>, 3> reaching;
    for (int a = 0; a < 3; ++a) {
        reaching[a].assign(static_cast<std::size_t>(g.in[a]), 0);
        for (const i64 x : detail::input_index(g, a))
            if (x >= 0) ++reaching[a][x];
    }
    for (i64 plane = 0; plane < s.N * s.IC; ++plane)
        for (i64 x0 = 0, at = plane * s.in_plane; x0 < g.in[0]; ++x0)
            for (i64 x1 = 0; x1 < g.in[1]; ++x1)
                for (i64 x2 = 0; x2 < g.in[2]; ++x2, ++at)
                    r.terms[at] = s.OCg * reaching[0][x0] * reaching[1][x1] * reaching[2][x2];
    return r;
}

GradientResult gemm_backward_weights_summation(const ConvDescriptor& d, std::span<const double> src,
                                               std::span<const double> diff_dst, int threads) {
    detail::check_canonical_size("src", src.size(), d.src_elements());
    detail::check_canonical_size("diff_dst", diff_dst.size(), d.dst_elements());
    const detail::Geometry3 g = detail::lift(d);
    const Sizes s(d, g);
    GradientResult r = detail::zero_gradient(d.weights_elements());
    const std::vector<double> diff_dst_magnitude = absolute(diff_dst);

    auto sum_task = [&](i64 task) {
        const i64 block = task % s.channel_blocks, group = task / s.channel_blocks;
        const i64 ic0 = s.first_channel(block), rows = s.channels(block) * s.taps;
        const i64 columns = detail::block_columns(rows, s.P);
        // dW_g's columns of this block's rows: an OC_G x rows slice of OIX diff_weights
        const i64 w_first = group * s.OCg * s.K + ic0 * s.taps;
        Block dw(r.values.data() + w_first, s.OCg, rows, Eigen::OuterStride<>(s.K));
        Block dw_magnitude(r.magnitude.data() + w_first, s.OCg, rows, Eigen::OuterStride<>(s.K));
        thread_local detail::BlockArrays patches;
        for (i64 n = 0; n < s.N; ++n)
            for (i64 p0 = 0; p0 < s.P; p0 += columns) {
                const i64 width = std::min(columns, s.P - p0);
                // im2col of this block (im2col.hpp): every element written, the reused buffers need no clearing
                patches.reserve(static_cast<std::size_t>(rows * width));
                detail::im2col_block(g, src.data() + (n * s.IC + group * s.ICg + ic0) * s.in_plane, s.channels(block),
                                     p0, width, patches.values.get(), patches.magnitude.get());
                const ConstMatrix a(patches.values.get(), rows, width), a_magnitude(patches.magnitude.get(), rows, width);
                const i64 dy_first = (n * s.OC + group * s.OCg) * s.P + p0;
                const ConstBlock dy(diff_dst.data() + dy_first, s.OCg, width, Eigen::OuterStride<>(s.P));
                const ConstBlock dy_magnitude(diff_dst_magnitude.data() + dy_first, s.OCg, width,
                                              Eigen::OuterStride<>(s.P));
                dw.noalias() += dy * a.transpose();
                dw_magnitude.noalias() += dy_magnitude * a_magnitude.transpose();
            }
    };
    detail::for_each_block(s.G * s.channel_blocks, threads, d.dst_elements() * s.K, sum_task);

    // the term counts, from the geometry: N times the outputs whose tap k lands inside, a product over the
    // axes; the same for every (oc, ic_g)
    std::array<std::vector<i64>, 3> inside;
    for (int a = 0; a < 3; ++a) {
        inside[a].assign(static_cast<std::size_t>(g.kernel[a]), 0);
        const std::vector<i64> x = detail::input_index(g, a);
        for (std::size_t at = 0; at < x.size(); ++at)
            if (x[at] >= 0) ++inside[a][at % g.kernel[a]];
    }
    for (i64 filter = 0; filter < s.OC * s.ICg; ++filter)
        for (i64 kd = 0, at = filter * s.taps; kd < g.kernel[0]; ++kd)
            for (i64 kh = 0; kh < g.kernel[1]; ++kh)
                for (i64 kw = 0; kw < g.kernel[2]; ++kw, ++at)
                    r.terms[at] = s.N * inside[0][kd] * inside[1][kh] * inside[2][kw];
    return r;
}

}  // namespace convcheck::reference
