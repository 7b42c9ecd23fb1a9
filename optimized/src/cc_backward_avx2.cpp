// The CC backward's Internal-Net kernels (cc_backward_kernels.hpp) for AVX2 + FMA. Compiled with
// -mavx2 -mfma; called only when the CPU has both. Each vector holds 8 hidden features m (or 8
// columns of the last layer's matrix); every sum runs in a fixed order, whatever the thread count.
#include "isa_avx2.hpp"
// (the vocabulary first)
#include "cc_backward_isa.hpp"
#include "cc_backward_kernels.hpp"
#include "cc_backward_products.inl"
#include "cc_backward_hidden.inl"

namespace convcheck::optimized::detail::avx2 {
namespace {

// The 8 horizontal sums of v[0..8) as one vector (lane k = the sum of v[k]'s lanes, in a fixed order).
inline __m256 sum_lanes8(const __m256* v) {
    const __m256 ab = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
    const __m256 cd = _mm256_hadd_ps(_mm256_hadd_ps(v[4], v[5]), _mm256_hadd_ps(v[6], v[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(ab, cd, 0x20), _mm256_permute2f128_ps(ab, cd, 0x31));
}

// cc_scatter_back's dN for feature vectors [v0, v0 + NB) of one pixel. Per tap inside and block of 8
// input channels: the features' sums s; FIRST: from dS, else from dn; LAST: the total added to diff_cl,
// else kept in dn.
template <int NB>
void scatter_group(const CcContractProblem& p, float* diff_cl, const i64* row_offset, const float* h, const float* dz,
                   i64 fy, i64 fx, TapRange ry, TapRange rx, i64 v0, bool first, bool last, float* dn) {
    const i64 Cin = p.in_channels, h2p = p.h2p;
    const float* ds = dz + Cin * h2p;
    for (i64 y = ry.lo; y < ry.hi; ++y)
        for (i64 x = rx.lo; x < rx.hi; ++x) {
            const i64 t = y * p.kw + x, pos = row_offset[fy + y] + (fx + x) * Cin;
            __m256 hv[NB];
#pragma GCC unroll 4
            for (int b = 0; b < NB; ++b) hv[b] = _mm256_loadu_ps(h + t * h2p + (v0 + b) * 8);
            for (i64 c0 = 0; c0 < Cin; c0 += 8) {
                const i64 cb = Cin - c0 < 8 ? Cin - c0 : 8;
                __m256 prod[8];
                for (i64 k = 0; k < cb; ++k) {
                    const float* dzr = dz + (c0 + k) * h2p + v0 * 8;
                    __m256 dzv[NB];
#pragma GCC unroll 4
                    for (int b = 0; b < NB; ++b) dzv[b] = _mm256_loadu_ps(dzr + b * 8);
                    __m256 s = _mm256_mul_ps(hv[0], dzv[0]);
#pragma GCC unroll 4
                    for (int b = 1; b < NB; ++b) s = _mm256_fmadd_ps(hv[b], dzv[b], s);
                    prod[k] = s;
                }
                for (i64 k = cb; k < 8; ++k) prod[k] = _mm256_setzero_ps();
                const __m256 sums = sum_lanes8(prod);
                const float* from = first ? ds + c0 : dn + t * Cin + c0;
                float* to = last ? diff_cl + pos + c0 : dn + t * Cin + c0;
                if (cb == 8) {
                    __m256 v = _mm256_add_ps(_mm256_loadu_ps(from), sums);
                    if (last) v = _mm256_add_ps(_mm256_loadu_ps(to), v);
                    _mm256_storeu_ps(to, v);
                } else {
                    alignas(32) float out[8];
                    _mm256_store_ps(out, sums);
                    for (i64 k = 0; k < cb; ++k) {
                        const float v = from[k] + out[k];
                        to[k] = last ? to[k] + v : v;
                    }
                }
            }
        }
}

// dh[tap[j]][v0 * 8 ..] += sum_cin N[cin] dZ[cin][..] for the taps j < T of one pixel (pos[j]: their
// neighbour's channels in src_cl), NB feature vectors each (first: from 0, dh not read): input channels in
// order, FMA, the same sums as tap by tap, with T * NB chains interleaved.
template <int T, int NB>
void dh_tile(const CcContractProblem& p, const float* src_cl, const float* dz, const i64* tap, const i64* pos,
             i64 v0, bool first, float* dh) {
    const i64 h2p = p.h2p;
    __m256 acc[T * NB];
#pragma GCC unroll 6
    for (int j = 0; j < T; ++j)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b)
            acc[j * NB + b] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(dh + tap[j] * h2p + (v0 + b) * 8);
    const float* dzr = dz + v0 * 8;
    for (i64 c = 0; c < p.in_channels; ++c, dzr += h2p) {
        __m256 dzv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) dzv[b] = _mm256_loadu_ps(dzr + b * 8);
#pragma GCC unroll 6
        for (int j = 0; j < T; ++j) {
            const __m256 v = _mm256_broadcast_ss(src_cl + pos[j] + c);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[j * NB + b] = _mm256_fmadd_ps(v, dzv[b], acc[j * NB + b]);
        }
    }
#pragma GCC unroll 6
    for (int j = 0; j < T; ++j)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) _mm256_storeu_ps(dh + tap[j] * h2p + (v0 + b) * 8, acc[j * NB + b]);
}

template <int NB>
void dh_taps(const CcContractProblem& p, const float* src_cl, const float* dz, const i64* tap, const i64* pos,
             i64 taps, i64 v0, bool first, float* dh) {
    switch (taps) {
    case 1: dh_tile<1, NB>(p, src_cl, dz, tap, pos, v0, first, dh); break;
    case 2: dh_tile<2, NB>(p, src_cl, dz, tap, pos, v0, first, dh); break;
    case 3: dh_tile<3, NB>(p, src_cl, dz, tap, pos, v0, first, dh); break;
    case 4: dh_tile<4, NB>(p, src_cl, dz, tap, pos, v0, first, dh); break;
    case 5: dh_tile<5, NB>(p, src_cl, dz, tap, pos, v0, first, dh); break;
    default: dh_tile<6, NB>(p, src_cl, dz, tap, pos, v0, first, dh); break;
    }
}

}  // namespace

void cc_scatter_back(const CcContractProblem& p, const float* src_cl, float* diff_cl, const i64* row_offset,
                     const float* h, const float* dz, i64 p0, i64 count, bool first_image, float* dh, float* scratch) {
    const i64 K = p.kh * p.kw, Cin = p.in_channels, h2p = p.h2p;
    const i64 depth = Cin * (h2p + 1), vectors = h2p / 8;
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, h += K * h2p, dh += K * h2p, dz += depth,
             ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const i64 fy = p.first_y[oy], fx = p.first_x[ox];
        const TapRange ry = inside(fy, p.kh, p.in_h), rx = inside(fx, p.kw, p.in_w);
        for (i64 v0 = 0; v0 < vectors; v0 += 4) {
            const bool first = v0 == 0, last = v0 + 4 >= vectors;
            switch (vectors - v0) {
            case 1: scatter_group<1>(p, diff_cl, row_offset, h, dz, fy, fx, ry, rx, v0, first, last, scratch); break;
            case 2: scatter_group<2>(p, diff_cl, row_offset, h, dz, fy, fx, ry, rx, v0, first, last, scratch); break;
            case 3: scatter_group<3>(p, diff_cl, row_offset, h, dz, fy, fx, ry, rx, v0, first, last, scratch); break;
            default: scatter_group<4>(p, diff_cl, row_offset, h, dz, fy, fx, ry, rx, v0, first, last, scratch); break;
            }
        }
        // dh: the taps inside in (y, x) order, up to 6 at once, 2 feature vectors at a time (then 1)
        i64 tap[6], pos[6], taps = 0;
        const auto flush = [&] {
            i64 v0 = 0;
            for (; v0 + 2 <= vectors; v0 += 2) dh_taps<2>(p, src_cl, dz, tap, pos, taps, v0, first_image, dh);
            if (v0 < vectors) dh_taps<1>(p, src_cl, dz, tap, pos, taps, v0, first_image, dh);
            taps = 0;
        };
        for (i64 y = ry.lo; y < ry.hi; ++y)
            for (i64 x = rx.lo; x < rx.hi; ++x) {
                tap[taps] = y * p.kw + x;
                pos[taps] = row_offset[fy + y] + (fx + x) * Cin;
                if (++taps == 6) flush();
            }
        if (taps > 0) flush();
    }
}

}  // namespace convcheck::optimized::detail::avx2
