// The mutants plugin's CC backward pass (ABI 1.4, docs/cc-backward.md): its own loops over the same
// window and kernel as its forward (mutants_cc.cpp), in double (honest_cc_f32: distances, weights,
// the Internal-Net and every sum in float):
//   diff_src[n, ci, m] = sum over (o, k) with neighbour m of sum_co dY[n, co, o] W[co, ci](D)
//   g[co, ci](o, k)    = sum_n dY[n, co, o] N[n, ci, k, o], then the Internal-Net in reverse for diff_theta
//   diff_bias[co]      = sum over n and o of dY[n, co, o]
// Each CC backward mutant is one marked deviation.
#include <algorithm>
#include <cmath>
#include <vector>

#include "mutants_impl.hpp"

namespace convcheck::mutants {

namespace {

using M = Mutant;

// The Internal-Net at one distance pair, forward then reverse: adds J_theta(D)^T g to diff_theta.
template <class T>
void net_backward(const convcheck_cc_desc& d, const float* theta, T dy, T dx, const std::vector<T>& g,
                  std::vector<T>& diff_theta) {
    const long long h1 = d.hidden_widths[0], h2 = d.hidden_widths[1], C = d.in_channels * d.out_channels;
    const float *W1 = theta, *b1 = W1 + 2 * h1, *W2 = b1 + h1, *b2 = W2 + h2 * h1, *W3 = b2 + h2;
    T *dW1 = diff_theta.data(), *db1 = dW1 + 2 * h1, *dW2 = db1 + h1, *db2 = dW2 + h2 * h1, *dW3 = db2 + h2,
      *db3 = dW3 + C * h2;
    const T slope = static_cast<T>(d.leaky_relu_slope);
    std::vector<T> z1(h1), a1(h1), z2(h2), a2(h2), dz2(h2, T(0)), dz1(h1, T(0));
    for (long long i = 0; i < h1; ++i) {
        z1[i] = T(W1[2 * i]) * dy + T(W1[2 * i + 1]) * dx + T(b1[i]);
        a1[i] = z1[i] > 0 ? z1[i] : slope * z1[i];
    }
    for (long long j = 0; j < h2; ++j) {
        z2[j] = b2[j];
        for (long long i = 0; i < h1; ++i) z2[j] += T(W2[j * h1 + i]) * a1[i];
        a2[j] = z2[j] > 0 ? z2[j] : slope * z2[j];
    }
    for (long long c = 0; c < C; ++c) {  // w = W3 a2 + b3
        db3[c] += g[c];
        for (long long j = 0; j < h2; ++j) {
            dW3[c * h2 + j] += g[c] * a2[j];
            dz2[j] += T(W3[c * h2 + j]) * g[c];
        }
    }
    for (long long j = 0; j < h2; ++j) {  // a2 = LeakyReLU(z2), z2 = W2 a1 + b2
        if (!(z2[j] > 0)) dz2[j] *= slope;
        db2[j] += dz2[j];
        for (long long i = 0; i < h1; ++i) {
            dW2[j * h1 + i] += dz2[j] * a1[i];
            dz1[i] += T(W2[j * h1 + i]) * dz2[j];
        }
    }
    for (long long i = 0; i < h1; ++i) {  // a1 = LeakyReLU(z1), z1 = W1 D + b1
        if (!(z1[i] > 0)) dz1[i] *= slope;
        db1[i] += dz1[i];
        dW1[2 * i] += dz1[i] * dy;
        dW1[2 * i + 1] += dz1[i] * dx;
    }
}

template <class T>
void cc_backward(const convcheck_cc_desc& d, const convcheck_cc_backward_args& args, M m) {
    const Axis ah = make_axis(d, 0, m), aw = make_axis(d, 1, m);
    const long long N = d.batch, Ci = d.in_channels, Co = d.out_channels, H = d.input_size[0], W = d.input_size[1];
    const long long OH = d.output_size[0], OW = d.output_size[1];
    const bool net = d.kernel_kind == CONVCHECK_CC_INTERNAL_NET;
    const auto* src = static_cast<const float*>(args.src);
    const auto* dY = static_cast<const float*>(args.diff_dst);
    std::vector<T> dsrc(N * Ci * H * W, T(0)), dtheta, g(Ci * Co);
    long long theta_elements = 0;
    if (net) {
        const long long h1 = d.hidden_widths[0], h2 = d.hidden_widths[1];
        theta_elements = 2 * h1 + h1 + h2 * h1 + h2 + Ci * Co * h2 + Ci * Co;
        dtheta.assign(theta_elements, T(0));
    }
    // cc_bwd_theta_first_image: the weights' gradient reduced over image 0 only
    const long long theta_images = m == M::cc_bwd_theta_first_image ? 1 : N;
    // cc_bwd_window_overscatter: one more neighbour per axis, weighed 0, scattered into diff_src only
    const long long extra = m == M::cc_bwd_window_overscatter ? 1 : 0;
    std::vector<double> w;
    for (long long i = 0; i < OH; ++i)
        for (long long j = 0; j < OW; ++j) {
            // cc_bwd_border_src_dropped: an output whose window reaches outside the input scatters nothing
            const bool border = ah.first[i] < 0 || ah.first[i] + ah.support > H || aw.first[j] < 0 ||
                                aw.first[j] + aw.support > W;
            for (long long th = 0; th < ah.support + extra; ++th)
                for (long long tw = 0; tw < aw.support + extra; ++tw) {
                    const long long mh = ah.first[i] + th, mw = aw.first[j] + tw;
                    if (mh < 0 || mh >= H || mw < 0 || mw >= W) continue;  // zero padding: no input pixel
                    if (th == ah.support || tw == aw.support) {  // the extra neighbour: dY * 0, right unless dY is NaN
                        for (long long n = 0; n < N; ++n)
                            for (long long co = 0; co < Co; ++co)
                                for (long long ci = 0; ci < Ci; ++ci)
                                    dsrc[((n * Ci + ci) * H + mh) * W + mw] += T(dY[((n * Co + co) * OH + i) * OW + j]) * T(0);
                        continue;
                    }
                    const double dy = ah.distance[i * ah.taps + th], dx = aw.distance[j * aw.taps + tw];
                    cc_kernel(d, args.theta, m, dy, dx, w);
                    std::fill(g.begin(), g.end(), T(0));
                    for (long long n = 0; n < N; ++n)
                        for (long long co = 0; co < Co; ++co) {
                            const T y = dY[((n * Co + co) * OH + i) * OW + j];
                            for (long long ci = 0; ci < Ci; ++ci) {
                                if (!(m == M::cc_bwd_border_src_dropped && border))
                                    dsrc[((n * Ci + ci) * H + mh) * W + mw] += y * T(w[co * Ci + ci]);
                                if (n < theta_images) g[co * Ci + ci] += y * T(src[((n * Ci + ci) * H + mh) * W + mw]);
                            }
                        }
                    if (m == M::cc_bwd_theta_nan_clamped)  // gradient clipping by fmax/fmin: NaN comes out -1e30
                        for (T& x : g) x = std::fmin(std::fmax(x, T(-1e30)), T(1e30));
                    if (net) net_backward<T>(d, args.theta, T(dy), T(dx), g, dtheta);
                }
        }
    auto* diff_src = static_cast<float*>(args.diff_src);
    for (std::size_t i = 0; i < dsrc.size(); ++i) diff_src[i] = static_cast<float>(dsrc[i]);
    for (long long i = 0; i < theta_elements; ++i) args.diff_theta[i] = static_cast<float>(dtheta[i]);
    if (d.has_bias) {
        auto* diff_bias = static_cast<float*>(args.diff_bias);
        for (long long co = 0; co < Co; ++co) {
            T sum = 0;
            for (long long n = 0; n < N; ++n)
                for (long long o = 0; o < OH * OW; ++o) sum += dY[(n * Co + co) * OH * OW + o];
            diff_bias[co] = static_cast<float>(sum);
        }
    }
}

}  // namespace

void compute_cc_backward(const convcheck_cc_desc& d, const convcheck_cc_backward_args& args, Mutant m) {
    if (m == M::honest_cc_f32) cc_backward<float>(d, args, m);
    else cc_backward<double>(d, args, m);
}

}  // namespace convcheck::mutants
