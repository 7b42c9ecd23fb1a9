// The CC chunked method's contraction with the input channels last (cc_contract_cl,
// cc_factored_kernels.hpp), AVX2 + FMA. Each vector holds 8 input channels; the register tiles are
// <= 2 channel vectors x <= 6 columns, a column being a hidden feature m (its value broadcast per tap)
// or S (the tap vectors added). Per tap the tile loads its channel vectors once, contiguous.
#include <immintrin.h>

#include "cc_factored_kernels.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {

// The most columns of a tile (2 x 6 accumulators, 2 channel vectors and a broadcast: 15 registers).
constexpr int kColumns = 6;

// The taps [lo, hi) of one axis inside the input (the same as inside(), inlined).
struct Range {
    i64 lo, hi;
};
inline Range taps_inside(i64 first, i64 support, i64 size) {
    const i64 lo = first < 0 ? -first : 0;
    const i64 hi = first + support > size ? size - first : support;
    return {lo, hi < lo ? lo : hi};
}

// Where one pixel's tile reads and writes.
struct Pixel {
    const float* ring;     // the packed rows
    const i64* row_offset; // input row iy at ring + row_offset[iy]
    i64 y0, y1, x_offset, width;  // input rows [y0, y1); the first tap's channel c0 at + x_offset
    const float* h;        // hidden feature 0 of the first tap inside
    i64 h_row_step, h2p, cin;
    float* z;              // Z[c0][0] of the pixel (z[m * cin + c] = Z[c][m], S at z[h2 * cin + c])
    i64 s_offset;          // h2 * cin
};

// masked: the lanes of mask only (the unrolled loops below fold the choice)
inline __attribute__((always_inline)) __m256 load(const float* x, bool masked, __m256i mask) {
    return masked ? _mm256_maskload_ps(x, mask) : _mm256_loadu_ps(x);
}

inline __attribute__((always_inline)) void store(float* to, __m256 v, bool masked, __m256i mask) {
    if (masked)
        _mm256_maskstore_ps(to, mask, v);
    else
        _mm256_storeu_ps(to, v);
}

// Columns m0 .. m0 + MB (and S when SUM) of channel vectors c0 .. c0 + CV (the last masked when TAIL):
// acc[m][c] = sum over the taps in (y, x) order of h_m * N (FMA, from 0); S: sum of N.
template <int CV, int MB, bool SUM, bool TAIL>
inline __attribute__((always_inline)) void tile(const Pixel& q, i64 m0, __m256i mask) {
    constexpr int A = (MB + (SUM ? 1 : 0)) * CV;
    __m256 acc[A > 0 ? A : 1];
#pragma GCC unroll 14
    for (int k = 0; k < A; ++k) acc[k] = _mm256_setzero_ps();
    const float* hrow = q.h + m0;
    for (i64 y = q.y0; y < q.y1; ++y, hrow += q.h_row_step) {
        const float* in = q.ring + q.row_offset[y] + q.x_offset;
        const float* hv = hrow;
        for (i64 x = 0; x < q.width; ++x, in += q.cin, hv += q.h2p) {
            __m256 v[CV];
#pragma GCC unroll 2
            for (int c = 0; c < CV; ++c) v[c] = load(in + c * 8, TAIL && c == CV - 1, mask);
#pragma GCC unroll 6
            for (int m = 0; m < MB; ++m) {
                const __m256 b = _mm256_broadcast_ss(hv + m);
#pragma GCC unroll 2
                for (int c = 0; c < CV; ++c) acc[m * CV + c] = _mm256_fmadd_ps(v[c], b, acc[m * CV + c]);
            }
            if constexpr (SUM)
#pragma GCC unroll 2
                for (int c = 0; c < CV; ++c) acc[MB * CV + c] = _mm256_add_ps(acc[MB * CV + c], v[c]);
        }
    }
#pragma GCC unroll 6
    for (int m = 0; m < MB; ++m)
#pragma GCC unroll 2
        for (int c = 0; c < CV; ++c) store(q.z + (m0 + m) * q.cin + c * 8, acc[m * CV + c], TAIL && c == CV - 1, mask);
    if constexpr (SUM)
#pragma GCC unroll 2
        for (int c = 0; c < CV; ++c) store(q.z + q.s_offset + c * 8, acc[MB * CV + c], TAIL && c == CV - 1, mask);
}

// Channel vectors c0 .. c0 + CV of one pixel (q at c0): every column, in tiles of <= kColumns (the
// last one holding S).
template <int CV, bool TAIL>
inline __attribute__((always_inline)) void pixel_block(const Pixel& q, i64 h2, __m256i mask) {
    i64 m0 = 0;
    for (; h2 + 1 - m0 > kColumns; m0 += kColumns) tile<CV, kColumns, false, TAIL>(q, m0, mask);
    switch (h2 - m0) {  // the last tile: the remaining features and S
    case 0: tile<CV, 0, true, TAIL>(q, m0, mask); break;
    case 1: tile<CV, 1, true, TAIL>(q, m0, mask); break;
    case 2: tile<CV, 2, true, TAIL>(q, m0, mask); break;
    case 3: tile<CV, 3, true, TAIL>(q, m0, mask); break;
    case 4: tile<CV, 4, true, TAIL>(q, m0, mask); break;
    default: tile<CV, 5, true, TAIL>(q, m0, mask); break;
    }
}

// Pixels p0 .. p0 + count, each in blocks of 2 channel vectors (16 channels), the last block LAST
// vectors, its last one masked when TAIL; pixel by pixel (its rows and features stay in L1).
template <int LAST, bool TAIL>
void contract_pixels(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                     i64 count, __m256i mask, float* z) {
    const i64 K = p.kh * p.kw, h2 = p.h2, depth = p.in_channels * (h2 + 1);
    const i64 whole = ((p.in_channels + 7) / 8 - LAST) / 2;  // the blocks before the last
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, h += K * p.h2p, z += depth, ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const i64 fy = p.first_y[oy], fx = p.first_x[ox];
        const Range ry = taps_inside(fy, p.kh, p.in_h), rx = taps_inside(fx, p.kw, p.in_w);
        Pixel q{ring,
                row_offset,
                fy + ry.lo,
                fy + ry.hi,
                (fx + rx.lo) * p.in_channels,
                rx.hi - rx.lo,
                h + (ry.lo * p.kw + rx.lo) * p.h2p,
                p.kw * p.h2p,
                p.h2p,
                p.in_channels,
                z,
                h2 * p.in_channels};
        for (i64 b = 0; b < whole; ++b, q.x_offset += 16, q.z += 16) pixel_block<2, false>(q, h2, mask);
        pixel_block<LAST, TAIL>(q, h2, mask);
    }
}

}  // namespace

void cc_contract_cl(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                    i64 count, float* z) {
    const i64 Cin = p.in_channels, vectors = (Cin + 7) / 8, rest = Cin % 8;
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rest == 0 ? 8 : rest)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const auto f = vectors % 2 == 0 ? (rest ? &contract_pixels<2, true> : &contract_pixels<2, false>)
                                    : (rest ? &contract_pixels<1, true> : &contract_pixels<1, false>);
    f(p, ring, row_offset, h, p0, count, mask, z);
}

}  // namespace convcheck::optimized::detail::avx2
