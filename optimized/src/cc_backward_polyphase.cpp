// The CC backward's polyphase method (cc_backward_polyphase.hpp). The orders, fixed by the descriptor:
//   dW_phase: one task per phase (whatever the thread count): per image, chunks of at most 240 of the
//     phase's pixels (row-major over the whole output), f32 sums over the chunk's pixels from 0 (FMA),
//     added to the phase's double partial; images and chunks in order; then the Internal-Net's reverse in
//     double over the pairs (phase, tap) in order (cc_backward_reverse.inl).
//   dF: sums over Cout in order (cc_patch_times_scatter). diff_src: per image, the band's input gradient
//     (from 0) sums the phases in order, each phase's chunks in order, within a chunk the taps in (y, x)
//     order, then the pixels in order; then it is added to diff_src; even bands first, then odd ones.
#include "cc_backward_polyphase.hpp"

#include <tbb/blocked_range.h>

#include <algorithm>

#include "cc_backward_bands.hpp"
#include "cc_backward_kernels.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

namespace {
constexpr i64 kChunkPixels = 240;  // pixels of one phase at once (the patches are read in place)
}  // namespace

CcBackwardPolyphase::CcBackwardPolyphase(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                                         const AxisWindows& width)
    : desc_(d), axes_{height, width}, kernel_(kernel), avx512_(cpu_has_avx512()) {
    const i64 Cin = d.in_channels, Cout = d.out_channels, kh = d.support[0], kw = d.support[1], K = kh * kw;
    phases_[0] = phase_count(axes_[0]);
    phases_[1] = phase_count(axes_[1]);
    const i64 P = phases_[0] * phases_[1], C = Cin * Cout, KC = K * Cin;
    for (i64 rh = 0; rh < phases_[0]; ++rh)
        for (i64 rw = 0; rw < phases_[1]; ++rw)
            for (i64 y = 0; y < kh; ++y)
                for (i64 x = 0; x < kw; ++x) {
                    pairs_.push_back(axes_[0].distance[rh * kh + y]);
                    pairs_.push_back(axes_[1].distance[rw * kw + x]);
                }
    std::vector<double> values(static_cast<std::size_t>(P * K * C));
    evaluate_internal_net(kernel, pairs_.data(), P * K, values.data());
    for (i64 ph = 0; ph < P; ++ph) {
        std::vector<float> w(static_cast<std::size_t>(Cout * KC));  // [Cout][K * Cin], rounded once
        for (i64 t = 0; t < K; ++t)
            for (i64 co = 0; co < Cout; ++co)
                for (i64 ci = 0; ci < Cin; ++ci)
                    w[co * KC + t * Cin + ci] = static_cast<float>(values[(ph * K + t) * C + co * Cin + ci]);
        weights_.push_back(std::move(w));
    }
    // 2 per parity: each band's partial holds every phase's weights' gradient (p_h p_w K Cin Cout doubles)
    band_rows_ = cc_backward_bands(axes_[0], 4);
    // a chunk: dY [Cout][count]; a row of Cin zeros, then the band's input rows channels last, and
    // their gradient
    for (std::size_t b = 0; b + 1 < band_rows_.size(); ++b) {
        const std::array<i64, 2> rows = cc_input_rows(axes_[0], band_rows_[b], band_rows_[b + 1] - 1);
        band_input_rows_ = std::max(band_input_rows_, rows[1] - rows[0]);
    }
    band_floats_ = kChunkPixels * Cout + band_input_rows_ * d.input_size[1] * Cin;
    partial_size_ = P * Cout * KC;
    // every phase's pixels in row-major order (the dW pass's chunks run over them)
    const i64 OH = d.output_size[0], OW = d.output_size[1];
    for (i64 rh = 0; rh < phases_[0]; ++rh)
        for (i64 rw = 0; rw < phases_[1]; ++rw) {
            phase_start_.push_back(static_cast<i64>(order_.size()));
            for (i64 oy = rh; oy < OH; oy += axes_[0].p)
                for (i64 ox = rw; ox < OW; ox += axes_[1].p) {
                    order_.push_back(oy * OW + ox);
                    order_first_.push_back(axes_[0].first[oy]);
                    order_first_.push_back(axes_[1].first[ox]);
                }
        }
    phase_start_.push_back(static_cast<i64>(order_.size()));
    // the dW pass's offsets into the packed image: chunk [c0, c0 + count) of order_ at src_at_[K * c0 ..],
    // [K][count] (the row of zeros, offset 0, outside the input)
    const i64 H = d.input_size[0], W = d.input_size[1];
    src_at_.resize(order_.size() * static_cast<std::size_t>(K));
    for (i64 ph = 0; ph < P; ++ph)
        for (i64 c0 = phase_start_[ph]; c0 < phase_start_[ph + 1]; c0 += kChunkPixels) {
            const i64 count = std::min(kChunkPixels, phase_start_[ph + 1] - c0);
            for (i64 y = 0; y < kh; ++y)
                for (i64 x = 0; x < kw; ++x)
                    for (i64 i = 0; i < count; ++i) {
                        const i64 iy = order_first_[2 * (c0 + i)] + y, ix = order_first_[2 * (c0 + i) + 1] + x;
                        src_at_[K * c0 + (y * kw + x) * count + i] =
                            iy >= 0 && iy < H && ix >= 0 && ix < W ? (iy * W + ix + 1) * Cin : 0;
                    }
        }
}

void CcBackwardPolyphase::run(const float* src, const float* diff_dst, float* diff_src, float* diff_theta,
                              WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 planes = d.batch * d.in_channels, plane = d.input_size[0] * d.input_size[1];
    // dF, scattered to diff_src: the bands (no parameter partials: size 0)
    run_bands(band_rows_, 0, diff_src, planes, plane, partials_, meter,
              [&](i64 band, double*) { run_band(band, diff_dst, diff_src, meter); });
    // dW_phase: each phase's sums by one task, whatever the thread count
    const i64 Cin = d.in_channels, K = d.neighbours();
    meter.count_in(partial_size_ * 8);
    Workspace<double> partials = partials_.take(static_cast<std::size_t>(partial_size_));
    double* all = partials.data();
    std::fill(all, all + partial_size_, 0.0);
    const i64 H = d.input_size[0], W = d.input_size[1], in_plane = H * W;
    const i64 image_floats = Cin + in_plane * Cin;
    meter.count_in(image_floats * 4);
    Workspace<float> image = buffers_.take(static_cast<std::size_t>(image_floats));
    float* src_cl = image.data();  // Cin zeros, then the image channels last
    std::fill(src_cl, src_cl + Cin, 0.0f);
    for (i64 n = 0; n < d.batch; ++n) {
        const float* src_n = src + n * Cin * in_plane;
        parallel_for_joined(tbb::blocked_range<i64>(0, H, (H + 3) / 4), [&](const tbb::blocked_range<i64>& r) {
            avx2::cc_pack_planes(src_n + r.begin() * W, Cin, (r.end() - r.begin()) * W, in_plane,
                                 src_cl + Cin + r.begin() * W * Cin);
        });
        const i64 phases = phases_[0] * phases_[1];
        parallel_for_joined(tbb::blocked_range<i64>(0, phases, 1), [&](const tbb::blocked_range<i64>& r) {
            for (i64 ph = r.begin(); ph < r.end(); ++ph) phase_weights_gradient(ph, n, src_cl, diff_dst, all, meter);
        });
    }
    meter.count_out(image_floats * 4);
    // the Internal-Net's reverse over the pairs (phase, tap), g read in place from the partial: g of pair
    // (ph, t), channel cout * Cin + cin = dW_phase[cout][t * Cin + cin]
    const i64 pairs = phases_[0] * phases_[1] * K, theta_size = d.theta_elements();
    // theta in double and the reverse's scratch from a pool: fresh vectors this size page-faulted on every call
    const i64 reverse_size = theta_size + cc_net_reverse_scratch(kernel_, pairs);
    meter.count_in(reverse_size * 8);
    Workspace<double> reverse = reverse_.take(static_cast<std::size_t>(reverse_size));
    double* theta = reverse.data();
    std::fill(theta, theta + theta_size, 0.0);
    const CcNetReverse net{&kernel_, pairs_.data(), pairs, K, all};
    if (avx512_)
        avx512::cc_net_reverse(net, theta, theta + theta_size);
    else
        avx2::cc_net_reverse(net, theta, theta + theta_size);
    for (i64 i = 0; i < theta_size; ++i) diff_theta[i] = static_cast<float>(theta[i]);
    meter.count_out(partial_size_ * 8 + reverse_size * 8);
}

void CcBackwardPolyphase::phase_weights_gradient(i64 ph, i64 n, const float* src_cl, const float* diff_dst,
                                                 double* partial, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, K = d.neighbours();
    const i64 pixels = d.output_size[0] * d.output_size[1], floats = kChunkPixels * Cout;
    meter.count_in(floats * 4);
    Workspace<float> buffer = buffers_.take(static_cast<std::size_t>(floats));
    float* dyt = buffer.data();
    const float* diff_dst_n = diff_dst + n * Cout * pixels;
    for (i64 c0 = phase_start_[ph]; c0 < phase_start_[ph + 1]; c0 += kChunkPixels) {
        const i64 count = std::min(kChunkPixels, phase_start_[ph + 1] - c0);
        const i64* at = order_.data() + c0;
        for (i64 co = 0; co < Cout; ++co)
            for (i64 i = 0; i < count; ++i) dyt[co * count + i] = diff_dst_n[co * pixels + at[i]];
        const CcPatchTaps taps{count, K, Cin, Cout, src_at_.data() + K * c0, nullptr};
        double* to = partial + ph * Cout * K * Cin;
        if (avx512_)
            avx512::cc_patch_outer_accumulate(taps, dyt, src_cl, to);
        else
            avx2::cc_patch_outer_accumulate(taps, dyt, src_cl, to);
    }
    meter.count_out(floats * 4);
}

void CcBackwardPolyphase::run_band(i64 band, const float* diff_dst, float* diff_src, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, kh = d.support[0], kw = d.support[1], K = kh * kw;
    const i64 H = d.input_size[0], W = d.input_size[1], in_plane = H * W, OW = d.output_size[1];
    const i64 pixels = d.output_size[0] * OW;
    const AxisWindows &ah = axes_[0], &aw = axes_[1];
    const i64 scratch_i64 = (3 + K) * kChunkPixels;
    meter.count_in(band_floats_ * 4 + scratch_i64 * 8);
    Workspace<float> buffer = buffers_.take(static_cast<std::size_t>(band_floats_));
    Workspace<i64> scratch = scratch_.take(static_cast<std::size_t>(scratch_i64));
    i64* at = scratch.data();  // a chunk's pixels, their first neighbours, and their taps' offsets
    i64* fy = at + kChunkPixels;
    i64* fx = fy + kChunkPixels;
    i64* diff_at = fx + kChunkPixels;
    float* dyt = buffer.data();
    float* diff_cl = dyt + kChunkPixels * Cout;  // the band's input rows' gradient, channels last
    const i64 oy0 = band_rows_[band], oy1 = band_rows_[band + 1];
    const std::array<i64, 2> rows = cc_input_rows(ah, oy0, oy1 - 1);
    // one chunk of pixels of phase ph: dY, the taps' offsets, dF at the neighbours
    const auto chunk = [&](const float* diff_dst_n, i64 ph, i64 count) {
        for (i64 co = 0; co < Cout; ++co)
            for (i64 i = 0; i < count; ++i) dyt[co * count + i] = diff_dst_n[co * pixels + at[i]];
        for (i64 y = 0; y < kh; ++y)
            for (i64 x = 0; x < kw; ++x) {
                const i64 t = y * kw + x;
                for (i64 i = 0; i < count; ++i) {
                    const i64 iy = fy[i] + y, ix = fx[i] + x;
                    const i64 pos = ((iy - rows[0]) * W + ix) * Cin;
                    diff_at[t * count + i] = iy >= 0 && iy < H && ix >= 0 && ix < W ? pos : -1;
                }
            }
        const CcPatchTaps taps{count, K, Cin, Cout, nullptr, diff_at};
        if (avx512_)
            avx512::cc_patch_times_scatter(taps, dyt, weights_[ph].data(), diff_cl);
        else
            avx2::cc_patch_times_scatter(taps, dyt, weights_[ph].data(), diff_cl);
    };
    for (i64 n = 0; n < d.batch; ++n) {
        const float* diff_dst_n = diff_dst + n * Cout * pixels;
        std::fill(diff_cl, diff_cl + (rows[1] - rows[0]) * W * Cin, 0.0f);
        // per phase, its pixels of the band in row-major order, in chunks of at most kChunkPixels
        for (i64 rh = 0; rh < phases_[0]; ++rh)
            for (i64 rw = 0; rw < phases_[1]; ++rw) {
                i64 count = 0;
                for (i64 oy = oy0 + ((rh - oy0 % ah.p) % ah.p + ah.p) % ah.p; oy < oy1; oy += ah.p)
                    for (i64 ox = rw; ox < OW; ox += aw.p) {
                        at[count] = oy * OW + ox;
                        fy[count] = ah.first[oy];
                        fx[count] = aw.first[ox];
                        if (++count == kChunkPixels) {
                            chunk(diff_dst_n, rh * phases_[1] + rw, count);
                            count = 0;
                        }
                    }
                if (count > 0) chunk(diff_dst_n, rh * phases_[1] + rw, count);
            }
        avx2::cc_add_planes(diff_cl, (rows[1] - rows[0]) * W, Cin, diff_src + n * Cin * in_plane + rows[0] * W, in_plane);
    }
    meter.count_out(band_floats_ * 4 + scratch_i64 * 8);
}

}  // namespace convcheck::optimized::detail
