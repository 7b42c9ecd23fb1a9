// The polyphase method's Internal-Net reverse in double (cc_net_reverse, cc_backward_kernels.hpp), written
// once in plain loops over the features (vectorised by the compiler) and included by
// cc_backward_reverse_avx2.cpp and cc_backward_reverse_avx512.cpp. Every sum runs in a fixed order: over
// the channels c = cout * Cin + cin in order (dz2), over the pairs in order (every parameter's gradient),
// over m in order (dz1); FMA throughout, so both ISAs give the same bits. With h2 = 16, 8 pairs (dz2; 4 on AVX2)
// or 8 channels (dW3; 4 on AVX2) at once, the 16 features in vectors; any other width in plain loops. In three steps
// (cc_backward_kernels.hpp): a pair's dz2 and a channel's dW3 depend on no other pair's or channel's
// work, so any split of the pairs or of the channels among tasks gives the same bits.
#include <cmath>

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// The scratch's arrays: per pair the first layer's output, LeakyReLU'(z1), dz1 ([n][h1] each), then the
// same for the second layer ([n][h2] each); then the first layers' sums in double (reverse_first).
struct ReverseScratch {
    double *a1, *d1, *dz1, *a2, *d2, *dz2;
    ReverseScratch(double* s, i64 n, i64 h1, i64 h2)
        : a1(s), d1(a1 + n * h1), dz1(d1 + n * h1), a2(dz1 + n * h1), d2(a2 + n * h2), dz2(d2 + n * h2) {}
};

// Pairs with the register tiles below: P at once in dz2_group (P H / WD accumulators: 16 of AVX-512's 32
// registers with 8 pairs; AVX2's 16 registers take 4), channels in reverse_last (one vector of doubles:
// their db3 sums side by side).
constexpr int kReversePairs = WD == 8 ? 8 : 4;

// dz2 of pairs [k, k + P) (reverse_pairs, H > 0): W3's row in vectors, g broadcast, the channels in order.
// W3 (Cout Cin H doubles, beyond L1) passes once per P pairs.
template <int H, int P>
void dz2_group(const CcNetReverse& q, i64 k, const double* __restrict d2, double* __restrict dz2) {
    constexpr int V = H / WD;
    const CcKernelParams& p = *q.net;
    const i64 Cin = p.in_channels, Cout = p.out_channels, row = q.taps * Cin;
    const double* __restrict W3 = p.W3.data();
    vd acc[P * V];
    for (int a = 0; a < P * V; ++a) acc[a] = broadcast_d(0.0);
    for (i64 co = 0; co < Cout; ++co) {
        const double* g[P];
        for (int j = 0; j < P; ++j) g[j] = q.g + ((k + j) / q.taps * Cout + co) * row + (k + j) % q.taps * Cin;
        const double* w3 = W3 + co * Cin * H;
        for (i64 ci = 0; ci < Cin; ++ci) {
            vd w[V];
            for (int v = 0; v < V; ++v) w[v] = load_d(w3 + ci * H + v * WD);
            for (int j = 0; j < P; ++j) {
                const vd b = broadcast_d(g[j][ci]);
                for (int v = 0; v < V; ++v) acc[j * V + v] = fma_d(b, w[v], acc[j * V + v]);
            }
        }
    }
    for (int j = 0; j < P; ++j)
        for (int v = 0; v < V; ++v) store_d(dz2 + (k + j) * H + v * WD, acc[j * V + v]);
    for (i64 m = 0; m < P * H; ++m) dz2[k * H + m] *= d2[k * H + m];
}

// Pairs [k0, k1): the net's forward (b + W x, x in order; LeakyReLU'(z) = 1 for z > 0, else the slope),
// then dz2 = LeakyReLU'(z2) (W3^T g), the channels in order (H: the second hidden width when known at
// compile time, else 0; then dz2_group).
template <int H>
void reverse_pairs(const CcNetReverse& q, i64 k0, i64 k1, double* scratch) {
    const CcKernelParams& p = *q.net;
    const i64 h1 = p.h1, h2 = H > 0 ? H : p.h2, Cin = p.in_channels, Cout = p.out_channels;
    const i64 row = q.taps * Cin;  // the partial's row: [phase][cout][tap * Cin + cin]
    const double slope = p.slope;
    const ReverseScratch s(scratch, q.count, h1, h2);
    double* __restrict a1 = s.a1;
    double* __restrict d1 = s.d1;
    double* __restrict a2 = s.a2;
    double* __restrict d2 = s.d2;
    double* __restrict dz2 = s.dz2;
    const double* __restrict W3 = p.W3.data();
    // pair k's g at channel cout * Cin + cin: q.g + (k / taps * Cout + cout) * row + k % taps * Cin + cin
    const auto g_of = [&](i64 k, i64 co) { return q.g + (k / q.taps * Cout + co) * row + k % q.taps * Cin; };
    for (i64 k = k0; k < k1; ++k) {
        const double dy = q.pairs[2 * k], dx = q.pairs[2 * k + 1];
        for (i64 j = 0; j < h1; ++j) {
            const double z = std::fma(p.W1[2 * j + 1], dx, std::fma(p.W1[2 * j], dy, p.b1[j]));
            a1[k * h1 + j] = z >= 0.0 ? z : slope * z;
            d1[k * h1 + j] = z > 0.0 ? 1.0 : slope;
        }
        for (i64 m = 0; m < h2; ++m) {
            double z = p.b2[m];
            for (i64 j = 0; j < h1; ++j) z = std::fma(p.W2[m * h1 + j], a1[k * h1 + j], z);
            a2[k * h2 + m] = z >= 0.0 ? z : slope * z;
            d2[k * h2 + m] = z > 0.0 ? 1.0 : slope;
        }
    }
    i64 k = k0;
    if constexpr (H > 0 && H % WD == 0) {
        for (; k + kReversePairs <= k1; k += kReversePairs) dz2_group<H, kReversePairs>(q, k, d2, dz2);
        for (; k + 4 <= k1; k += 4) dz2_group<H, 4>(q, k, d2, dz2);
    }
    for (; k < k1; ++k) {
        double* __restrict sum = dz2 + k * h2;
        for (i64 m = 0; m < h2; ++m) sum[m] = 0.0;
        for (i64 co = 0; co < Cout; ++co) {
            const double* g = g_of(k, co);
            const double* w3 = W3 + co * Cin * h2;
            for (i64 ci = 0; ci < Cin; ++ci)
                for (i64 m = 0; m < h2; ++m) sum[m] = std::fma(g[ci], w3[ci * h2 + m], sum[m]);
        }
        for (i64 m = 0; m < h2; ++m) sum[m] *= d2[k * h2 + m];
    }
}

// dW3 = g a2^T, db3 = the sum of g for channels cout in [co0, co1): per channel, the pairs in order (H: WD
// input channels at once, a2 in vectors, g broadcast; k / taps and k % taps stepped, not divided), from 0,
// rounded to f32 into diff_theta (the ABI order).
template <int H>
void reverse_last(const CcNetReverse& q, i64 co0, i64 co1, const double* scratch, float* diff_theta) {
    const CcKernelParams& p = *q.net;
    const i64 h1 = p.h1, h2 = H > 0 ? H : p.h2, Cin = p.in_channels, Cout = p.out_channels, C = Cin * Cout;
    const i64 n = q.count, row = q.taps * Cin;
    const double* __restrict a2 = scratch + 3 * n * h1;  // ReverseScratch's a2
    float* __restrict tw3 = diff_theta + 3 * h1 + h2 * (h1 + 1);  // W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[C][h2], b3[C]
    float* __restrict tb3 = tw3 + C * h2;
    for (i64 co = co0; co < co1; ++co) {
        i64 ci0 = 0;
        if constexpr (H > 0 && H % WD == 0) {
            // WD input channels at once (their db3 one vector: each lane's sum over the pairs in order)
            constexpr int V = H / WD;
            for (; ci0 + WD <= Cin; ci0 += WD) {
                vd acc[WD * V];
                vd b = broadcast_d(0.0);
                for (int a = 0; a < WD * V; ++a) acc[a] = broadcast_d(0.0);
                const double* g = q.g + co * row + ci0;
                for (i64 k = 0, t = 0; k < n; ++k) {
                    vd a[V];
                    for (int v = 0; v < V; ++v) a[v] = load_d(a2 + k * h2 + v * WD);
                    for (int j = 0; j < WD; ++j) {
                        const vd gv = broadcast_d(g[t * Cin + j]);
                        for (int v = 0; v < V; ++v) acc[j * V + v] = fma_d(gv, a[v], acc[j * V + v]);
                    }
                    b = add_d(b, load_d(g + t * Cin));
                    if (++t == q.taps) {
                        t = 0;
                        g += Cout * row;
                    }
                }
                for (int j = 0; j < WD; ++j)
                    for (int v = 0; v < V; ++v) store_d_as_f(tw3 + (co * Cin + ci0 + j) * h2 + v * WD, acc[j * V + v]);
                store_d_as_f(tb3 + co * Cin + ci0, b);
            }
        }
        for (i64 ci = ci0; ci < Cin; ++ci) {
            double w3[64];  // h2 <= 64 here, or in parts below
            double b = 0.0;
            for (i64 m0 = 0; m0 < h2; m0 += 64) {
                const i64 m1 = m0 + 64 < h2 ? m0 + 64 : h2;
                for (i64 m = m0; m < m1; ++m) w3[m - m0] = 0.0;
                const double* g = q.g + co * row + ci;
                for (i64 k = 0, t = 0; k < n; ++k) {
                    for (i64 m = m0; m < m1; ++m) w3[m - m0] = std::fma(g[t * Cin], a2[k * h2 + m], w3[m - m0]);
                    if (m0 == 0) b += g[t * Cin];
                    if (++t == q.taps) {
                        t = 0;
                        g += Cout * row;
                    }
                }
                for (i64 m = m0; m < m1; ++m) tw3[(co * Cin + ci) * h2 + m] = static_cast<float>(w3[m - m0]);
            }
            tb3[co * Cin + ci] = static_cast<float>(b);
        }
    }
}

// dz1 = LeakyReLU'(z1) (W2^T dz2), m in order; then dW2 = dz2 a1^T, db2 = the sum of dz2, dW1 = dz1
// D^T, db1 = the sum of dz1: the pairs in order, in double from 0 (after the scratch's arrays: the sums
// of the pairs vectorise over the features), rounded to f32 into diff_theta.
template <int H>
void reverse_first(const CcNetReverse& q, double* scratch, float* diff_theta) {
    const CcKernelParams& p = *q.net;
    const i64 h1 = p.h1, h2 = H > 0 ? H : p.h2, n = q.count;
    const ReverseScratch s(scratch, n, h1, h2);
    double* __restrict dz1 = s.dz1;
    const double* __restrict a1 = s.a1;
    const double* __restrict d1 = s.d1;
    const double* __restrict dz2 = s.dz2;
    for (i64 k = 0; k < n; ++k) {
        for (i64 j = 0; j < h1; ++j) dz1[k * h1 + j] = 0.0;
        for (i64 m = 0; m < h2; ++m)
            for (i64 j = 0; j < h1; ++j) dz1[k * h1 + j] = std::fma(p.W2[m * h1 + j], dz2[k * h2 + m], dz1[k * h1 + j]);
        for (i64 j = 0; j < h1; ++j) dz1[k * h1 + j] *= d1[k * h1 + j];
    }
    // the ABI order W1[h1][2], b1[h1], W2[h2][h1], b2[h2]
    const i64 size = 3 * h1 + h2 * (h1 + 1);
    double* __restrict t = s.dz2 + n * h2;
    double* __restrict tw1 = t;
    double* __restrict tb1 = tw1 + 2 * h1;
    double* __restrict tw2 = tb1 + h1;
    double* __restrict tb2 = tw2 + h2 * h1;
    for (i64 i = 0; i < size; ++i) t[i] = 0.0;
    for (i64 k = 0; k < n; ++k) {
        for (i64 m = 0; m < h2; ++m) {
            const double g = dz2[k * h2 + m];
            for (i64 j = 0; j < h1; ++j) tw2[m * h1 + j] = std::fma(g, a1[k * h1 + j], tw2[m * h1 + j]);
            tb2[m] += g;
        }
        for (i64 j = 0; j < h1; ++j) {
            const double g = dz1[k * h1 + j];
            tw1[2 * j] = std::fma(g, q.pairs[2 * k], tw1[2 * j]);
            tw1[2 * j + 1] = std::fma(g, q.pairs[2 * k + 1], tw1[2 * j + 1]);
            tb1[j] += g;
        }
    }
    for (i64 i = 0; i < size; ++i) diff_theta[i] = static_cast<float>(t[i]);
}

}  // namespace

void cc_net_reverse_pairs(const CcNetReverse& q, i64 k0, i64 k1, double* scratch) {
    if (q.net->h2 == 16)
        reverse_pairs<16>(q, k0, k1, scratch);
    else
        reverse_pairs<0>(q, k0, k1, scratch);
}

void cc_net_reverse_last(const CcNetReverse& q, i64 co0, i64 co1, const double* scratch, float* diff_theta) {
    if (q.net->h2 == 16)
        reverse_last<16>(q, co0, co1, scratch, diff_theta);
    else
        reverse_last<0>(q, co0, co1, scratch, diff_theta);
}

void cc_net_reverse_first(const CcNetReverse& q, double* scratch, float* diff_theta) {
    if (q.net->h2 == 16)
        reverse_first<16>(q, scratch, diff_theta);
    else
        reverse_first<0>(q, scratch, diff_theta);
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
