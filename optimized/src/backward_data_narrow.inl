// The narrow backward-data kernel (backward_data_narrow.hpp), compiled once per ISA.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// The lanes of v added in a fixed order.
inline float lane_sum(vf v) {
    float lanes[W];
    store(lanes, v);
    float sum = lanes[0];
    for (int l = 1; l < W; ++l) sum += lanes[l];
    return sum;
}

// CC channels, P pixels of one residue at a time: P*CC accumulators + CC weights + 1 diff_dst vector.
template <int CC, int P>
void narrow_rows(const NarrowBackwardData& p, const float* dy, float* dx, i64 begin, i64 end, i64* scratch) {
    const Geometry& g = *p.geometry;
    const i64 O = g.out_channels, IW = g.in[2], OW = g.out[2], S = g.stride[2], D = g.dilation[2], PL = g.pad_begin[2];
    const i64 KW = g.kernel[2], blocks = O / W, KR = g.kernel[0] * g.kernel[1];
    // per valid (kd, kh): its diff_dst row and its first tap (offsets; no std:: container here: see optimized.md)
    i64 *row_dy = scratch, *row_tap = scratch + KR;
    for (i64 row = begin; row < end; ++row) {
        const i64 ih = row % g.in[1], id = (row / g.in[1]) % g.in[0], n = row / (g.in[1] * g.in[0]);
        i64 rows = 0;
        for (i64 kd = 0; kd < g.kernel[0]; ++kd) {
            const i64 yd = id + g.pad_begin[0] - kd * g.dilation[0];
            if (yd < 0 || yd % g.stride[0] != 0 || yd / g.stride[0] >= g.out[0]) continue;
            for (i64 kh = 0; kh < g.kernel[1]; ++kh) {
                const i64 yh = ih + g.pad_begin[1] - kh * g.dilation[1];
                if (yh < 0 || yh % g.stride[1] != 0 || yh / g.stride[1] >= g.out[1]) continue;
                row_dy[rows] = ((n * g.out[0] + yd / g.stride[0]) * g.out[1] + yh / g.stride[1]) * OW * O;
                row_tap[rows++] = (kd * g.kernel[1] + kh) * KW;
            }
        }
        float* out_row = dx + row * IW * CC;
        for (i64 r = 0; r < S && r < IW; ++r)  // the pixels x = r + S*j, P at a time
            for (i64 j0 = 0; r + j0 * S < IW; j0 += P) {
                vf acc[P * CC];
#pragma GCC unroll 16
                for (int i = 0; i < P * CC; ++i) acc[i] = zero();
                for (i64 rr = 0; rr < rows; ++rr)
                    for (i64 kw = 0; kw < KW; ++kw) {
                        const i64 base = r + PL - kw * D;  // y*S for j = 0
                        if (((base % S) + S) % S != 0) continue;
                        const float* from[P];
#pragma GCC unroll 16
                        for (int q = 0; q < P; ++q) {
                            const i64 ys = base + (j0 + q) * S;  // a multiple of S
                            const bool in = r + (j0 + q) * S < IW && ys >= 0 && ys / S < OW;
                            from[q] = in ? dy + row_dy[rr] + ys / S * O : p.zeros;
                        }
                        const float* w = p.weights + (row_tap[rr] + kw) * CC * O;
                        for (i64 b = 0; b < blocks; ++b) {
                            vf wv[CC];
#pragma GCC unroll 4
                            for (int c = 0; c < CC; ++c) wv[c] = load(w + c * O + b * W);
#pragma GCC unroll 16
                            for (int q = 0; q < P; ++q) {
                                const vf d = load(from[q] + b * W);
#pragma GCC unroll 4
                                for (int c = 0; c < CC; ++c) acc[q * CC + c] = fma(wv[c], d, acc[q * CC + c]);
                            }
                        }
                    }
                for (int q = 0; q < P; ++q) {
                    const i64 x = r + (j0 + q) * S;
                    if (x >= IW) break;
                    for (int c = 0; c < CC; ++c) out_row[x * CC + c] = lane_sum(acc[q * CC + c]);
                }
            }
    }
}

}  // namespace

void narrow_backward_data_rows(const NarrowBackwardData& p, const float* dy, float* dx, i64 begin, i64 end, i64* scratch) {
    switch (p.geometry->in_channels) {
    case 1: narrow_rows<1, 12>(p, dy, dx, begin, end, scratch); return;
    case 2: narrow_rows<2, 6>(p, dy, dx, begin, end, scratch); return;
    case 3: narrow_rows<3, 4>(p, dy, dx, begin, end, scratch); return;
    default: narrow_rows<4, 2>(p, dy, dx, begin, end, scratch); return;
    }
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
