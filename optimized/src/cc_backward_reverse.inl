// The polyphase method's Internal-Net reverse in double (cc_net_reverse, cc_backward_kernels.hpp), written
// once in plain loops over the features (vectorised by the compiler) and included by
// cc_backward_reverse_avx2.cpp and cc_backward_reverse_avx512.cpp. Every sum runs in a fixed order: over
// the channels c = cout * Cin + cin in order (dz2), over the pairs in order (every parameter's gradient),
// over m in order (dz1); FMA throughout, so both ISAs give the same bits. With h2 = 16, 4 pairs (dz2) or
// 4 channels (dW3) at once, the 16 features in vectors; any other width in plain loops.
#include <cmath>

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// H: the second hidden width when known at compile time (its short loops then unrolled, the sums in
// registers), else 0.
template <int H>
void reverse(const CcNetReverse& q, double* __restrict theta, double* __restrict scratch) {
    const CcKernelParams& p = *q.net;
    const i64 h1 = p.h1, h2 = H > 0 ? H : p.h2, Cin = p.in_channels, Cout = p.out_channels, C = Cin * Cout;
    const i64 n = q.count;
    const i64 row = q.taps * Cin;  // the partial's row: [phase][cout][tap * Cin + cin]
    const double slope = p.slope;
    double* __restrict a1 = scratch;  // [n][h1]: the first layer's output, then LeakyReLU'(z1), then dz1
    double* __restrict d1 = a1 + n * h1;
    double* __restrict dz1 = d1 + n * h1;
    double* __restrict a2 = dz1 + n * h1;  // [n][h2]: the same for the second layer
    double* __restrict d2 = a2 + n * h2;
    double* __restrict dz2 = d2 + n * h2;
    const double* __restrict W3 = p.W3.data();
    // pair k's g at channel cout * Cin + cin: q.g + (k / taps * Cout + cout) * row + k % taps * Cin + cin
    const auto g_of = [&](i64 k, i64 co) { return q.g + (k / q.taps * Cout + co) * row + k % q.taps * Cin; };
    // the net's forward at every pair (b + W x, x in order), LeakyReLU'(z) = 1 for z > 0, else the slope
    for (i64 k = 0; k < n; ++k) {
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
    double* __restrict tw1 = theta;  // the ABI order W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[C][h2], b3[C]
    double* __restrict tb1 = tw1 + 2 * h1;
    double* __restrict tw2 = tb1 + h1;
    double* __restrict tb2 = tw2 + h2 * h1;
    double* __restrict tw3 = tb2 + h2;
    double* __restrict tb3 = tw3 + C * h2;
    // dz2 = LeakyReLU'(z2) (W3^T g): per pair, the channels in order (H: 4 pairs at once, W3's row in
    // vectors, g broadcast)
    i64 k0 = 0;
    if constexpr (H > 0 && H % WD == 0) {
        constexpr int V = H / WD;
        for (; k0 + 4 <= n; k0 += 4) {
            vd acc[4 * V];
            for (int a = 0; a < 4 * V; ++a) acc[a] = broadcast_d(0.0);
            for (i64 co = 0; co < Cout; ++co) {
                const double* g[4] = {g_of(k0, co), g_of(k0 + 1, co), g_of(k0 + 2, co), g_of(k0 + 3, co)};
                const double* w3 = W3 + co * Cin * h2;
                for (i64 ci = 0; ci < Cin; ++ci) {
                    vd w[V];
                    for (int v = 0; v < V; ++v) w[v] = load_d(w3 + ci * h2 + v * WD);
                    for (int j = 0; j < 4; ++j) {
                        const vd b = broadcast_d(g[j][ci]);
                        for (int v = 0; v < V; ++v) acc[j * V + v] = fma_d(b, w[v], acc[j * V + v]);
                    }
                }
            }
            for (int j = 0; j < 4; ++j)
                for (int v = 0; v < V; ++v) store_d(dz2 + (k0 + j) * h2 + v * WD, acc[j * V + v]);
            for (i64 m = 0; m < 4 * h2; ++m) dz2[k0 * h2 + m] *= d2[k0 * h2 + m];
        }
    }
    for (i64 k = k0; k < n; ++k) {
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
    // dW3 += g a2^T, db3 += g: per channel, the pairs in order (H: 4 input channels at once, a2 in
    // vectors, g broadcast; k / taps and k % taps stepped, not divided)
    for (i64 co = 0; co < Cout; ++co) {
        i64 ci0 = 0;
        if constexpr (H > 0 && H % WD == 0) {
            constexpr int V = H / WD;
            for (; ci0 + 4 <= Cin; ci0 += 4) {
                vd acc[4 * V];
                double b[4];
                for (int j = 0; j < 4; ++j) {
                    for (int v = 0; v < V; ++v) acc[j * V + v] = load_d(tw3 + (co * Cin + ci0 + j) * h2 + v * WD);
                    b[j] = tb3[co * Cin + ci0 + j];
                }
                const double* g = q.g + co * row + ci0;
                for (i64 k = 0, t = 0; k < n; ++k) {
                    vd a[V];
                    for (int v = 0; v < V; ++v) a[v] = load_d(a2 + k * h2 + v * WD);
                    for (int j = 0; j < 4; ++j) {
                        const vd gv = broadcast_d(g[t * Cin + j]);
                        for (int v = 0; v < V; ++v) acc[j * V + v] = fma_d(gv, a[v], acc[j * V + v]);
                        b[j] += g[t * Cin + j];
                    }
                    if (++t == q.taps) {
                        t = 0;
                        g += Cout * row;
                    }
                }
                for (int j = 0; j < 4; ++j) {
                    for (int v = 0; v < V; ++v) store_d(tw3 + (co * Cin + ci0 + j) * h2 + v * WD, acc[j * V + v]);
                    tb3[co * Cin + ci0 + j] = b[j];
                }
            }
        }
        for (i64 ci = ci0; ci < Cin; ++ci) {
            double* __restrict w3 = tw3 + (co * Cin + ci) * h2;
            double b = tb3[co * Cin + ci];
            const double* g = q.g + co * row + ci;
            for (i64 k = 0, t = 0; k < n; ++k) {
                for (i64 m = 0; m < h2; ++m) w3[m] = std::fma(g[t * Cin], a2[k * h2 + m], w3[m]);
                b += g[t * Cin];
                if (++t == q.taps) {
                    t = 0;
                    g += Cout * row;
                }
            }
            tb3[co * Cin + ci] = b;
        }
    }
    // dz1 = LeakyReLU'(z1) (W2^T dz2), m in order
    for (i64 k = 0; k < n; ++k) {
        for (i64 j = 0; j < h1; ++j) dz1[k * h1 + j] = 0.0;
        for (i64 m = 0; m < h2; ++m)
            for (i64 j = 0; j < h1; ++j) dz1[k * h1 + j] = std::fma(p.W2[m * h1 + j], dz2[k * h2 + m], dz1[k * h1 + j]);
        for (i64 j = 0; j < h1; ++j) dz1[k * h1 + j] *= d1[k * h1 + j];
    }
    // dW2 += dz2 a1^T, db2 += dz2, dW1 += dz1 D^T, db1 += dz1: the pairs in order
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
}

}  // namespace

void cc_net_reverse(const CcNetReverse& q, double* theta, double* scratch) {
    if (q.net->h2 == 16)
        reverse<16>(q, theta, scratch);
    else
        reverse<0>(q, theta, scratch);
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
