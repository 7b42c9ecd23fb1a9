// The CC backward for the Internal-Net (cc_backward_net.hpp). The orders, fixed by the descriptor:
//   d[W3 | b3]: per chunk and image, f32 sums over the chunk's pixels from 0 (FMA), added to the double
//     partial of bands 2i and 2i + 1 (run_bands); chunks in order, images in order within a chunk, band 2i
//     before band 2i + 1; the partials added in order.
//   [dZ | dS]: the blocked GEMM over Cout in order.
//   diff_src: per pixel of a chunk, dN = dS + the features' sums (AVX2: 4 vectors at a time, lanes
//     summed by a fixed tree; AVX-512 with h2p a multiple of 16: dS + h_0 dZ_0 + h_1 dZ_1 + ... in
//     order), added at each neighbour (taps in (y, x) order) into the band's ring of input rows (from
//     0); pixels in order within a band; a row added to diff_src after the band's last chunk reading
//     it (stored where it is the row's first contribution: 0 + x = x, x never -0); the even bands'
//     contributions first, then the odd bands'.
//   diff_bias: per band the pixels of each chunk in order (double), images in order within a chunk,
//     chunks in order; then the partials added in order (computed whether or not the layer has a bias).
//   Z, S: recomputed as the forward does (cc_contract_channels_last, feature-major, the same bits).
//   dh: summed over the input channels in order, then the images in order; the hidden layers' reverse
//     per distance pair in the forward's pair order, f32 sums over the chunk (dW2, db2) or double
//     (dW1, db1), added to the band's partial.
#include "cc_backward_net.hpp"

#include <tbb/blocked_range.h>

#include <algorithm>
#include <array>

#include "convcheck/optimized/conv_plan.hpp"
#include "cc_backward_bands.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

namespace {

constexpr i64 kMaxChunkPixels = 120;  // as the forward's: a chunk's Z and dZ stay in L2
// [dZ | dS] of this many pixels at a time (whole tiles of 6 rows on AVX2, 8 on AVX-512), scattered while
// in L1 (of a whole chunk at once it left L1 before the scatter read it: 1.5-3% slower at 0.7071 batch 1)
constexpr i64 kTimesPixels = 24;

}  // namespace

CcBackwardNet::CcBackwardNet(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                             const AxisWindows& width)
    : desc_(d), axes_{height, width}, avx512_(cpu_has_avx512()) {
    const i64 Cout = d.out_channels, K = d.neighbours();
    net_ = std::make_unique<CcNetFactors>(d, kernel, axes_[0], axes_[1]);
    const i64 h1 = net_->h1, h2p = net_->h2p, depth = net_->depth;
    wide_ = avx512_ && h2p % 16 == 0;
    w2_ = cc_hidden_w2(net_->hidden, wide_ ? 16 : 8);
    for (int a = 0; a < 2; ++a) distances_[a].assign(axes_[a].distance.begin(), axes_[a].distance.end());
    hidden_back_ = CcHiddenBackwardProblem{&net_->hidden, distances_[0].data(), distances_[1].data(), w2_.data()};
    const i64 OH = d.output_size[0], OW = d.output_size[1], pixels = OH * OW;
    chunk_pixels_ = std::min(pixels, kMaxChunkPixels);
    const i64 P = chunk_pixels_;
    // a band's partial: d[W3 | b3] [depth][Cout], [dW2 | db2] [h1 + 1][h2p], [dW1 | db1] [3][h1], diff_bias
    partial_size_ = Cout * depth + (h1 + 1) * h2p + 3 * h1 + Cout;  // then diff_bias [Cout]
    band_rows_ = cc_backward_bands_by_chunks(axes_[0], OW, P);  // 2 per parity: tasks enough for 2 threads
    zero_rows_ = cc_rows_no_band_stores(axes_[0], band_rows_);
    odd_store_ = cc_rows_odd_bands_store(axes_[0], band_rows_);
    // the most input rows one chunk reads
    for (i64 b = 0; b + 1 < static_cast<i64>(band_rows_.size()); ++b)
        for (i64 p0 = band_rows_[b] * OW; p0 < band_rows_[b + 1] * OW; p0 += P) {
            const i64 p1 = std::min(p0 + P, band_rows_[b + 1] * OW);
            chunk_rows_ = std::max(chunk_rows_, input_rows(p0, p1)[1] - input_rows(p0, p1)[0]);
        }
    // a chunk: h and dh (K*h2p each), [Z | S] (depth), dY (Cout) per pixel, [dZ | dS] of kTimesPixels; per
    // image a ring of chunk_rows_ input rows and one of their gradient, channels last; the first layer's
    // scratch, dN [K][Cin], the hidden reverse's
    chunk_floats_ = P * (2 * K * h2p + depth + Cout) + std::min(P, kTimesPixels) * depth +
                    2 * d.batch * std::max<i64>(chunk_rows_, 1) * d.input_size[1] * d.in_channels +
                    kHiddenPairs * h1 + cc_scatter_back_scratch(net_->contract) + cc_hidden_backward_scratch(net_->hidden);
}

std::vector<float> cc_hidden_w2(const CcHiddenProblem& p, i64 lanes) {
    const i64 h1p = (p.h1 + lanes - 1) / lanes * lanes;
    std::vector<float> w2(static_cast<std::size_t>(p.h2p * h1p), 0.0f);
    for (i64 m = 0; m < p.h2p; ++m)
        for (i64 j = 0; j < p.h1; ++j) w2[m * h1p + j] = p.w2t[j * p.h2p + m];
    return w2;
}

std::array<i64, 2> CcBackwardNet::input_rows(i64 p0, i64 p1) const {
    return cc_input_rows(axes_[0], p0 / desc_.output_size[1], (p1 - 1) / desc_.output_size[1]);
}

void CcBackwardNet::run(const float* src, const float* diff_dst, float* diff_src, float* diff_theta,
                        float* diff_bias, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 planes = d.batch * d.in_channels, plane = d.input_size[0] * d.input_size[1];
    const i64 B = cc_band_partials(band_rows_);  // partial sums
    Workspace<double> partials = run_bands(band_rows_, partial_size_, diff_src, planes, plane, zero_rows_,
                                           d.input_size[1], partials_, meter,
                                           [&](i64 band, double* partial) {
                                               run_band(band, src, diff_dst, diff_src, partial, meter);
                                           });
    double* all = partials.data();
    // the sums in the ABI order W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout]
    const i64 Cin = d.in_channels, Cout = d.out_channels, h1 = net_->h1, h2 = net_->h2, h2p = net_->h2p;
    const i64 depth = net_->depth;
    // d[W3 | b3] [depth_z][Cout], the columns feature-major as Z (cc_contract_channels_last): its rows k = m * Cin + cin
    // (m = h2: b3), the bands added in order; per input channel in parallel, its h2 + 1 rows summed, then
    // written out a whole W3[cout, cin][.] at a time
    float* const w3 = diff_theta + 3 * h1 + h2 * (h1 + 1);
    parallel_for_joined(tbb::blocked_range<i64>(0, Cin), [&](const tbb::blocked_range<i64>& r) {
        for (i64 ci = r.begin(); ci < r.end(); ++ci) {
            for (i64 m = 0; m <= h2; ++m) add_band_partials(all + (m * Cin + ci) * Cout, B, partial_size_, Cout);
            for (i64 co = 0; co < Cout; ++co) {
                float* out = w3 + (co * Cin + ci) * h2;
                for (i64 m = 0; m < h2; ++m) out[m] = static_cast<float>(all[(m * Cin + ci) * Cout + co]);
                w3[Cin * Cout * h2 + co * Cin + ci] = static_cast<float>(all[(h2 * Cin + ci) * Cout + co]);
            }
        }
    });
    add_band_partials(all + Cout * depth, B, partial_size_, partial_size_ - Cout * depth);
    const double* dw2 = all + Cout * depth;  // [h1 + 1][h2p]: dW2[m][j] at j * h2p + m, then db2[m]
    const double* dw1 = dw2 + (h1 + 1) * h2p;  // [3][h1]: dW1[j][0], then dW1[j][1], then db1[j]
    float* out = diff_theta;
    for (i64 j = 0; j < h1; ++j) {
        *out++ = static_cast<float>(dw1[j]);
        *out++ = static_cast<float>(dw1[h1 + j]);
    }
    for (i64 j = 0; j < h1; ++j) *out++ = static_cast<float>(dw1[2 * h1 + j]);
    for (i64 m = 0; m < h2; ++m)
        for (i64 j = 0; j < h1; ++j) *out++ = static_cast<float>(dw2[j * h2p + m]);
    for (i64 m = 0; m < h2; ++m) *out++ = static_cast<float>(dw2[h1 * h2p + m]);
    const double* bias = dw1 + 3 * h1;
    if (diff_bias)
        for (i64 co = 0; co < Cout; ++co) diff_bias[co] = static_cast<float>(bias[co]);
    meter.count_out(B * partial_size_ * 8);
}

void CcBackwardNet::run_band(i64 band, const float* src, const float* diff_dst, float* diff_src, double* partial,
                             WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, K = d.neighbours(), OW = d.output_size[1];
    const i64 W = d.input_size[1], in_plane = d.input_size[0] * W, pixels = d.output_size[0] * OW;
    const i64 h1 = net_->h1, h2p = net_->h2p, depth = net_->depth, P = chunk_pixels_;
    const i64 depth_z = Cin * (net_->h2 + 1);  // Z and S feature-major (cc_contract_channels_last)
    const i64 scratch_i64 = kHiddenPairs + d.input_size[0];
    meter.count_in(chunk_floats_ * 4 + scratch_i64 * 8);
    Workspace<float> buffer = buffers_.take(static_cast<std::size_t>(chunk_floats_));
    Workspace<i64> scratch = scratch_.take(static_cast<std::size_t>(scratch_i64));
    i64* taps = scratch.data();
    // per image a ring of input rows (their gradient likewise): row iy at ring + row_offset[iy], slot iy % R.
    // Each row is packed (and its gradient zeroed) by the first chunk that reads it, and its gradient added
    // to diff_src after the last one: a chunk's rows are a window of at most R, and the windows only move on.
    const i64 R = std::max<i64>(chunk_rows_, 1), ring = R * W * Cin;  // (no row read at all: 0)
    i64* row_offset = taps + kHiddenPairs;
    for (i64 iy = 0; iy < d.input_size[0]; ++iy) row_offset[iy] = iy % R * W * Cin;
    float* h = buffer.data();
    float* dh = h + P * K * h2p;
    float* z = dh + P * K * h2p;
    float* dz = z + P * depth;  // kTimesPixels pixels' [dZ | dS]
    float* dy = dz + std::min(P, kTimesPixels) * depth;
    float* src_ring = dy + P * Cout;  // [N][R][W][Cin]
    float* diff_ring = src_ring + d.batch * ring;
    float* a1 = diff_ring + d.batch * ring;
    float* dn = a1 + kHiddenPairs * h1;
    float* hb = dn + cc_scatter_back_scratch(net_->contract);
    double* p_last = partial;
    double* p_w2 = p_last + Cout * depth;
    double* p_w1 = p_w2 + (h1 + 1) * h2p;
    double* p_bias = p_w1 + 3 * h1;
    const i64 end = band_rows_[band + 1] * OW;
    i64 packed = 0, added = 0;  // the rows before these are packed, and added to diff_src
    for (i64 p0 = band_rows_[band] * OW; p0 < end; p0 += P) {
        const i64 count = std::min(P, end - p0);
        const std::array<i64, 2> rows = input_rows(p0, p0 + count);
        // the rows no later chunk of the band reads: before the next chunk's first
        const i64 done = p0 + count < end ? input_rows(p0 + count, std::min(p0 + count + P, end))[0] : rows[1];
        const i64 fresh = std::max(packed, rows[0]), from = std::max(added, rows[0]);
        cc_hidden_features_here(net_->hidden, p0, count, a1, taps, h);
        for (i64 n = 0; n < d.batch; ++n) {
            const float* src_n = src + n * Cin * in_plane;
            float* diff_src_n = diff_src + n * Cin * in_plane;
            float* src_cl = src_ring + n * ring;
            float* diff_cl = diff_ring + n * ring;
            // the new input rows channels last (Z feature-major from them, [Cout][depth_z] into d[W3 | b3]),
            // their gradient from 0
            for (i64 iy = fresh; iy < rows[1]; ++iy) {
                cc_pack_planes_here(src_n + iy * W, Cin, W, in_plane, src_cl + row_offset[iy]);
                std::fill(diff_cl + row_offset[iy], diff_cl + row_offset[iy] + W * Cin, 0.0f);
            }
            cc_contract_cl_here(net_->contract, src_cl, row_offset, h, p0, count, z);
            cc_pack_planes_here(diff_dst + n * Cout * pixels + p0, Cout, count, pixels, dy);
            // diff_bias from dY while in cache (a second pass over diff_dst read it from memory)
            if (avx512_)
                avx512::cc_add_rows(dy, count, Cout, p_bias);
            else
                avx2::cc_add_rows(dy, count, Cout, p_bias);
            if (avx512_)
                avx512::cc_outer_accumulate(dy, Cout, z, depth_z, count, p_last);
            else
                avx2::cc_outer_accumulate(dy, Cout, z, depth_z, count, p_last);
            // [dZ | dS] of kTimesPixels pixels at a time, then scattered
            for (i64 i0 = 0; i0 < count; i0 += kTimesPixels) {
                const i64 g = std::min(kTimesPixels, count - i0);
                const float* hi = h + i0 * K * h2p;
                float* dhi = dh + i0 * K * h2p;
                if (avx512_)
                    avx512::cc_rows_times(dy + i0 * Cout, g, Cout, net_->last.data(), depth, dz);
                else
                    avx2::cc_rows_times(dy + i0 * Cout, g, Cout, net_->last.data(), depth, dz);
                if (wide_)
                    avx512::cc_scatter_back(net_->contract, src_cl, diff_cl, row_offset, hi, dz, p0 + i0, g, n == 0,
                                            dhi, dn);
                else
                    avx2::cc_scatter_back(net_->contract, src_cl, diff_cl, row_offset, hi, dz, p0 + i0, g, n == 0, dhi,
                                          dn);
            }
            // stored where the band's is the row's first contribution (an even band's rows, an odd band's
            // that no even band reads: cc_rows_odd_bands_store), else added
            for (i64 iy = from; iy < done; ++iy) {
                if (band % 2 == 0 || (odd_store_[band][0] <= iy && iy < odd_store_[band][1]))
                    cc_store_planes_here(diff_cl + row_offset[iy], W, Cin, nullptr, diff_src_n + iy * W, in_plane);
                else
                    cc_add_planes_here(diff_cl + row_offset[iy], W, Cin, diff_src_n + iy * W, in_plane);
            }
        }
        packed = std::max(packed, rows[1]);
        added = std::max(added, done);
        if (wide_)
            avx512::cc_hidden_backward(hidden_back_, p0, count, h, dh, p_w2, p_w1, hb);
        else
            avx2::cc_hidden_backward(hidden_back_, p0, count, h, dh, p_w2, p_w1, hb);
    }
    meter.count_out(chunk_floats_ * 4 + scratch_i64 * 8);
}

}  // namespace convcheck::optimized::detail
