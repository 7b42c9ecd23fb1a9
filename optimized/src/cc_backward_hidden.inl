// The CC backward's hidden layers' reverse (cc_hidden_backward, cc_backward_kernels.hpp), written once
// over the ISA vocabulary (isa_avx2.hpp or isa_avx512.hpp, then cc_backward_isa.hpp) and included by
// cc_backward_avx2.cpp and cc_backward_hidden_avx512.cpp (there for h2p a multiple of 16). W features
// per vector: the sums of da1 (over m in order) and the outer products run in the same order on either
// ISA.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {

namespace {

// The pairs' loop; H1, H2P: h1 and h2p when known at compile time (whole vectors, z2 read from h), else 0.
template <i64 H1, i64 H2P>
void hidden_backward(const CcHiddenBackwardProblem& q, i64 p0, i64 count, const float* h, const float* dh,
                     double* partial_w2, double* partial_w1, float* scratch) {
    const CcHiddenProblem& p = *q.hidden;
    const i64 h1 = H1 > 0 ? H1 : p.h1, h2p = H2P > 0 ? H2P : p.h2p, K = p.kh * p.kw, vectors = h2p / W;
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
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    // LeakyReLU'(z2) from the forward's h = LeakyReLU(z2) when the slope is >= 0 (then h > 0 exactly when
    // z2 > 0, -0 and underflow included); a negative slope makes h > 0 on both sides: z2 again
    const bool from_h = H2P > 0 || p.slope_f32 >= 0.0f;
    i64 n = 0;
    for (i64 i = 0; i < count; ++i, h += K * h2p, dh += K * h2p, ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const TapRange ry = taps_inside(p.first_y[oy], p.kh, p.in_h), rx = taps_inside(p.first_x[ox], p.kw, p.in_w);
        for (i64 y = ry.lo; y < ry.hi; ++y) {
            const float* ay = p.ay + (oy * p.kh + y) * h1;
            const float dy = q.dist_y[oy * p.kh + y];
            const float* ax = p.ax + (ox * p.kw + rx.lo) * h1;
            const float* dx = q.dist_x + ox * p.kw + rx.lo;
            const float* g = dh + (y * p.kw + rx.lo) * h2p;
            const float* hv = h + (y * p.kw + rx.lo) * h2p;
            for (i64 x = rx.lo; x < rx.hi; ++x, ax += h1, ++dx, g += h2p, hv += h2p) {
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
                dist[n * 3 + 1] = *dx;
                dist[n * 3 + 2] = 1.0f;
                if (++n == kHiddenPairs) {
                    flush(n);
                    n = 0;
                }
            }
        }
    }
    if (n > 0) flush(n);
}

}  // namespace

void cc_hidden_backward(const CcHiddenBackwardProblem& q, i64 p0, i64 count, const float* h, const float* dh,
                        double* partial_w2, double* partial_w1, float* scratch) {
    const CcHiddenProblem& p = *q.hidden;
    if (p.h1 == 16 && p.h2p == 16 && 16 % W == 0 && p.slope_f32 >= 0.0f)
        hidden_backward<16, 16>(q, p0, count, h, dh, partial_w2, partial_w1, scratch);
    else
        hidden_backward<0, 0>(q, p0, count, h, dh, partial_w2, partial_w1, scratch);
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
