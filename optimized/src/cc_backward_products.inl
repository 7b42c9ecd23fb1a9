// The CC backward's two products over a chunk's pixels (cc_backward_kernels.hpp: cc_outer_accumulate,
// cc_rows_times), written once over the ISA vocabulary (isa_avx2.hpp or isa_avx512.hpp, then
// cc_backward_isa.hpp) and included by cc_backward_avx2.cpp and cc_backward_products_avx512.cpp. A
// lane is one row (outer) or one column (times), and each sum runs in the same order on either ISA,
// so both give the same bits.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// partial rows [v0 * W, v0 * W + RB * W) (MASK: the last vector holds `valid` rows), columns
// [c0, c0 + C) (partial[c * rows + r]): each pixel's rows as vectors (dy is contiguous per pixel), its
// columns broadcast.
template <int RB, int C, bool MASK>
void outer_tile(const float* dy, i64 rows, const float* x, i64 cols, i64 count, i64 v0, i64 c0, i64 valid,
                double* partial) {
    vf acc[C * RB];
#pragma GCC unroll 24
    for (int k = 0; k < C * RB; ++k) acc[k] = zero();
    const vmask mask = lanes(valid);
    const float* d = dy + v0 * W;
    const float* xr = x + c0;
    for (i64 i = 0; i < count; ++i, d += rows, xr += cols) {
        vf dv[RB];
#pragma GCC unroll 4
        for (int b = 0; b < RB; ++b) dv[b] = MASK && b + 1 == RB ? load_masked(d + b * W, mask) : load(d + b * W);
#pragma GCC unroll 12
        for (int c = 0; c < C; ++c) {
            const vf v = broadcast(xr + c);
#pragma GCC unroll 4
            for (int b = 0; b < RB; ++b) acc[c * RB + b] = fma(v, dv[b], acc[c * RB + b]);
        }
    }
    // the partial column-major: a vector's rows are contiguous doubles
#pragma GCC unroll 12
    for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
        for (int b = 0; b < RB; ++b) {
            double* p = partial + (c0 + c) * rows + (v0 + b) * W;
            if (MASK && b + 1 == RB) {
                float out[W];
                store(out, acc[c * RB + b]);
                for (i64 k = 0; k < valid; ++k) p[k] += static_cast<double>(out[k]);
            } else {
                add_to_doubles(p, acc[c * RB + b]);
            }
        }
}

using OuterFn = void (*)(const float*, i64, const float*, i64, i64, i64, i64, i64, double*);

// &outer_tile<RB, c, MASK> for c in [1, C] (c a template argument).
template <int RB, bool MASK, int C>
OuterFn outer_for(i64 c) {
    if constexpr (C > 1)
        if (c < C) return outer_for<RB, MASK, C - 1>(c);
    return &outer_tile<RB, C, MASK>;
}

// out rows [r0, r0 + R), columns [c0, c0 + NB * W) (MASK: the last vector holds `valid` columns) of
// a [count][inner] times w [inner][cols]: the rows broadcast, w's rows as vectors. INNER: inner when
// known at compile time (the loop over it unrolled, the rows' broadcasts at fixed offsets), else 0.
template <int R, int NB, bool MASK, int INNER>
void times_tile(const float* a, i64 inner_runtime, const float* w, i64 cols, i64 r0, i64 c0, i64 valid, float* out) {
    const i64 inner = INNER > 0 ? INNER : inner_runtime;
    vf acc[R * NB];
#pragma GCC unroll 24
    for (int k = 0; k < R * NB; ++k) acc[k] = zero();
    const vmask mask = lanes(valid);
    const float* ar = a + r0 * inner;
    const float* wr = w + c0;
    for (i64 k = 0; k < inner; ++k, wr += cols) {
        vf wv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) wv[b] = MASK && b + 1 == NB ? load_masked(wr + b * W, mask) : load(wr + b * W);
#pragma GCC unroll 12
        for (int r = 0; r < R; ++r) {
            const vf v = broadcast(ar + r * inner + k);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[r * NB + b] = fma(v, wv[b], acc[r * NB + b]);
        }
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) {
            float* o = out + (r0 + r) * cols + c0 + b * W;
            if (MASK && b + 1 == NB)
                store_masked(o, mask, acc[r * NB + b]);
            else
                store(o, acc[r * NB + b]);
        }
}

using TimesFn = void (*)(const float*, i64, const float*, i64, i64, i64, i64, float*);

// &times_tile<r, NB, MASK, INNER> for r in [1, R].
template <int NB, bool MASK, int INNER, int R = kTileRows>
TimesFn times_for(i64 r) {
    if constexpr (R > 1)
        if (r < R) return times_for<NB, MASK, INNER, R - 1>(r);
    return &times_tile<R, NB, MASK, INNER>;
}
// inner = 32 at compile time ([dZ | dS] of the layers of docs/performance.md, Cout = 32: 81-84% -> 88-94%
// of an FMA loop's rate, convcheck_bench_cc_products; bench/results/cc-backward.md), else at run time
template <int NB, bool MASK>
TimesFn times_for_inner(i64 r, i64 inner) {
    return inner == 32 ? times_for<NB, MASK, 32>(r) : times_for<NB, MASK, 0>(r);
}

}  // namespace

void cc_outer_accumulate(const float* dy, i64 rows, const float* x, i64 cols, i64 count, double* partial) {
    // row vectors in pairs (the last vector masked), columns in groups of at most kTileRows per row vector
    // pair (2 kTileRows with one row vector: as many accumulators), of sizes as equal as may be (9 and 8
    // rather than 16 and 1: a group is one pass over the pixels, its chains as many as its accumulators);
    // the count x group columns of x and the count x 2 W rows of dy stay in L1 between passes
    const i64 vectors = (rows + W - 1) / W, valid = rows - (vectors - 1) * W;
    for (i64 v0 = 0; v0 < vectors; v0 += 2) {
        const i64 rb = vectors - v0 < 2 ? vectors - v0 : 2, most = rb == 1 ? 2 * kTileRows : kTileRows;
        const bool mask = v0 + rb == vectors && valid < W;
        balanced_groups(cols, most, [&](i64 c0, i64 c) {
            constexpr int one = 2 * kTileRows;
            const OuterFn f = rb == 1 ? (mask ? outer_for<1, true, one>(c) : outer_for<1, false, one>(c))
                                      : (mask ? outer_for<2, true, kTileRows>(c) : outer_for<2, false, kTileRows>(c));
            f(dy, rows, x, cols, count, v0, c0, valid, partial);
        });
    }
}

void cc_rows_times(const float* a, i64 count, i64 inner, const float* w, i64 cols, float* out) {
    // columns 2 vectors at a time (the last ones masked), outermost: the inner x 2 W slab of w stays in
    // L1 while the rows pass, kTileRows at a time
    for (i64 c0 = 0; c0 < cols; c0 += 2 * W) {
        const i64 rest = cols - c0 < 2 * W ? cols - c0 : 2 * W, nb = (rest + W - 1) / W, valid = rest - (nb - 1) * W;
        const bool mask = valid < W;
        for (i64 r0 = 0; r0 < count; r0 += kTileRows) {
            const i64 r = count - r0 < kTileRows ? count - r0 : kTileRows;
            const TimesFn f = nb == 1 ? (mask ? times_for_inner<1, true>(r, inner) : times_for_inner<1, false>(r, inner))
                                      : (mask ? times_for_inner<2, true>(r, inner) : times_for_inner<2, false>(r, inner));
            f(a, inner, w, cols, r0, c0, valid, out);
        }
    }
}

void cc_add_rows(const float* x, i64 rows, i64 cols, double* sums) {
    // WD columns at a time, their sums in registers over the rows; the last columns one at a time
    i64 c = 0;
    for (; c + WD <= cols; c += WD) {
        vd s = load_d(sums + c);
        for (i64 r = 0; r < rows; ++r) s = add_d(s, load_f_as_d(x + r * cols + c));
        store_d(sums + c, s);
    }
    for (; c < cols; ++c)
        for (i64 r = 0; r < rows; ++r) sums[c] += static_cast<double>(x[r * cols + c]);
}

double cc_sum32(const float* x, i64 n) {
    // 32 / WD vectors of doubles (independent chains: 16 lanes in 2 vectors were bound by the adds' latency)
    constexpr int V = 32 / WD;
    vd lane[V];
    for (int v = 0; v < V; ++v) lane[v] = broadcast_d(0.0);
    const auto add32 = [&](const float* at) {
        for (int v = 0; v < V; ++v) lane[v] = add_d(lane[v], load_f_as_d(at + v * WD));
    };
    i64 i = 0;
    for (; i + 32 <= n; i += 32) add32(x + i);
    if (i < n) {
        float tail[32] = {};  // (adding +0 changes no sum: each starts from +0)
        for (i64 k = 0; i + k < n; ++k) tail[k] = x[i + k];
        add32(tail);
    }
    double l[32];
    for (int v = 0; v < V; ++v) store_d(l + v * WD, lane[v]);
    for (int w = 16; w >= 1; w /= 2)
        for (int k = 0; k < w; ++k) l[k] += l[k + w];
    return l[0];
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
