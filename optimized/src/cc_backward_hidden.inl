// The CC backward's hidden layers' reverse (cc_hidden_backward, cc_backward_kernels.hpp), written once
// over the ISA vocabulary (isa_avx2.hpp or isa_avx512.hpp, then cc_backward_isa.hpp) and included by
// cc_backward_avx2.cpp and cc_backward_hidden_avx512.cpp (there for h2p a multiple of 16). W features
// per vector: the sums of da1 (over m in order) and the outer products run in the same order on either
// ISA.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {

namespace {

// f(ay, ax, dy, dx, hv, g) for every distance pair of pixels p0 .. p0 + count (taps inside the input, the
// order of cc_hidden_features): the first layer's row and column terms (ay, ax: h1 floats each), the
// distances (f32), the pair's h and dh (h2p floats each).
template <typename F>
void for_each_pair(const CcHiddenBackwardProblem& q, i64 h1, i64 h2p, i64 p0, i64 count, const float* h,
                   const float* dh, const F& f) {
    const CcHiddenProblem& p = *q.hidden;
    const i64 K = p.kh * p.kw;
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, h += K * h2p, dh += K * h2p, ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const TapRange ry = taps_inside(p.first_y[oy], p.kh, p.in_h), rx = taps_inside(p.first_x[ox], p.kw, p.in_w);
        for (i64 y = ry.lo; y < ry.hi; ++y) {
            const float* ay = p.ay + (oy * p.kh + y) * h1;
            const float dy = q.dist_y[oy * p.kh + y];
            const float* ax = p.ax + (ox * p.kw + rx.lo) * h1;
            const float* dx = q.dist_x + ox * p.kw + rx.lo;
            const float* g = dh + (y * p.kw + rx.lo) * h2p;
            const float* hv = h + (y * p.kw + rx.lo) * h2p;
            for (i64 x = rx.lo; x < rx.hi; ++x, ax += h1, ++dx, g += h2p, hv += h2p) f(ay, ax, dy, *dx, hv, g);
        }
    }
}

// The pairs' loop; H1, H2P: h1 and h2p when known at compile time (whole vectors, z2 read from h), else 0.
template <i64 H1, i64 H2P>
void hidden_backward(const CcHiddenBackwardProblem& q, i64 p0, i64 count, const float* h, const float* dh,
                     double* partial_w2, double* partial_w1, float* scratch) {
    const CcHiddenProblem& p = *q.hidden;
    const i64 h1 = H1 > 0 ? H1 : p.h1, h2p = H2P > 0 ? H2P : p.h2p, vectors = h2p / W;
    const i64 h1v = (h1 + W - 1) / W, h1p = h1v * W;
    // per group of up to kHiddenPairs pairs: [a1 | 1], dz2, dz1, [dy dx 1], v1 and da1
    float* a1 = scratch;                        // [kHiddenPairs][h1 + 1]
    float* dz2 = a1 + kHiddenPairs * (h1 + 1);  // [kHiddenPairs][h2p]
    float* dz1 = dz2 + kHiddenPairs * h2p;      // [kHiddenPairs][h1]
    float* dist = dz1 + kHiddenPairs * h1;      // [kHiddenPairs][3]
    float* v1s = dist + kHiddenPairs * 3;       // [kHiddenPairs][h1]: the first layer's pre-activations
    float* da1 = v1s + kHiddenPairs * h1;       // [kHiddenPairs][h1 rounded up to W]
    const vf slope = broadcast(&p.slope_f32);
    const auto flush = [&](i64 n) {
        // da1 = dz2 W2 for the group's pairs at once (cc_rows_times: m in order), then per pair
        // dz1 = LeakyReLU'(v1) da1
        cc_rows_times(dz2, n, h2p, q.w2, h1p, da1);
        for (i64 k = 0; k < n; ++k) {
            const float* v1 = v1s + k * h1;
            const float* g = da1 + k * h1p;
            i64 j = 0;
            for (; j + W <= h1; j += W) {
                const vf g1 = load(g + j);
                store(dz1 + k * h1 + j, if_above_zero(load(v1 + j), g1, g1 * slope));
            }
            for (; j < h1; ++j) dz1[k * h1 + j] = v1[j] > 0.0f ? g[j] : p.slope_f32 * g[j];
        }
        cc_outer_accumulate(dz2, h2p, a1, h1 + 1, n, partial_w2);  // dW2 and db2
        cc_outer_accumulate(dz1, h1, dist, 3, n, partial_w1);      // dW1 and db1
    };
    // LeakyReLU'(z2) from the forward's h = LeakyReLU(z2) when the slope is >= 0 (then h > 0 exactly when
    // z2 > 0, -0 and underflow included); a negative slope makes h > 0 on both sides: z2 again
    const bool from_h = H2P > 0 || p.slope_f32 >= 0.0f;
    i64 n = 0;
    for_each_pair(q, h1, h2p, p0, count, h, dh,
                  [&](const float* ay, const float* ax, float dy, float dx, const float* hv, const float* g) {
        float* a = a1 + n * (h1 + 1);
        float* d2 = dz2 + n * h2p;
        float* v1 = v1s + n * h1;
        // a1 as cc_hidden_features computes it (ay + ax, then LeakyReLU: the same f32 values)
        i64 j = 0;
        for (; j + W <= h1; j += W) {
            const vf v = load(ay + j) + load(ax + j);
            store(v1 + j, v);
            store(a + j, if_not_below_zero(v, v, v * slope));
        }
        for (; H1 == 0 && j < h1; ++j) {
            v1[j] = ay[j] + ax[j];
            a[j] = v1[j] >= 0.0f ? v1[j] : p.slope_f32 * v1[j];
        }
        a[h1] = 1.0f;
        for (i64 b = 0; b < vectors; ++b) {
            vf z = load(hv + b * W);
            if (!from_h) {
                // z2 = b2 + sum_j a1[j] W2t[j], FMA in j order as the forward: the same bits, the same branch
                z = load(p.b2 + b * W);
                for (i64 k = 0; k < h1; ++k) z = fma(broadcast(a + k), load(p.w2t + k * h2p + b * W), z);
            }
            const vf gv = load(g + b * W);
            store(d2 + b * W, if_above_zero(z, gv, gv * slope));
        }
        dist[n * 3] = dy;
        dist[n * 3 + 1] = dx;
        dist[n * 3 + 2] = 1.0f;
        if (++n == kHiddenPairs) {
            flush(n);
            n = 0;
        }
    });
    if (n > 0) flush(n);
}

#ifdef __AVX512F__
// Pairs [k, k + P) of a group (fused16_group), features [M0, M0 + 8): each pair's dz2[m] broadcast once
// into both da1 (W2's row m, lanes j; da1 kept in `da` between the halves) and dW2 (a1, lanes j: dW2
// transposed), the P pairs' da1 chains interleaved; after the second half, per pair in order db2, dz1,
// dW1. (Half the features a pass: 8 accumulators of dW2 rather than 16 leave no register spilled.)
template <int P, int M0>
__attribute__((always_inline)) inline void fused16_step(const float* w2, vf slope, const float* v1, const float* a1,
                                                        const float* d2, const float* dist, float* da, i64 k,
                                                        vf (&w2t)[8], vf& b2, vf (&w1)[3]) {
    vf da1[P], a[P];
#pragma GCC unroll 4
    for (int j = 0; j < P; ++j) {
        da1[j] = M0 == 0 ? zero() : load(da + (k + j) * 16);
        a[j] = load(a1 + (k + j) * 16);
    }
#pragma GCC unroll 8
    for (int m = 0; m < 8; ++m) {
        const vf row = load(w2 + (M0 + m) * 16);
#pragma GCC unroll 4
        for (int j = 0; j < P; ++j) {
            const vf b = broadcast(d2 + (k + j) * 16 + M0 + m);
            da1[j] = fma(b, row, da1[j]);
            w2t[m] = fma(b, a[j], w2t[m]);
        }
    }
#pragma GCC unroll 4
    for (int j = 0; j < P; ++j) {
        if constexpr (M0 == 0) {
            store(da + (k + j) * 16, da1[j]);
        } else {
            b2 = b2 + load(d2 + (k + j) * 16);  // (fma(1, dz2, b2), as the column of ones)
            const vf dz1 = if_above_zero(load(v1 + (k + j) * 16), da1[j], da1[j] * slope);
            w1[0] = fma(broadcast(dist + 2 * (k + j)), dz1, w1[0]);
            w1[1] = fma(broadcast(dist + 2 * (k + j) + 1), dz1, w1[1]);
            w1[2] = w1[2] + dz1;
        }
    }
}

// One half of the features over a group's pairs, 4 pairs at a time; dW2's rows M0 .. M0 + 8 to out.
template <int M0>
void fused16_half(const float* w2, vf slope, i64 n, const float* v1, const float* a1, const float* d2,
                  const float* dist, float* da, vf& b2, vf (&w1)[3], float* out) {
    vf w2t[8];
#pragma GCC unroll 8
    for (int m = 0; m < 8; ++m) w2t[m] = zero();
    i64 k = 0;
    for (; k + 4 <= n; k += 4) fused16_step<4, M0>(w2, slope, v1, a1, d2, dist, da, k, w2t, b2, w1);
    for (; k < n; ++k) fused16_step<1, M0>(w2, slope, v1, a1, d2, dist, da, k, w2t, b2, w1);
#pragma GCC unroll 8
    for (int m = 0; m < 8; ++m) store(out + (M0 + m) * 16, w2t[m]);
}

// A group of n pairs (v1 = ay + ax, a1, dz2: [n][16] each; dist [n][2]): their sums of dW2, db2, dW1, db1
// in f32 from 0, then added to the double partials (da: n * 16 floats, out: 256 floats of scratch).
__attribute__((noinline)) void fused16_group(const float* w2, vf slope, i64 n, const float* v1, const float* a1,
                                             const float* d2, const float* dist, double* partial_w2,
                                             double* partial_w1, float* da, float* out) {
    vf b2 = zero(), w1[3] = {zero(), zero(), zero()};
    fused16_half<0>(w2, slope, n, v1, a1, d2, dist, da, b2, w1, out);
    fused16_half<8>(w2, slope, n, v1, a1, d2, dist, da, b2, w1, out);
    for (int j = 0; j < 16; ++j)
        for (int m = 0; m < 16; ++m) partial_w2[j * 16 + m] += static_cast<double>(out[m * 16 + j]);
    add_to_doubles(partial_w2 + 16 * 16, b2);
    for (int c = 0; c < 3; ++c) add_to_doubles(partial_w1 + c * 16, w1[c]);
}

// hidden_backward<16, 16> when a vector holds 16 lanes (AVX-512): per group of kHiddenPairs pairs their
// v1, a1, dz2 and distances, then fused16_group: dz2 broadcast once for both da1 and dW2 (were
// cc_rows_times and cc_outer_accumulate, each broadcasting it or a1), dz1 and dW1 from registers. The same
// sums in the same order as hidden_backward's (f32 from 0 per group, pairs in order, FMA; da1 over m in
// order), so the same bits.
void hidden_backward_fused16(const CcHiddenBackwardProblem& q, i64 p0, i64 count, const float* h, const float* dh,
                             double* partial_w2, double* partial_w1, float* scratch) {
    static_assert(W == 16, "one vector per layer of 16");
    const vf slope = broadcast(&q.hidden->slope_f32);
    float* v1 = scratch;  // [kHiddenPairs][16] each
    float* a1 = v1 + kHiddenPairs * 16;
    float* d2 = a1 + kHiddenPairs * 16;
    float* dist = d2 + kHiddenPairs * 16;  // [kHiddenPairs][2]
    float* out = dist + 2 * kHiddenPairs;  // [16][16]
    float* da = out + 16 * 16;             // [kHiddenPairs][16] (in all 3424 of cc_hidden_backward_scratch's 4800)
    i64 n = 0;
    for_each_pair(q, 16, 16, p0, count, h, dh,
                  [&](const float* ay, const float* ax, float dy, float dx, const float* hv, const float* g) {
        const vf v = load(ay) + load(ax);
        store(v1 + n * 16, v);
        store(a1 + n * 16, if_not_below_zero(v, v, v * slope));
        const vf gv = load(g);
        store(d2 + n * 16, if_above_zero(load(hv), gv, gv * slope));
        dist[2 * n] = dy;
        dist[2 * n + 1] = dx;
        if (++n == kHiddenPairs) {
            fused16_group(q.w2, slope, n, v1, a1, d2, dist, partial_w2, partial_w1, da, out);
            n = 0;
        }
    });
    if (n > 0) fused16_group(q.w2, slope, n, v1, a1, d2, dist, partial_w2, partial_w1, da, out);
}
#endif

}  // namespace

void cc_hidden_backward(const CcHiddenBackwardProblem& q, i64 p0, i64 count, const float* h, const float* dh,
                        double* partial_w2, double* partial_w1, float* scratch) {
    const CcHiddenProblem& p = *q.hidden;
    if (p.h1 == 16 && p.h2p == 16 && 16 % W == 0 && p.slope_f32 >= 0.0f)
#ifdef __AVX512F__
        hidden_backward_fused16(q, p0, count, h, dh, partial_w2, partial_w1, scratch);
#else
        hidden_backward<16, 16>(q, p0, count, h, dh, partial_w2, partial_w1, scratch);
#endif
    else
        hidden_backward<0, 0>(q, p0, count, h, dh, partial_w2, partial_w1, scratch);
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
