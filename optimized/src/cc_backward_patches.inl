// The CC backward's polyphase kernels (cc_backward_kernels.hpp, "patches without a copy"), written once
// over the ISA vocabulary (isa_avx2.hpp or isa_avx512.hpp, then cc_backward_isa.hpp) and included by
// cc_backward_patches_avx2.cpp and cc_backward_patches_avx512.cpp. Each tile keeps its accumulators in
// registers: W consecutive channels of one tap per vector, up to kTileRows rows broadcast. Every sum runs
// in the same order on either ISA (a lane is one channel), so both give the same bits.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// partial rows [r0, r0 + R) (of Cout), columns c (channels [c0, c0 + NB * W) of tap t; MASK: the last
// vector holds `valid`): sum over the pixels i of dyt[r][i] * src_cl[src_at[t][i] + c], f32 from 0 in
// pixel order (FMA), then added to the double partial.
template <int R, int NB, bool MASK>
void outer_tile(const CcPatchTaps& p, const float* dyt, const float* src_cl, i64 t, i64 r0, i64 c0, i64 valid,
                double* partial) {
    vf acc[R * NB];
#pragma GCC unroll 24
    for (int k = 0; k < R * NB; ++k) acc[k] = zero();
    const vmask mask = lanes(valid);
    const i64* at = p.src_at + t * p.stride;
    const float* d = dyt + r0 * p.stride;
    for (i64 i = 0; i < p.count; ++i) {
        const float* x = src_cl + at[i] + c0;
        vf xv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) xv[b] = MASK && b + 1 == NB ? load_masked(x + b * W, mask) : load(x + b * W);
#pragma GCC unroll 12
        for (int r = 0; r < R; ++r) {
            const vf v = broadcast(d + r * p.stride + i);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[r * NB + b] = fma(v, xv[b], acc[r * NB + b]);
        }
    }
    const i64 KC = p.taps * p.channels;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) {
            double* q = partial + (r0 + r) * KC + t * p.channels + c0 + b * W;
            if (MASK && b + 1 == NB) {
                float out[W];
                store(out, acc[r * NB + b]);
                for (i64 k = 0; k < valid; ++k) q[k] += static_cast<double>(out[k]);
            } else {
                add_to_doubles(q, acc[r * NB + b]);
            }
        }
}

// pixels [i0, i0 + R), channels [c0, c0 + NB * W) of tap t: sum over co of dyt[co][i] w[co][t, c] (f32
// from 0 in co order, FMA), added to diff_cl at diff_at[t][i] (pixels in order; none outside the input).
template <int R, int NB, bool MASK>
void times_tile(const CcPatchTaps& p, const float* dyt, const float* w, float* diff_cl, i64 t, i64 i0, i64 c0,
                i64 valid) {
    vf acc[R * NB];
#pragma GCC unroll 24
    for (int k = 0; k < R * NB; ++k) acc[k] = zero();
    const vmask mask = lanes(valid);
    const i64 KC = p.taps * p.channels;
    const float* wr = w + t * p.channels + c0;
    const float* d = dyt + i0;
    for (i64 k = 0; k < p.rows; ++k, wr += KC, d += p.stride) {
        vf wv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) wv[b] = MASK && b + 1 == NB ? load_masked(wr + b * W, mask) : load(wr + b * W);
#pragma GCC unroll 12
        for (int r = 0; r < R; ++r) {
            const vf v = broadcast(d + r);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[r * NB + b] = fma(v, wv[b], acc[r * NB + b]);
        }
    }
    const i64* at = p.diff_at + t * p.stride + i0;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
        if (at[r] < 0) continue;
        float* o = diff_cl + at[r] + c0;
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) {
            if (MASK && b + 1 == NB)
                store_masked(o + b * W, mask, load_masked(o + b * W, mask) + acc[r * NB + b]);
            else
                store(o + b * W, load(o + b * W) + acc[r * NB + b]);
        }
    }
}

// Calls T::template run<r, NB, MASK>(...) for r in [1, R] (r a template argument).
template <typename T, int NB, bool MASK, int R, typename... A>
void dispatch_rows(i64 r, A... a) {
    if constexpr (R > 1)
        if (r < R) return dispatch_rows<T, NB, MASK, R - 1>(r, a...);
    T::template run<R, NB, MASK>(a...);
}

// Every (tap, block of at most 2 W channels) in order, with the block's vector count and valid lanes.
template <typename F>
void for_each_tap_block(const CcPatchTaps& p, const F& f) {
    for (i64 t = 0; t < p.taps; ++t)
        for (i64 c0 = 0; c0 < p.channels; c0 += 2 * W) {
            const i64 rest = p.channels - c0 < 2 * W ? p.channels - c0 : 2 * W, nb = (rest + W - 1) / W;
            f(t, c0, nb, rest - (nb - 1) * W);
        }
}

struct Outer {
    template <int R, int NB, bool MASK>
    static void run(const CcPatchTaps* p, const float* dyt, const float* src_cl, i64 t, i64 r0, i64 c0, i64 valid,
                    double* partial) {
        outer_tile<R, NB, MASK>(*p, dyt, src_cl, t, r0, c0, valid, partial);
    }
};

struct Times {
    template <int R, int NB, bool MASK>
    static void run(const CcPatchTaps* p, const float* dyt, const float* w, float* diff_cl, i64 t, i64 i0, i64 c0,
                    i64 valid) {
        times_tile<R, NB, MASK>(*p, dyt, w, diff_cl, t, i0, c0, valid);
    }
};

// T::run<R, NB, MASK> with NB and MASK from the block.
template <typename T, typename... A>
void dispatch(i64 r, i64 nb, i64 valid, A... a) {
    const bool mask = valid < W;
    if (nb == 1)
        mask ? dispatch_rows<T, 1, true, kTileRows>(r, a...) : dispatch_rows<T, 1, false, kTileRows>(r, a...);
    else
        mask ? dispatch_rows<T, 2, true, kTileRows>(r, a...) : dispatch_rows<T, 2, false, kTileRows>(r, a...);
}

}  // namespace

void cc_patch_outer_accumulate(const CcPatchTaps& p, const float* dyt, const float* src_cl, double* partial) {
    // per (tap, 2 W channels): the pixels' channels stay in L1 while the row groups pass
    for_each_tap_block(p, [&](i64 t, i64 c0, i64 nb, i64 valid) {
        balanced_groups(p.rows, kTileRows, [&](i64 r0, i64 r) {
            dispatch<Outer>(r, nb, valid, &p, dyt, src_cl, t, r0, c0, valid, partial);
        });
    });
}

void cc_patch_times_scatter(const CcPatchTaps& p, const float* dyt, const float* w, float* diff_cl) {
    // per (tap, 2 W channels): the rows x 2 W slab of w stays in L1 while the pixel groups pass
    for_each_tap_block(p, [&](i64 t, i64 c0, i64 nb, i64 valid) {
        balanced_groups(p.count, kTileRows, [&](i64 i0, i64 r) {
            dispatch<Times>(r, nb, valid, &p, dyt, w, diff_cl, t, i0, c0, valid);
        });
    });
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
