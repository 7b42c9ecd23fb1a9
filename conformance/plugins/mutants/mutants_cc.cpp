// The mutants plugin's continuous convolution (seed 004, docs/cc.md): the projected grid (Eq. 2),
// the window g - k/2 <= m < g + k/2 (decided exactly in integers for an exact scale, with the
// ceiling tolerance for a real one), the kernel K(dy, dx) and the sum over the neighbours inside
// the input, in double. Each CC mutant is one marked deviation; honest_cc_f32 computes the
// distances, the weights and the sum in float.
#include <algorithm>
#include <cmath>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "mutants_impl.hpp"

namespace convcheck::mutants {

namespace {

using M = Mutant;

long long floor_div(long long a, long long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

Axis make_axis(const convcheck_cc_desc& d, int a, M m) {
    Axis axis;
    const long long in = d.input_size[a], out = d.output_size[a], k = d.support[a];
    axis.support = k;
    axis.taps = m == M::cc_window_overread ? k + 1 : k;
    const bool exact = d.scale_denominator[a] > 0;
    const long long p = d.scale_numerator[a], q = d.scale_denominator[a];
    long long grid_out = out;  // the output size Eq. 2 uses
    if (m == M::cc_output_size_ignored && exact) grid_out = -floor_div(-in * p, q);  // ceil(s * in)
    if (m == M::cc_real_ceil_exact && !exact) grid_out = static_cast<long long>(std::ceil(d.scale[a] * double(in)));
    const bool f32 = m == M::honest_cc_f32, exclusive = m == M::cc_window_exclusive;
    for (long long n = 0; n < out; ++n) {
        long long first;
        if (exact) {
            // g - k/2 = (2nq + (in-1)p - (out-1)q - kp) / (2p), an exact fraction
            const long long num = 2 * n * q + (in - 1) * p - (grid_out - 1) * q - k * p, den = 2 * p;
            first = exclusive ? floor_div(num, den) + 1 : -floor_div(-num, den);
            for (long long j = 0; j < axis.taps; ++j) {
                const long long D = num + k * p - den * (first + j);  // (g - m) * 2p, exactly
                axis.distance.push_back(f32 ? double(float(D) / float(den)) : double(D) / double(den));
            }
        } else if (f32) {
            const float s = static_cast<float>(d.scale[a]);
            const float g = float(n) / s + 0.5f * float(in - 1) - float(grid_out - 1) / (2.0f * s);
            first = static_cast<long long>(std::ceil(g - 0.5f * float(k)));
            for (long long j = 0; j < axis.taps; ++j) axis.distance.push_back(g - float(first + j));
        } else {
            const double s = d.scale[a];
            const double g = double(n) / s + 0.5 * double(in - 1) - double(grid_out - 1) / (2.0 * s);
            const double x = g - 0.5 * double(k);
            first = cc_ceil(x);
            if (exclusive && std::fabs(x - std::round(x)) <= kCcRealTolerance * std::max(1.0, std::fabs(x))) ++first;
            for (long long j = 0; j < axis.taps; ++j) axis.distance.push_back(g - double(first + j));
        }
        axis.first.push_back(first);
    }
    return axis;
}

namespace {

double kernel_1d(int kind, double t) {
    const double x = std::fabs(t), a = -0.5;
    if (kind == CONVCHECK_CC_LINEAR) return std::max(0.0, 1.0 - x);
    if (x <= 1.0) return (a + 2) * x * x * x - (a + 3) * x * x + 1;  // Keys cubic
    if (x < 2.0) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0.0;
}

// K(dy, dx) for every channel pair, w[cout * Cin + cin]; in float arithmetic for honest_cc_f32.
template <class T>
void evaluate_kernel(const convcheck_cc_desc& d, const float* theta, M m, T dy, T dx, std::vector<double>& w) {
    const long long pairs = d.in_channels * d.out_channels;
    w.assign(pairs, 0.0);
    if (m == M::cc_distance_sign) dy = -dy, dx = -dx;
    if (d.kernel_kind == CONVCHECK_CC_GAUSSIAN) {
        const T sigma = static_cast<T>(d.kernel_parameter);
        const T variance = m == M::cc_gaussian_variance ? sigma * sigma : 2 * sigma * sigma;
        std::fill(w.begin(), w.end(), double(std::exp(-(dy * dy + dx * dx) / variance)));
    } else if (d.kernel_kind != CONVCHECK_CC_INTERNAL_NET) {
        std::fill(w.begin(), w.end(), double(T(kernel_1d(d.kernel_kind, dy)) * T(kernel_1d(d.kernel_kind, dx))));
    } else {
        const long long h1 = d.hidden_widths[0], h2 = d.hidden_widths[1];
        const float *W1 = theta, *b1 = W1 + 2 * h1, *W2 = b1 + h1, *b2 = W2 + h2 * h1, *W3 = b2 + h2, *b3 = W3 + pairs * h2;
        const T slope = static_cast<T>(d.leaky_relu_slope);
        auto leaky = [&](T z) { return z < 0 ? slope * z : z; };
        std::vector<T> a1(h1), a2(h2);
        for (long long i = 0; i < h1; ++i) a1[i] = leaky(T(W1[2 * i]) * dy + T(W1[2 * i + 1]) * dx + T(b1[i]));
        for (long long i = 0; i < h2; ++i) {
            T z = b2[i];
            for (long long j = 0; j < h1; ++j) z += T(W2[i * h1 + j]) * a1[j];
            a2[i] = leaky(z);
        }
        for (long long c = 0; c < pairs; ++c) {
            T z = b3[c];
            for (long long j = 0; j < h2; ++j) z += T(W3[c * h2 + j]) * a2[j];
            long long index = c;  // net channel c = cout * Cin + cin is the (cout, cin) weight
            if (m == M::cc_channel_pairs_transposed) index = (c % d.out_channels) * d.in_channels + c / d.out_channels;
            w[index] = double(z);
        }
    }
}

}  // namespace

void cc_kernel(const convcheck_cc_desc& d, const float* theta, Mutant m, double dy, double dx, std::vector<double>& w) {
    if (m == M::honest_cc_f32) evaluate_kernel<float>(d, theta, m, float(dy), float(dx), w);
    else evaluate_kernel<double>(d, theta, m, dy, dx, w);
}

void compute_cc(const convcheck_cc_desc& d, const convcheck_cc_args& args, Mutant m) {
    const Axis ah = make_axis(d, 0, m), aw = make_axis(d, 1, m);
    const long long N = d.batch, Ci = d.in_channels, Co = d.out_channels, H = d.input_size[0], W = d.input_size[1];
    const long long OH = d.output_size[0], OW = d.output_size[1];
    const bool f32 = m == M::honest_cc_f32;
    const auto* src = static_cast<const float*>(args.src);
    const auto* bias = static_cast<const float*>(args.bias);
    auto* dst = static_cast<float*>(args.dst);
    std::vector<double> w, acc(N * Co);
    std::vector<float> acc32(N * Co);
    for (long long i = 0; i < OH; ++i)
        for (long long j = 0; j < OW; ++j) {
            std::fill(acc.begin(), acc.end(), 0.0);
            std::fill(acc32.begin(), acc32.end(), 0.0f);
            for (long long th = 0; th < ah.taps; ++th)
                for (long long tw = 0; tw < aw.taps; ++tw) {
                    long long mh = ah.first[i] + th, mw = aw.first[j] + tw;
                    if (m == M::cc_edge_replicate) mh = std::clamp(mh, 0LL, H - 1), mw = std::clamp(mw, 0LL, W - 1);
                    if (mh < 0 || mh >= H || mw < 0 || mw >= W) continue;  // zero padding
                    const double dy = ah.distance[i * ah.taps + th], dx = aw.distance[j * aw.taps + tw];
                    cc_kernel(d, args.theta, m, dy, dx, w);
                    if (th >= ah.support || tw >= aw.support) std::fill(w.begin(), w.end(), 0.0);  // the over-read
                    for (long long n = 0; n < N; ++n)
                        for (long long co = 0; co < Co; ++co)
                            for (long long ci = 0; ci < Ci; ++ci) {
                                const float x = src[((n * Ci + ci) * H + mh) * W + mw];
                                if (f32) acc32[n * Co + co] += x * float(w[co * Ci + ci]);
                                else acc[n * Co + co] += double(x) * w[co * Ci + ci];
                            }
                }
            for (long long n = 0; n < N; ++n)
                for (long long co = 0; co < Co; ++co) {
                    const double b = bias && m != M::cc_bias_dropped ? bias[co] : 0.0;
                    dst[((n * Co + co) * OH + i) * OW + j] =
                        f32 ? acc32[n * Co + co] + float(b) : static_cast<float>(acc[n * Co + co] + b);
                }
        }
}

}  // namespace convcheck::mutants
