// The CC chunked method (cc_chunked.hpp). Every output is summed in a fixed order by one task, with
// chunks fixed by the descriptor: bitwise the same for any thread count.
//   Internal-Net: the GEMM's inner dimension in order from 0 (Z[cin][m] for m, cin, then S[cin]), then
//     the bias; Z and S each sum their taps in (y, x) order.
//   analytic: per tap in (y, x) order, w_tap times the channel sum (input channels in order), added
//     up from 0; the bias added last.
#include "cc_chunked.hpp"

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "cc_backward_bands.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized::detail {

void cc_hidden_features_here(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h) {
    if (cpu_has_avx512() && p.h2p % 16 == 0)
        avx512::cc_hidden_features(p, p0, count, a1, taps, h);
    else
        avx2::cc_hidden_features(p, p0, count, a1, taps, h);
}

void cc_contract_cl_here(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                         i64 count, float* z) {
    if (cpu_has_avx512())
        avx512::cc_contract_channels_last(p, ring, row_offset, h, p0, count, z);
    else
        avx2::cc_contract_channels_last(p, ring, row_offset, h, p0, count, z);
}

void cc_pack_planes_here(const float* src, i64 channels, i64 width, i64 plane, float* dst) {
    if (cpu_has_avx512())
        avx512::cc_pack_planes(src, channels, width, plane, dst);
    else
        avx2::cc_pack_planes(src, channels, width, plane, dst);
}

void cc_store_planes_here(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane) {
    if (cpu_has_avx512())
        avx512::cc_store_planes(y, count, channels, bias, dst, plane);
    else
        avx2::cc_store_planes(y, count, channels, bias, dst, plane);
}

void cc_add_planes_here(const float* y, i64 count, i64 channels, float* dst, i64 plane) {
    if (cpu_has_avx512())
        avx512::cc_add_planes(y, count, channels, dst, plane);
    else
        avx2::cc_add_planes(y, count, channels, dst, plane);
}

using i64 = std::int64_t;

namespace {

// Output pixels per chunk at most: the chunk's contraction (Cin*(h2p+1) floats per pixel) stays in L2
// while the GEMM reads it once per output-channel super block.
constexpr i64 kMaxChunkPixels = 120;

// The Internal-Net's chunks are run in spans of consecutive chunks, this many per thread at most.
constexpr i64 kSpansPerThread = 4;

}  // namespace

CcChunked::CcChunked(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                     const AxisWindows& width, const std::vector<float>& bias)
    : desc_(d), axes_{height, width}, bias_(bias) {
    const i64 Cout = d.out_channels, K = d.neighbours();
    if (d.kernel != CcKernel::internal_net) {
        for (int a = 0; a < 2; ++a)
            for (double t : axes_[a].distance) k_axis_[a].push_back(analytic_1d(d.kernel, d.kernel_parameter, t));
        chunk_pixels_ = d.output_size[1];
        chunk_bytes_ = (d.support[0] * d.input_size[1] + d.output_size[1]) * 4;
        return;
    }
    net_ = std::make_unique<CcNetFactors>(d, kernel, axes_[0], axes_[1]);
    const i64 h1 = net_->h1, h2 = net_->h2, h2p = net_->h2p, Cin = d.in_channels;
    // the GEMM: a 1x1 convolution of depth = Cin*(h2+1) channels to Cout, weights [Cout][depth] = [W3 | b3]
    // feature-major (W3 of (cout, cin) at m*Cin + cin, b3 at h2*Cin + cin), as cc_contract_channels_last writes Z, S
    depth_ = Cin * (h2 + 1);
    std::vector<float> canonical(static_cast<std::size_t>(Cout * depth_));
    for (i64 co = 0; co < Cout; ++co)
        for (i64 ci = 0; ci < Cin; ++ci) {
            for (i64 m = 0; m < h2; ++m) canonical[co * depth_ + m * Cin + ci] = net_->last[co * net_->depth + ci * h2p + m];
            canonical[co * depth_ + h2 * Cin + ci] = net_->last[co * net_->depth + Cin * h2p + ci];
        }
    avx512_ = cpu_has_avx512();
    // without the bias: the GEMM sums from 0 and the bias is added once, when the chunk is stored (a bias
    // first would be rounded with each of the depth_ terms, far more than the one rounding the CC
    // contract allows it when the products are small beside it)
    gemm_weights_ = pack_blocked(canonical, {}, 1, depth_, Cout, 1, avx512_);
    gemm_geometry_ = Geometry{};
    gemm_geometry_.batch = 1;
    gemm_geometry_.in_channels = gemm_geometry_.in_per_group = depth_;
    gemm_geometry_.out_channels = gemm_geometry_.out_per_group = Cout;
    gemm_geometry_.channel_stride = depth_;
    gemm_problem_ = gemm_weights_.problem(&gemm_geometry_, gemm_taps_.data());
    // a chunk: the hidden features (K*h2p), the contraction (depth) and the channels-last outputs (Cout)
    // of its pixels, the scratch of the first layer (kHiddenPairs*h1) and a ring of input rows per image
    const i64 per_pixel = (K * h2p + depth_ + Cout) * 4, pixels = d.output_size[0] * d.output_size[1];
    chunk_pixels_ = std::clamp<i64>(d.dst_elements() * 4 / 4 / per_pixel, 1, std::min(pixels, kMaxChunkPixels));
    // whole register tiles of the GEMM where the chunk holds one
    const int nb = gemm_weights_.vector_blocks;
    const i64 tile = avx512_ ? avx512::tile_width(nb) : avx2::tile_width(nb);
    if (chunk_pixels_ < pixels && chunk_pixels_ >= tile) chunk_pixels_ = chunk_pixels_ / tile * tile;
    // the ring holds the rows of any one chunk
    const i64 W = d.input_size[1], OW = d.output_size[1];
    for (i64 p0 = 0; p0 < pixels; p0 += chunk_pixels_) {
        const auto rows = cc_input_rows(axes_[0], p0 / OW, (std::min(p0 + chunk_pixels_, pixels) - 1) / OW);
        ring_rows_ = std::max(ring_rows_, rows[1] - rows[0]);
    }
    for (i64 iy = 0; iy < d.input_size[0]; ++iy) row_offset_.push_back(iy % ring_rows_ * W * Cin);
    const i64 rings = d.batch * ring_rows_;
    chunk_bytes_ = chunk_pixels_ * per_pixel + kHiddenPairs * h1 * 4 + rings * W * Cin * 4 +
                   (gemm_problem_.scratch_elements() + kHiddenPairs + rings) * 8;
}

void CcChunked::run(const float* src, float* dst, WorkspaceMeter& meter) const {
    if (desc_.kernel == CcKernel::internal_net)
        run_net(src, dst, meter);
    else
        run_analytic(src, dst, meter);
}

void CcChunked::run_net(const float* src, float* dst, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, K = d.neighbours();
    const i64 W = d.input_size[1], in_plane = d.input_size[0] * W, OW = d.output_size[1], pixels = d.output_size[0] * OW;
    const i64 chunks = (pixels + chunk_pixels_ - 1) / chunk_pixels_, P = chunk_pixels_;
    const i64 block = gemm_problem_.vector_blocks * (avx512_ ? 16 : 8);
    const i64 rings = d.batch * ring_rows_, ring_floats = ring_rows_ * W * Cin;
    const i64 scratch_i64 = gemm_problem_.scratch_elements() + kHiddenPairs + rings;
    const std::size_t floats = static_cast<std::size_t>((chunk_bytes_ - scratch_i64 * 8) / 4);
    // spans of consecutive chunks, a few per thread: a span packs each input row it reads once per image
    // (TBB's own split would give ranges of one or two chunks, each packing its rows again)
    const i64 spans = std::min<i64>(chunks, kSpansPerThread * tbb::this_task_arena::max_concurrency());
    parallel_for_joined(tbb::blocked_range<i64>(0, spans, 1), [&](const auto& span) {
        const tbb::blocked_range<i64> r(span.begin() * chunks / spans, span.end() * chunks / spans);
        meter.count_in(chunk_bytes_);
        Workspace<float> buffer = buffers_.take(floats);
        Workspace<i64> scratch = scratch_.take(static_cast<std::size_t>(scratch_i64));
        i64* taps = scratch.data() + gemm_problem_.scratch_elements();
        i64* ring_row = taps + kHiddenPairs;  // per image and slot: the packed row iy, or -1
        std::fill(ring_row, ring_row + rings, -1);
        float* h = buffer.data();
        float* z = h + P * K * net_->h2p;
        float* y = z + P * depth_;
        float* a1 = y + P * Cout;
        float* rings_start = a1 + kHiddenPairs * net_->h1;  // image n's ring at + n * ring_floats
        for (i64 chunk = r.begin(); chunk < r.end(); ++chunk) {
            const i64 p0 = chunk * P, count = std::min(P, pixels - p0);
            const auto rows = cc_input_rows(axes_[0], p0 / OW, (p0 + count - 1) / OW);
            cc_hidden_features_here(net_->hidden, p0, count, a1, taps, h);
            for (i64 n = 0; n < d.batch; ++n) {
                // a ring per image: with one shared by the images, each chunk packed its rows again for
                // every image
                float* ring = rings_start + n * ring_floats;
                for (i64 iy = rows[0]; iy < rows[1]; ++iy) {
                    const i64 slot = n * ring_rows_ + iy % ring_rows_;
                    if (ring_row[slot] == iy) continue;
                    cc_pack_planes_here(src + n * Cin * in_plane + iy * W, Cin, W, in_plane, ring + row_offset_[iy]);
                    ring_row[slot] = iy;
                }
                cc_contract_cl_here(net_->contract, ring, row_offset_.data(), h, p0, count, z);
                for (i64 ocs = 0; ocs < gemm_problem_.oc_super_blocks; ++ocs) {
                    BlockedSegment segment;
                    segment.x = z;
                    segment.x_pixel_step = depth_;
                    segment.y = y + ocs * block;
                    segment.y_pixel_step = Cout;
                    segment.count = count;
                    segment.ocs = ocs;
                    if (avx512_)
                        avx512::blocked_segment(gemm_problem_, segment, scratch.data());
                    else
                        avx2::blocked_segment(gemm_problem_, segment, scratch.data());
                }
                cc_store_planes_here(y, count, Cout, bias_.empty() ? nullptr : bias_.data(), dst + n * Cout * pixels + p0,
                                     pixels);
            }
        }
        meter.count_out(chunk_bytes_);
    });
}

void CcChunked::run_analytic(const float* src, float* dst, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, H = d.input_size[0], W = d.input_size[1];
    const i64 OH = d.output_size[0], OW = d.output_size[1], kh = d.support[0], kw = d.support[1];
    parallel_for_joined(tbb::blocked_range<i64>(0, d.batch * OH), [&](const auto& r) {
        meter.count_in(chunk_bytes_);
        std::vector<float> rows(static_cast<std::size_t>(kh * W)), sums(static_cast<std::size_t>(OW));
        for (i64 row = r.begin(); row < r.end(); ++row) {
            const i64 n = row / OH, oy = row % OH, fy = axes_[0].first[oy];
            // the channel sums of the input rows this output row reads (rows outside the input: none)
            for (i64 y = 0; y < kh; ++y) {
                if (fy + y < 0 || fy + y >= H) continue;
                float* sum = rows.data() + y * W;
                std::fill(sum, sum + W, 0.0f);
                for (i64 ci = 0; ci < Cin; ++ci) {
                    const float* in = src + ((n * Cin + ci) * H + fy + y) * W;
                    for (i64 x = 0; x < W; ++x) sum[x] += in[x];
                }
            }
            for (i64 ox = 0; ox < OW; ++ox) {
                const i64 fx = axes_[1].first[ox];
                float s = 0.0f;
                for (i64 y = 0; y < kh; ++y) {
                    if (fy + y < 0 || fy + y >= H) continue;
                    for (i64 x = 0; x < kw; ++x) {
                        if (fx + x < 0 || fx + x >= W) continue;
                        // the weight in double, rounded once to f32 (as the other method evaluates it)
                        const float w = static_cast<float>(k_axis_[0][oy * kh + y] * k_axis_[1][ox * kw + x]);
                        s += w * rows[y * W + fx + x];
                    }
                }
                sums[ox] = s;
            }
            for (i64 co = 0; co < Cout; ++co) {  // every output channel's row: the same sums, its bias
                float* out = dst + ((n * Cout + co) * OH + oy) * OW;
                if (bias_.empty())
                    std::copy(sums.begin(), sums.end(), out);
                else
                    for (i64 ox = 0; ox < OW; ++ox) out[ox] = bias_[co] + sums[ox];
            }
        }
        meter.count_out(chunk_bytes_);
    });
}

}  // namespace convcheck::optimized::detail
