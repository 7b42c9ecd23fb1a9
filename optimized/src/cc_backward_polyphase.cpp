// The CC backward's polyphase method (cc_backward_polyphase.hpp). The orders, fixed by the descriptor:
//   dW_phase: the images in groups (half the batch, at most 2; contiguous), each group's partial summed
//     by one task per phase (whatever the thread count): per image, chunks of at most 240 of the phase's
//     pixels (row-major over the whole output), f32 sums over the chunk's pixels from 0 (FMA), added to
//     the group's double partial; images and chunks in order; the groups' partials added in order; then
//     the Internal-Net's reverse in double over the pairs (phase, tap) in order (cc_backward_reverse.inl).
//   diff_bias: per image and output channel cc_sum32 over its pixels in the plan's order, then the images
//     in order (double).
//   dF: sums over Cout in order (cc_patch_times_scatter). diff_src: per image, the band's input gradient
//     (from 0) sums the phases in order, each phase's chunks in order, within a chunk the taps in (y, x)
//     order, then the pixels in order; then stored to diff_src (even bands: first; odd bands' rows no even band
//     reads) or added (the odd bands' other rows, after).
#include "cc_backward_polyphase.hpp"

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "cc_backward_bands.hpp"
#include "cc_backward_kernels.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

namespace {
constexpr i64 kChunkPixels = 240;  // pixels of one phase at once (the patches are read in place)
// dW_phase: one partial per group of images (half the batch, at most this many), fixed by the descriptor
constexpr i64 kMaxImageGroups = 2;
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
    // a band's input rows channels last, and their gradient
    for (std::size_t b = 0; b + 1 < band_rows_.size(); ++b) {
        const std::array<i64, 2> rows = cc_input_rows(axes_[0], band_rows_[b], band_rows_[b + 1] - 1);
        band_input_rows_ = std::max(band_input_rows_, rows[1] - rows[0]);
    }
    band_floats_ = band_input_rows_ * d.input_size[1] * Cin;
    zero_rows_ = cc_rows_no_band_stores(axes_[0], band_rows_);
    odd_store_ = cc_rows_odd_bands_store(axes_[0], band_rows_);
    partial_size_ = P * Cout * KC;
    // every phase's pixels in row-major order, phase after phase (both passes' chunks run over them,
    // diff_dst gathered in this order once per image); the range of each band's within each phase's
    const i64 OW = d.output_size[1], B = static_cast<i64>(band_rows_.size()) - 1;
    std::vector<i64> first;  // the pixels' first neighbours (y, x)
    band_phase_.assign(static_cast<std::size_t>(2 * B * P), 0);
    for (i64 rh = 0; rh < phases_[0]; ++rh)
        for (i64 rw = 0; rw < phases_[1]; ++rw) {
            const i64 ph = rh * phases_[1] + rw;
            phase_start_.push_back(static_cast<i64>(order_.size()));
            for (i64 b = 0; b < B; ++b) {
                band_phase_[2 * (b * P + ph)] = static_cast<i64>(order_.size());
                for (i64 oy = band_rows_[b] + ((rh - band_rows_[b] % axes_[0].p) % axes_[0].p + axes_[0].p) % axes_[0].p;
                     oy < band_rows_[b + 1]; oy += axes_[0].p)
                    for (i64 ox = rw; ox < OW; ox += axes_[1].p) {
                        order_.push_back(oy * OW + ox);
                        first.push_back(axes_[0].first[oy]);
                        first.push_back(axes_[1].first[ox]);
                        band_of_.push_back(b);
                    }
                band_phase_[2 * (b * P + ph) + 1] = static_cast<i64>(order_.size());
            }
        }
    phase_start_.push_back(static_cast<i64>(order_.size()));
    // per tap and pixel [K][pixels]: the offset into the packed image of the dW pass (the row of zeros,
    // offset 0, outside the input) and into its band's input rows' gradient (-1 outside)
    const i64 H = d.input_size[0], W = d.input_size[1], total = static_cast<i64>(order_.size());
    src_at_.resize(static_cast<std::size_t>(K * total));
    diff_at_.resize(static_cast<std::size_t>(K * total));
    for (i64 o = 0; o < total; ++o) {
        const i64 b = band_of_[o];
        const i64 row0 = cc_input_rows(axes_[0], band_rows_[b], band_rows_[b + 1] - 1)[0];
        for (i64 y = 0; y < kh; ++y)
            for (i64 x = 0; x < kw; ++x) {
                const i64 iy = first[2 * o] + y, ix = first[2 * o + 1] + x, t = y * kw + x;
                const bool inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
                src_at_[t * total + o] = inside ? (iy * W + ix + 1) * Cin : 0;
                diff_at_[t * total + o] = inside ? ((iy - row0) * W + ix) * Cin : -1;
            }
    }
}

void CcBackwardPolyphase::run(const float* src, const float* diff_dst, float* diff_src, float* diff_theta,
                              float* diff_bias, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, K = d.neighbours();
    const i64 H = d.input_size[0], W = d.input_size[1], in_plane = H * W, pixels = d.output_size[0] * d.output_size[1];
    const i64 total = static_cast<i64>(order_.size()), phases = phases_[0] * phases_[1];
    const i64 bands = static_cast<i64>(band_rows_.size()) - 1;
    // dW_phase, every phase, one partial per group of images (each zeroed by its tasks on the group's first
    // image), the groups added in order at the end
    const i64 groups = std::min(kMaxImageGroups, std::max<i64>(d.batch / 2, 1));
    const auto group_begin = [&](i64 g) { return (g * d.batch + groups - 1) / groups; };  // image n: g = n G / N
    meter.count_in(groups * partial_size_ * 8);
    Workspace<double> partials = partials_.take(static_cast<std::size_t>(groups * partial_size_));
    double* all = partials.data();
    // diff_bias: per image and output channel the sum of its gathered diff_dst (cc_sum32, read while in
    // cache: a second pass over diff_dst read it from L3), then the images in order
    const i64 bias_size = diff_bias ? d.batch * Cout : 0;
    meter.count_in(bias_size * 8);
    Workspace<double> bias = bias_.take(static_cast<std::size_t>(bias_size));
    // per image: Cin zeros, then the image channels last; its diff_dst in the plan's order
    const i64 image_floats = Cin + in_plane * Cin + Cout * total;
    // image n's steps in three sets of tasks, each task independent of the others of its set: (1) its
    // diff_dst gathered (8 channels a task), its input packed for the dW pass (4 tasks), its diff_src
    // zeroed where no band stores (8 planes a task); (2) dF of the even bands, beside the first half of the phases' dW_phase (a
    // task per phase, whatever the thread count); (3) dF of the odd bands beside the other phases'. run(k,
    // f): f(i) for every i in [0, k), as tasks in parallel or one after another.
    const i64 gathers = (Cout + 7) / 8, packs = 4, zeros = zero_rows_.empty() ? 0 : (Cin + 7) / 8;
    const i64 even = (bands + 1) / 2;
    const auto image = [&](i64 n, float* src_cl, const auto& run) {
        const float* src_n = src + n * Cin * in_plane;
        const float* diff_dst_n = diff_dst + n * Cout * pixels;
        const i64 g = n * groups / d.batch;
        const bool first = n == group_begin(g);
        float* dyp = src_cl + Cin + in_plane * Cin;  // [Cout][total]
        run(gathers + packs + zeros, [&](i64 i) {
            if (i < gathers) {
                for (i64 co = 8 * i; co < std::min(Cout, 8 * i + 8); ++co) {
                    for (i64 o = 0; o < total; ++o) dyp[co * total + o] = diff_dst_n[co * pixels + order_[o]];
                    if (diff_bias)
                        bias.data()[n * Cout + co] = avx512_ ? avx512::cc_sum32(dyp + co * total, total)
                                                              : avx2::cc_sum32(dyp + co * total, total);
                }
            } else if (i < gathers + packs) {
                const i64 y0 = (i - gathers) * H / packs, y1 = (i - gathers + 1) * H / packs;
                cc_pack_planes_here(src_n + y0 * W, Cin, (y1 - y0) * W, in_plane, src_cl + Cin + y0 * W * Cin);
            } else {
                const i64 c0 = 8 * (i - gathers - packs), c1 = std::min(Cin, c0 + 8);
                for (i64 c = c0; c < c1; ++c)
                    for (const auto& [lo, hi] : zero_rows_)
                        std::fill(diff_src + (n * Cin + c) * in_plane + lo * W, diff_src + (n * Cin + c) * in_plane + hi * W, 0.0f);
            }
        });
        // dF scattered to diff_src: the even bands, then the odd ones (same-parity bands share no input row)
        for (i64 parity = 0; parity < 2; ++parity) {
            const i64 ph0 = parity * (phases / 2), ph1 = parity == 0 ? phases / 2 : phases;
            const i64 band_tasks = parity == 0 ? even : bands - even;
            run(band_tasks + ph1 - ph0, [&](i64 i) {
                if (i < band_tasks)
                    run_band(2 * i + parity, n, dyp, diff_src, meter);
                else
                    phase_weights_gradient(ph0 + i - band_tasks, first, src_cl, dyp, all + g * partial_size_);
            });
        }
    };
    const auto take_image = [&] {
        meter.count_in(image_floats * 4);
        Workspace<float> buffer = buffers_.take(static_cast<std::size_t>(image_floats));
        std::fill(buffer.data(), buffer.data() + Cin, 0.0f);
        return buffer;
    };
    // With at least two images per thread and a group of images per thread, whole groups in parallel,
    // each image's steps in one task (as the forward, cc_polyphase.cpp: 2/3 batch 8, 2 threads, the joins
    // per image cost more than the imbalance); either way the same sums in the same order.
    const i64 threads = tbb::this_task_arena::max_concurrency();
    if (threads > 1 && d.batch >= 2 * threads && threads <= groups) {
        const auto serial = [](i64 k, const auto& f) {
            for (i64 i = 0; i < k; ++i) f(i);
        };
        parallel_for_joined(tbb::blocked_range<i64>(0, groups, 1), [&](const tbb::blocked_range<i64>& r) {
            Workspace<float> buffer = take_image();
            for (i64 n = group_begin(r.begin()); n < group_begin(r.end()); ++n) image(n, buffer.data(), serial);
            meter.count_out(image_floats * 4);
        });
    } else {
        Workspace<float> buffer = take_image();
        const auto parallel = [](i64 k, const auto& f) {
            parallel_for_joined(tbb::blocked_range<i64>(0, k, 1), [&](const tbb::blocked_range<i64>& r) {
                for (i64 i = r.begin(); i < r.end(); ++i) f(i);
            });
        };
        for (i64 n = 0; n < d.batch; ++n) image(n, buffer.data(), parallel);
        meter.count_out(image_floats * 4);
    }
    // the groups' partials added in order, into the first
    if (groups > 1)
        parallel_for_joined(tbb::blocked_range<i64>(0, partial_size_), [&](const tbb::blocked_range<i64>& r) {
            add_band_partials(all + r.begin(), groups, partial_size_, r.end() - r.begin());
        });
    // the Internal-Net's reverse over the pairs (phase, tap), g read in place from the partial: g of pair
    // (ph, t), channel cout * Cin + cin = dW_phase[cout][t * Cin + cin]; the pairs in tasks of 8 (the
    // kernel's group on AVX-512, two on AVX2), then each output channel's dW3 rows a task, and the first
    // layers' one more
    const i64 pairs = phases_[0] * phases_[1] * K;
    // the reverse's scratch from a pool: fresh vectors this size page-faulted on every call
    const i64 reverse_size = cc_net_reverse_scratch(kernel_, pairs);
    meter.count_in(reverse_size * 8);
    Workspace<double> reverse = reverse_.take(static_cast<std::size_t>(reverse_size));
    double* scratch = reverse.data();
    const CcNetReverse net{&kernel_, pairs_.data(), pairs, K, all};
    parallel_for_joined(tbb::blocked_range<i64>(0, (pairs + 7) / 8), [&](const tbb::blocked_range<i64>& r) {
        const i64 k0 = 8 * r.begin(), k1 = std::min(pairs, 8 * r.end());
        avx512_ ? avx512::cc_net_reverse_pairs(net, k0, k1, scratch) : avx2::cc_net_reverse_pairs(net, k0, k1, scratch);
    });
    parallel_for_joined(tbb::blocked_range<i64>(0, Cout + 1), [&](const tbb::blocked_range<i64>& r) {
        const i64 co1 = std::min(r.end(), Cout);
        if (r.begin() < co1) {
            avx512_ ? avx512::cc_net_reverse_last(net, r.begin(), co1, scratch, diff_theta)
                    : avx2::cc_net_reverse_last(net, r.begin(), co1, scratch, diff_theta);
        }
        if (r.end() > Cout) {
            avx512_ ? avx512::cc_net_reverse_first(net, scratch, diff_theta)
                    : avx2::cc_net_reverse_first(net, scratch, diff_theta);
        }
    });
    if (diff_bias)
        for (i64 co = 0; co < Cout; ++co) {
            double sum = 0.0;
            for (i64 n = 0; n < d.batch; ++n) sum += bias.data()[n * Cout + co];
            diff_bias[co] = static_cast<float>(sum);
        }
    meter.count_out(groups * partial_size_ * 8 + reverse_size * 8 + bias_size * 8);
}

void CcBackwardPolyphase::phase_weights_gradient(i64 ph, bool first, const float* src_cl, const float* dyp,
                                                 double* partial) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, K = d.neighbours(), total = static_cast<i64>(order_.size());
    if (first) std::fill(partial + ph * Cout * K * Cin, partial + (ph + 1) * Cout * K * Cin, 0.0);
    for (i64 c0 = phase_start_[ph]; c0 < phase_start_[ph + 1]; c0 += kChunkPixels) {
        const i64 count = std::min(kChunkPixels, phase_start_[ph + 1] - c0);
        const CcPatchTaps taps{count, K, Cin, Cout, src_at_.data() + c0, nullptr, total};
        double* to = partial + ph * Cout * K * Cin;
        if (avx512_)
            avx512::cc_patch_outer_accumulate(taps, dyp + c0, src_cl, to);
        else
            avx2::cc_patch_outer_accumulate(taps, dyp + c0, src_cl, to);
    }
}

void CcBackwardPolyphase::run_band(i64 band, i64 n, const float* dyp, float* diff_src, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, K = d.neighbours(), P = phases_[0] * phases_[1];
    const i64 W = d.input_size[1], in_plane = d.input_size[0] * W, total = static_cast<i64>(order_.size());
    meter.count_in(band_floats_ * 4);
    Workspace<float> buffer = buffers_.take(static_cast<std::size_t>(band_floats_));
    float* diff_cl = buffer.data();  // the band's input rows' gradient, channels last
    const std::array<i64, 2> rows = cc_input_rows(axes_[0], band_rows_[band], band_rows_[band + 1] - 1);
    std::fill(diff_cl, diff_cl + (rows[1] - rows[0]) * W * Cin, 0.0f);
    // per phase, its pixels of the band in row-major order, in chunks of at most kChunkPixels
    for (i64 ph = 0; ph < P; ++ph) {
        const i64 end = band_phase_[2 * (band * P + ph) + 1];
        for (i64 c0 = band_phase_[2 * (band * P + ph)]; c0 < end; c0 += kChunkPixels) {
            const CcPatchTaps taps{std::min(kChunkPixels, end - c0), K, Cin, Cout, nullptr, diff_at_.data() + c0, total};
            if (avx512_)
                avx512::cc_patch_times_scatter(taps, dyp + c0, weights_[ph].data(), diff_cl);
            else
                avx2::cc_patch_times_scatter(taps, dyp + c0, weights_[ph].data(), diff_cl);
        }
    }
    // rows [r0, r1) stored (their first contribution: an even band's, or an odd band's rows no even band
    // reads, cc_rows_odd_bands_store) or added
    const auto out = [&](i64 r0, i64 r1, bool store) {
        if (r0 >= r1) return;
        const float* from = diff_cl + (r0 - rows[0]) * W * Cin;
        float* to = diff_src + n * Cin * in_plane + r0 * W;
        if (store)
            cc_store_planes_here(from, (r1 - r0) * W, Cin, nullptr, to, in_plane);
        else
            cc_add_planes_here(from, (r1 - r0) * W, Cin, to, in_plane);
    };
    if (band % 2 == 0) {
        out(rows[0], rows[1], true);
    } else {
        const auto [lo, hi] = odd_store_[static_cast<std::size_t>(band)];  // {0, 0}: none
        out(rows[0], lo < hi ? lo : rows[1], false);
        out(lo, hi, true);
        out(lo < hi ? hi : rows[1], rows[1], false);
    }
    meter.count_out(band_floats_ * 4);
}

}  // namespace convcheck::optimized::detail
