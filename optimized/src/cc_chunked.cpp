// The CC chunked method (cc_chunked.hpp): per chunk of output pixels, the distance pairs, the kernel
// over all of them at once, and the outputs, every one summed in a fixed order (bias, neighbours
// (kh, kw), input channels) by one task.
#include "cc_chunked.hpp"

#include <tbb/blocked_range.h>

#include <algorithm>

#include "parallel_join.hpp"

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

CcChunked::CcChunked(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                     const AxisWindows& width, const std::vector<float>& bias)
    : desc_(d), kernel_(kernel), axes_{height, width}, bias_(bias) {
    const i64 K = d.neighbours(), C = d.in_channels * d.out_channels;
    // per output pixel: pairs (2K doubles), kernel values (K*C doubles) and scratch, f32 weights (K*C)
    const i64 per_pixel = K * (2 + C) * 8 + K * C * 4 +
                          (d.kernel == CcKernel::internal_net ? internal_net_scratch_doubles(kernel_, K) * 8 : 0);
    const i64 output_bytes = d.dst_elements() * 4;
    chunk_pixels_ = std::clamp<i64>(output_bytes / 4 / per_pixel, 1, d.output_size[0] * d.output_size[1]);
    chunk_bytes_ = chunk_pixels_ * per_pixel + d.out_channels * 4;
}

void CcChunked::run(const float* src, float* dst, WorkspaceMeter& meter) const {
    const CcDescriptor& d = desc_;
    const i64 Cin = d.in_channels, Cout = d.out_channels, C = Cin * Cout;
    const i64 H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    const i64 kh = d.support[0], kw = d.support[1], K = kh * kw, pixels = OH * OW;
    const i64 chunks = (pixels + chunk_pixels_ - 1) / chunk_pixels_;
    parallel_for_joined(tbb::blocked_range<i64>(0, chunks, 1), [&](const auto& r) {
        for (i64 chunk = r.begin(); chunk < r.end(); ++chunk) {
            const i64 p0 = chunk * chunk_pixels_, count = std::min(chunk_pixels_, pixels - p0);
            meter.count_in(chunk_bytes_);
            {
                std::vector<double> pairs(static_cast<std::size_t>(2 * count * K));
                std::vector<double> values(static_cast<std::size_t>(count * K * C));
                std::vector<float> weights(static_cast<std::size_t>(count * K * C));  // [pixel][k][cin][cout]
                std::vector<float> acc(static_cast<std::size_t>(Cout));
                for (i64 i = 0; i < count; ++i) {
                    const i64 oy = (p0 + i) / OW, ox = (p0 + i) % OW;
                    for (i64 y = 0; y < kh; ++y)
                        for (i64 x = 0; x < kw; ++x) {
                            const i64 j = (i * K + y * kw + x) * 2;
                            pairs[j] = axes_[0].distance[oy * kh + y];
                            pairs[j + 1] = axes_[1].distance[ox * kw + x];
                        }
                }
                evaluate_kernel(kernel_, pairs.data(), count * K, values.data());
                for (i64 j = 0; j < count * K; ++j)
                    for (i64 co = 0; co < Cout; ++co)
                        for (i64 ci = 0; ci < Cin; ++ci)
                            weights[(j * Cin + ci) * Cout + co] = static_cast<float>(values[j * C + co * Cin + ci]);
                for (i64 i = 0; i < count; ++i) {
                    const i64 oy = (p0 + i) / OW, ox = (p0 + i) % OW;
                    for (i64 n = 0; n < d.batch; ++n) {
                        for (i64 co = 0; co < Cout; ++co) acc[co] = bias_.empty() ? 0.0f : bias_[co];
                        for (i64 y = 0; y < kh; ++y) {
                            const i64 my = axes_[0].first[oy] + y;
                            if (my < 0 || my >= H) continue;  // zero padding
                            for (i64 x = 0; x < kw; ++x) {
                                const i64 mx = axes_[1].first[ox] + x;
                                if (mx < 0 || mx >= W) continue;
                                const float* w = weights.data() + (i * K + y * kw + x) * Cin * Cout;
                                for (i64 ci = 0; ci < Cin; ++ci) {
                                    const float v = src[((n * Cin + ci) * H + my) * W + mx];
                                    for (i64 co = 0; co < Cout; ++co) acc[co] += v * w[ci * Cout + co];
                                }
                            }
                        }
                        for (i64 co = 0; co < Cout; ++co) dst[((n * Cout + co) * OH + oy) * OW + ox] = acc[co];
                    }
                }
            }
            meter.count_out(chunk_bytes_);
        }
    });
}

}  // namespace convcheck::optimized::detail
