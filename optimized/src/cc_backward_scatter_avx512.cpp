// cc_scatter_back (cc_backward_kernels.hpp) for AVX-512, when h2p is a multiple of 16. Compiled with
// -mavx512f -mavx512bw -mavx512vl -mfma; called only when the CPU has AVX-512 (cpu_has_avx512).
// Per pixel, [dZ | dS] arrives channel-major (dZ[cin][m], as the GEMM with [W3 | b3] gives it):
//   dN:  dZ is transposed to dZ^T [h2p][Cin rounded up to 16] (16 x 16 blocks in registers), then per
//        group of at most 9 taps and 32 channels dN = dS + h_0 dZ_0 + h_1 dZ_1 + ... over m < h2 in
//        order (FMA), each tap's h_m broadcast, 16 channels per vector, added to diff_cl;
//   dh:  dh[tap][m] += sum_cin N[cin] dZ[cin][m], 16 features per vector, input channels in order
//        (FMA), up to 9 taps at once: the same sums as the AVX2 kernel's.
// (The AVX2 kernel sums dN's features by lane sums in another order: the two ISAs' diff_src may differ
// in the last bits; each is fixed, whatever the thread count.)
#include "isa_avx512.hpp"
// (the vocabulary first)
#include "cc_backward_isa.hpp"
#include "cc_backward_kernels.hpp"

namespace convcheck::optimized::detail::avx512 {
namespace {

// taps at once: dN 9 taps x 2 channel vectors = 18 accumulators, dh 9 (one feature vector each), the
// taps' positions found once for both
constexpr int kTaps = 9;

// The 16 x 16 transpose of r in place, by in-lane unpacks (pairs of floats, then of float pairs) and
// two rounds of 128-bit block shuffles: 64 shuffles with immediate controls (GCC's vector builtins: its
// intrinsics read an "undefined" vector that -Werror=uninitialized flags), every vector a register once
// inlined (the two-source permutes before kept r on the stack).
#define CC_LANES4(f) f(0), f(1), f(2), f(3)
__attribute__((always_inline)) inline void transpose16(vf* r) {
    // per 128-bit block L of a and b (b's lanes numbered from 16)
#define CC_LO(L) 4 * L, 16 + 4 * L, 4 * L + 1, 17 + 4 * L
#define CC_HI(L) 4 * L + 2, 18 + 4 * L, 4 * L + 3, 19 + 4 * L
#define CC_LO2(L) 4 * L, 4 * L + 1, 16 + 4 * L, 17 + 4 * L
#define CC_HI2(L) 4 * L + 2, 4 * L + 3, 18 + 4 * L, 19 + 4 * L
    vf t[16];
#pragma GCC unroll 8
    for (int i = 0; i < 16; i += 2) {
        t[i] = __builtin_shufflevector(r[i], r[i + 1], CC_LANES4(CC_LO));
        t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], CC_LANES4(CC_HI));
    }
#pragma GCC unroll 4
    for (int i = 0; i < 16; i += 4) {
        r[i] = __builtin_shufflevector(t[i], t[i + 2], CC_LANES4(CC_LO2));
        r[i + 1] = __builtin_shufflevector(t[i], t[i + 2], CC_LANES4(CC_HI2));
        r[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], CC_LANES4(CC_LO2));
        r[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], CC_LANES4(CC_HI2));
    }
    // blocks (a0, a2, b0, b2) and (a1, a3, b1, b3)
#define CC_EVEN 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27
#define CC_ODD 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31
#pragma GCC unroll 2
    for (int h = 0; h < 16; h += 8)
#pragma GCC unroll 4
        for (int i = h; i < h + 4; ++i) {
            t[i] = __builtin_shufflevector(r[i], r[i + 4], CC_EVEN);
            t[i + 4] = __builtin_shufflevector(r[i], r[i + 4], CC_ODD);
        }
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
        r[i] = __builtin_shufflevector(t[i], t[i + 8], CC_EVEN);
        r[i + 8] = __builtin_shufflevector(t[i], t[i + 8], CC_ODD);
    }
#undef CC_LO
#undef CC_HI
#undef CC_LO2
#undef CC_HI2
#undef CC_EVEN
#undef CC_ODD
}
#undef CC_LANES4

// dzt [h2p][cp] = dz [Cin][h2p] transposed (the channels from Cin to cp: 0).
void transpose_dz(const float* dz, i64 cin, i64 h2p, i64 cp, float* dzt) {
    for (i64 c0 = 0; c0 < cin; c0 += 16) {
        const i64 rows = cin - c0 < 16 ? cin - c0 : 16;
        for (i64 m0 = 0; m0 < h2p; m0 += 16) {
            vf r[16];
#pragma GCC unroll 16
            for (int k = 0; k < 16; ++k) r[k] = k < rows ? load(dz + (c0 + k) * h2p + m0) : zero();
            transpose16(r);
#pragma GCC unroll 16
            for (int k = 0; k < 16; ++k) store(dzt + (m0 + k) * cp + c0, r[k]);
        }
    }
}

// dN of taps tap[0 .. T) of one pixel, channels [c0, c0 + CV * 16) (MASK: the last vector's `valid`
// lanes only): dS, then + h[tap][m] dZ^T[m] for m < h2 in order (FMA), added to diff_cl at pos[j] + c0.
template <int T, int CV, bool MASK>
void dn_tile(const CcContractProblem& p, const float* h, const float* dzt, i64 cp, const float* ds, const i64* tap,
             const i64* pos, i64 c0, vmask mask, float* diff_cl) {
    vf acc[T * CV];
#pragma GCC unroll 2
    for (int c = 0; c < CV; ++c) {
        const vf s = MASK && c + 1 == CV ? load_masked(ds + c0 + c * 16, mask) : load(ds + c0 + c * 16);
#pragma GCC unroll 9
        for (int j = 0; j < T; ++j) acc[j * CV + c] = s;
    }
    const float* hj[T];
#pragma GCC unroll 9
    for (int j = 0; j < T; ++j) hj[j] = h + tap[j] * p.h2p;
    const float* dr = dzt + c0;
    for (i64 m = 0; m < p.h2; ++m, dr += cp) {
        vf dv[CV];
#pragma GCC unroll 2
        for (int c = 0; c < CV; ++c) dv[c] = load(dr + c * 16);
#pragma GCC unroll 9
        for (int j = 0; j < T; ++j) {
            const vf b = broadcast(hj[j] + m);
#pragma GCC unroll 2
            for (int c = 0; c < CV; ++c) acc[j * CV + c] = fma(b, dv[c], acc[j * CV + c]);
        }
    }
#pragma GCC unroll 9
    for (int j = 0; j < T; ++j)
#pragma GCC unroll 2
        for (int c = 0; c < CV; ++c) {
            float* o = diff_cl + pos[j] + c0 + c * 16;
            if (MASK && c + 1 == CV)
                store_masked(o, mask, load_masked(o, mask) + acc[j * CV + c]);
            else
                store(o, load(o) + acc[j * CV + c]);
        }
}

// dh[tap[j]][v0 * 16 ..] += sum_cin N[cin] dZ[cin][v0 * 16 ..] for the taps j < T of one pixel (pos[j]:
// their neighbour's channels in src_cl; first: from 0, dh not read): input channels in order, FMA, T
// chains interleaved.
template <int T>
void dh_tile(const CcContractProblem& p, const float* src_cl, const float* dz, const i64* tap, const i64* pos,
             i64 v0, bool first, float* dh) {
    const i64 h2p = p.h2p;
    vf acc[T];
#pragma GCC unroll 12
    for (int j = 0; j < T; ++j) acc[j] = first ? zero() : load(dh + tap[j] * h2p + v0 * 16);
    const float* dzr = dz + v0 * 16;
    for (i64 c = 0; c < p.in_channels; ++c, dzr += h2p) {
        const vf dzv = load(dzr);
#pragma GCC unroll 12
        for (int j = 0; j < T; ++j) acc[j] = fma(broadcast(src_cl + pos[j] + c), dzv, acc[j]);
    }
#pragma GCC unroll 12
    for (int j = 0; j < T; ++j) store(dh + tap[j] * h2p + v0 * 16, acc[j]);
}

// f.template operator()<t>() for t in [1, T] (t a template argument).
template <int T, typename F>
void with_taps(i64 t, const F& f) {
    if constexpr (T > 1)
        if (t < T) return with_taps<T - 1>(t, f);
    f.template operator()<T>();
}

}  // namespace

void cc_scatter_back(const CcContractProblem& p, const float* src_cl, float* diff_cl, const i64* row_offset,
                     const float* h, const float* dz, i64 p0, i64 count, bool first_image, float* dh, float* scratch) {
    const i64 K = p.kh * p.kw, Cin = p.in_channels, h2p = p.h2p, cp = (Cin + 15) / 16 * 16;
    const i64 depth = Cin * (h2p + 1);
    const i64 rest = Cin % 16;
    const vmask mask = lanes(rest == 0 ? 16 : rest);
    float* dzt = scratch;  // [h2p][cp]
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, h += K * h2p, dh += K * h2p, dz += depth,
             ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const i64 fy = p.first_y[oy], fx = p.first_x[ox];
        const TapRange ry = taps_inside(fy, p.kh, p.in_h), rx = taps_inside(fx, p.kw, p.in_w);
        transpose_dz(dz, Cin, h2p, cp, dzt);
        i64 tap[kTaps], pos[kTaps], taps = 0;
        // dN: channel blocks of 32 (the last one 16 or 32, its last vector masked)
        const auto flush = [&] {
            for (i64 c0 = 0; c0 < Cin; c0 += 32) {
                const i64 left = Cin - c0;
                with_taps<kTaps>(taps, [&]<int T>() {
                    if (left > 32 || (left == 32 && rest == 0))
                        dn_tile<T, 2, false>(p, h, dzt, cp, dz + Cin * h2p, tap, pos, c0, mask, diff_cl);
                    else if (left > 16)
                        dn_tile<T, 2, true>(p, h, dzt, cp, dz + Cin * h2p, tap, pos, c0, mask, diff_cl);
                    else if (left == 16)
                        dn_tile<T, 1, false>(p, h, dzt, cp, dz + Cin * h2p, tap, pos, c0, mask, diff_cl);
                    else
                        dn_tile<T, 1, true>(p, h, dzt, cp, dz + Cin * h2p, tap, pos, c0, mask, diff_cl);
                });
            }
            for (i64 v0 = 0; v0 < h2p / 16; ++v0)
                with_taps<kTaps>(taps, [&]<int T>() { dh_tile<T>(p, src_cl, dz, tap, pos, v0, first_image, dh); });
            taps = 0;
        };
        // the taps inside in (y, x) order, in groups of kTaps: dN, then dh of each group (their positions
        // found once for both)
        for (i64 y = ry.lo; y < ry.hi; ++y)
            for (i64 x = rx.lo; x < rx.hi; ++x) {
                tap[taps] = y * p.kw + x;
                pos[taps] = row_offset[fy + y] + (fx + x) * Cin;
                if (++taps == kTaps) flush();
            }
        if (taps > 0) flush();
    }
}

}  // namespace convcheck::optimized::detail::avx512
