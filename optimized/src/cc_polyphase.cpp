// The CC polyphase method (cc_polyphase.hpp): plan time evaluates the p_h * p_w phases' weights and
// packs them; run pads the input once (channels last, 8 channel planes at a time: 64x64 planes are
// 16 KiB apart and more of them would share L1 sets), runs each phase's strided convolution into its
// interleaved outputs, and stores the channels-last result as NCHW (8 x 8 transposes).
#include "cc_polyphase.hpp"

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "cc_factored_kernels.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "conversions.hpp"
#include "index_range.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized::detail {

CcPolyphase::CcPolyphase(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                         const AxisWindows& width, const std::vector<float>& bias)
    : desc_(d), axes_{height, width} {
    const i64 Cin = d.in_channels, Cout = d.out_channels, kh = d.support[0], kw = d.support[1];
    for (int a = 0; a < 2; ++a) {
        const AxisWindows& w = axes_[a];
        phases_[a] = phase_count(w);
        i64 lo = 0, hi = w.in;
        for (i64 r = 0; r < phases_[a]; ++r) {
            const i64 count = (w.out - r + w.p - 1) / w.p;
            lo = std::min(lo, w.first[r]);
            hi = std::max(hi, w.first[r] + (count - 1) * w.q + w.support);
        }
        pad_lo_[a] = -lo;
        pad_hi_[a] = hi - w.in;
    }
    padded_src_ = ConvDescriptor{};
    padded_src_.rank = 2;
    padded_src_.batch = d.batch;
    padded_src_.in_channels = Cin;
    padded_src_.out_channels = Cout;
    for (int a = 0; a < 2; ++a) {
        padded_src_.input_size[a] = d.input_size[a];
        padded_src_.pads_begin[a] = pad_lo_[a];
        padded_src_.pads_end[a] = pad_hi_[a];
    }
    padded_src_.data_format = DataFormat::ncx;
    check_index_range(padded_src_);  // its padded input must stay within the 64-bit indices
    src_geometry_ = make_geometry(padded_src_, 1);

    phase_geometry_ = Geometry{};
    phase_geometry_.batch = d.batch;
    phase_geometry_.in_channels = phase_geometry_.in_per_group = Cin;
    phase_geometry_.out_channels = phase_geometry_.out_per_group = Cout;
    phase_geometry_.kernel[1] = kh;
    phase_geometry_.kernel[2] = kw;
    phase_geometry_.channel_stride = Cin;
    for (i64 y = 0; y < kh; ++y)
        for (i64 x = 0; x < kw; ++x) taps_.push_back((y * src_geometry_.padded[2] + x) * Cin);

    // every phase's weights at once: pairs for (rh, rw, y, x), evaluated in double, rounded once
    const i64 P = phases_[0] * phases_[1], K = kh * kw, C = Cin * Cout;
    std::vector<double> pairs, values(static_cast<std::size_t>(P * K * C));
    for (i64 rh = 0; rh < phases_[0]; ++rh)
        for (i64 rw = 0; rw < phases_[1]; ++rw)
            for (i64 y = 0; y < kh; ++y)
                for (i64 x = 0; x < kw; ++x) {
                    pairs.push_back(axes_[0].distance[rh * kh + y]);  // dy
                    pairs.push_back(axes_[1].distance[rw * kw + x]);  // dx
                }
    evaluate_kernel(kernel, pairs.data(), P * K, values.data());
    avx512_ = cpu_has_avx512();
    for (i64 ph = 0; ph < P; ++ph) {
        std::vector<float> canonical(static_cast<std::size_t>(Cout * Cin * K));  // [Cout][Cin][taps]
        for (i64 t = 0; t < K; ++t)
            for (i64 co = 0; co < Cout; ++co)
                for (i64 ci = 0; ci < Cin; ++ci)
                    canonical[(co * Cin + ci) * K + t] = static_cast<float>(values[((ph * K) + t) * C + co * Cin + ci]);
        phase_weights_.push_back(pack_blocked(canonical, bias, 1, Cin, Cout, K, avx512_));
    }
    for (const auto& w : phase_weights_) phase_problems_.push_back(w.problem(&phase_geometry_, taps_.data()));
}

void CcPolyphase::run(const float* src, float* dst, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const Geometry& sg = src_geometry_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, OH = d.output_size[0], OW = d.output_size[1];
    // one image at a time: its padded copy and channels-last output (about 0.8 MB at 64x64x32) stay in
    // L2 between the three steps, where the whole batch's would go out to L3
    const i64 xp_floats = sg.padded_pixels() * Cin, y_floats = OH * OW * Cout;
    // (pooled: the same floats are written on every call, and any other keeps the first call's zero fill)
    const i64 H = d.input_size[0], W = d.input_size[1];
    const i64 ocs_count = phase_problems_.front().oc_super_blocks;
    const i64 block = phase_problems_.front().vector_blocks * (avx512_ ? 16 : 8);
    const i64 scratch_elements = phase_problems_.front().scratch_elements();  // the phases share their geometry
    const AxisWindows &ah = axes_[0], &aw = axes_[1];
    // the three steps of image n, each over a range of its rows
    const auto pack_rows = [&](i64 n, float* xp, i64 begin, i64 end) {  // into the padded copy, channels last
        for (i64 iy = begin; iy < end; ++iy)                             // (its pads stay zero: never written)
            cc_pack_planes_here(src + (n * Cin * H + iy) * W, Cin, W, H * W,
                                xp + ((iy + pad_lo_[0]) * sg.padded[2] + pad_lo_[1]) * Cin);
    };
    // rows (oy, ocs): output row oy is phase oy % p_h, step oy / p_h of that phase
    const auto phase_rows = [&](const float* xp, float* y, i64* scratch, i64 begin, i64 end) {
        for (i64 row = begin; row < end; ++row) {
            const i64 ocs = row % ocs_count, oy = row / ocs_count;
            const i64 rh = oy % ah.p, step = oy / ah.p;
            const i64 in_row = ah.first[rh] + step * ah.q + pad_lo_[0];
            for (i64 rw = 0; rw < phases_[1]; ++rw) {
                const BlockedProblem& problem = phase_problems_[rh * phases_[1] + rw];
                BlockedSegment segment;
                segment.x = xp + (in_row * sg.padded[2] + aw.first[rw] + pad_lo_[1]) * Cin;
                segment.x_pixel_step = aw.q * Cin;
                segment.y = y + (oy * OW + rw) * Cout + ocs * block;
                segment.y_pixel_step = aw.p * Cout;
                segment.count = (OW - rw + aw.p - 1) / aw.p;
                segment.ocs = ocs;
                if (avx512_)
                    avx512::blocked_segment(problem, segment, scratch);
                else
                    avx2::blocked_segment(problem, segment, scratch);
            }
        }
    };
    const auto store_rows = [&](i64 n, const float* y, i64 begin, i64 end) {  // to NCHW, a row at a time
        for (i64 oy = begin; oy < end; ++oy)
            cc_store_planes_here(y + oy * OW * Cout, OW, Cout, nullptr, dst + (n * Cout * OH + oy) * OW, OH * OW);
    };
    // With at least two images per thread, whole images in parallel (each task its own copy and output):
    // three joins per image cost more than the imbalance of images (2/3 at batch 8, 2 threads: 1.23x the
    // convolution with the rows in parallel), as long as the threads' copies stay within the output's size
    // (the workspace rule). Either way each output is the same segment's sum.
    const i64 threads = tbb::this_task_arena::max_concurrency();
    if (threads > 1 && d.batch >= 2 * threads && threads * (xp_floats + y_floats) <= d.batch * y_floats) {
        parallel_for_joined(tbb::blocked_range<i64>(0, d.batch, 1), [&](const auto& r) {
            meter.count_in((xp_floats + y_floats) * 4);
            Workspace<float> xp = padded_inputs_.take(static_cast<std::size_t>(xp_floats));
            Workspace<float> y = outputs_.take(static_cast<std::size_t>(y_floats));
            Workspace<i64> scratch = kernel_scratch_.take(static_cast<std::size_t>(scratch_elements));
            for (i64 n = r.begin(); n < r.end(); ++n) {
                pack_rows(n, xp.data(), 0, H);
                phase_rows(xp.data(), y.data(), scratch.data(), 0, OH * ocs_count);
                store_rows(n, y.data(), 0, OH);
            }
            meter.count_out((xp_floats + y_floats) * 4);
        });
        return;
    }
    meter.count_in((xp_floats + y_floats) * 4);
    Workspace<float> xp = padded_inputs_.take(static_cast<std::size_t>(xp_floats));
    Workspace<float> y = outputs_.take(static_cast<std::size_t>(y_floats));
    for (i64 n = 0; n < d.batch; ++n) {
        parallel_for_joined(tbb::blocked_range<i64>(0, H), [&](const auto& r) { pack_rows(n, xp.data(), r.begin(), r.end()); });
        parallel_for_joined(tbb::blocked_range<i64>(0, OH * ocs_count), [&](const auto& r) {
            Workspace<i64> scratch = kernel_scratch_.take(static_cast<std::size_t>(scratch_elements));
            phase_rows(xp.data(), y.data(), scratch.data(), r.begin(), r.end());
        });
        parallel_for_joined(tbb::blocked_range<i64>(0, OH), [&](const auto& r) { store_rows(n, y.data(), r.begin(), r.end()); });
    }
    meter.count_out((xp_floats + y_floats) * 4);
}

}  // namespace convcheck::optimized::detail
