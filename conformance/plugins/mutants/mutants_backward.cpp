// The mutants plugin's backward passes (docs/passes.md), plain loops over the forward's own index set
// (the pairs x = y*s - pb + k*d on every axis), accumulated in float in a fixed order and rounded once:
//   backward data     diff_src[n, g*ICg+ic, x] = sum_{oc, k} diff_dst[n, g*OCg+oc, y] * W[g*OCg+oc, ic, k]
//   backward weights  diff_W[o, ic, k]        = sum_{n, y} src[n, g*ICg+ic, x] * diff_dst[n, o, y]
//   backward bias     diff_b[o]               = sum_{n, y} diff_dst[n, o, y]
// Each backward mutant is one marked deviation; the honest variants sum another way (reversed, in double,
// with FMA, in blocks of 16). The forward mutants do not touch these passes.
#include <cmath>

#include "mutants_problem.hpp"

namespace convcheck::mutants {

namespace {

// Sums `count` products a*b (term(i, &a, &b) is false for a term that is not in the sum) in the order and
// precision of the mutant: in float, the storage type (half accumulation), FMA, double, or blocks of 16.
template <typename Term>
double reduce(const Problem& p, M m, bool half, long long count, Term term) {
    float sum = 0.0f, block_sum = 0.0f;
    double sum64 = 0.0;
    for (long long j = 0; j < count; ++j) {
        const long long i = m == M::honest_reverse_order ? count - 1 - j : j;
        float a = 0.0f, b = 0.0f;
        if (term(i, &a, &b)) {
            if (m == M::honest_fma) sum = std::fma(a, b, sum);
            else if (m == M::honest_f64_accumulation) sum64 += double(a) * double(b);
            else if (m == M::honest_blocked_sums) block_sum += a * b;
            else sum += a * b;
            if (half) sum = static_cast<float>(round_to(p.dt, sum));
        }
        if (m == M::honest_blocked_sums && j % 16 == 15) sum += block_sum, block_sum = 0.0f;
    }
    if (m == M::honest_blocked_sums) sum += block_sum;
    return m == M::honest_f64_accumulation ? sum64 : double(sum);
}

Dims unflatten(long long flat, const Dims& dims) {
    return {flat / (dims[1] * dims[2]), (flat / dims[2]) % dims[1], flat % dims[2]};
}
long long flatten(const Dims& x, const Dims& dims) { return (x[0] * dims[1] + x[1]) * dims[2] + x[2]; }

void backward_data(const Problem& p, const convcheck_conv_args& a, M m) {
    const bool ungrouped = m == M::bwd_data_groups_ignored;
    const long long channels = ungrouped ? p.O : p.OCg;  // the output channels summed into one input channel
    for (long long n = 0; n < p.N; ++n)
        for (long long c = 0; c < p.C; ++c)
            for (long long xs = 0; xs < p.in_spatial; ++xs) {
                const Dims x = unflatten(xs, p.in);
                const long long g = c / p.ICg, ic = c % p.ICg;
                const double v = reduce(p, m, false, channels * p.k_spatial, [&](long long i, float* dy, float* w) {
                    const long long o = ungrouped ? i / p.k_spatial : g * p.OCg + i / p.k_spatial, kx = i % p.k_spatial;
                    // output channels in blocks of 8: the last partial block dropped when there is a full one
                    if (m == M::bwd_data_out_tail_dropped_8 && p.OCg > 8 && i / p.k_spatial >= p.OCg / 8 * 8) return false;
                    const Dims kk = unflatten(kx, p.k);
                    Dims y{};
                    bool outside = false;  // y off the output: no term (bwd_data_clamped_tap: a term times 0)
                    for (int ax = 0; ax < 3; ++ax) {
                        const long long dil = m == M::bwd_data_dilation_ignored ? 1 : p.dil[ax];
                        const long long t = x[ax] + p.pb[ax] - kk[ax] * dil;  // = y * s when y pairs with x
                        if (t % p.s[ax] != 0 && m != M::bwd_data_stride_remainder) return false;
                        y[ax] = t / p.s[ax];
                        if (t < 0 || y[ax] >= p.out[ax]) {
                            if (m != M::bwd_data_clamped_tap) return false;
                            outside = true;
                            y[ax] = t < 0 ? 0 : p.out[ax] - 1;
                        }
                    }
                    const long long wk = m == M::bwd_data_kernel_not_flipped ? p.k_spatial - 1 - kx : kx;
                    *dy = p.load(a.dst, p.dst_index(n, o, flatten(y, p.out)));
                    *w = outside ? 0.0f : p.load(a.weights, p.weights_index(o, ic, wk));
                    if (m == M::bwd_data_zero_weight_skipped && *w == 0.0f) return false;
                    if (m == M::bwd_data_zero_diff_dst_skipped && *dy == 0.0f) return false;
                    return true;
                });
                store_from_double(a.diff_src, p.dt, p.src_index(n, c, xs), round_to(p.dt, v));
            }
}

void backward_weights(const Problem& p, const convcheck_conv_args& a, M m) {
    const bool half = m == M::bwd_weights_half_accumulation && p.dt != DataType::f32;
    for (long long o = 0; o < p.O; ++o)
        for (long long ic = 0; ic < p.ICg; ++ic)
            for (long long kx = 0; kx < p.k_spatial; ++kx) {
                // input channels in blocks of 8: the last partial block never written when there is a full one
                if (m == M::bwd_weights_in_tail_dropped_8 && p.ICg > 8 && ic >= p.ICg / 8 * 8) continue;
                const long long c = o / p.OCg * p.ICg + ic;
                const Dims kk = unflatten(kx, p.k);
                const long long images = m == M::bwd_weights_first_image ? 1 : p.N;
                const double v = reduce(p, m, half, images * p.out_spatial, [&](long long i, float* x_value, float* dy) {
                    const long long n = i / p.out_spatial, ys = i % p.out_spatial;
                    const Dims y = unflatten(ys, p.out);
                    Dims x{};
                    for (int ax = 0; ax < 3; ++ax) {
                        x[ax] = y[ax] * p.s[ax] - p.pb[ax] + kk[ax] * p.dil[ax];
                        if (x[ax] < 0 || x[ax] >= p.in[ax]) return false;
                        // the first output a tap reaches past the begin pad: ceil(before / s), taken as
                        // floor + 1, which skips it when s divides `before`
                        const long long before = p.pb[ax] - kk[ax] * p.dil[ax];
                        if (m == M::bwd_weights_border_off_by_one && before > 0 && before % p.s[ax] == 0 &&
                            y[ax] == before / p.s[ax])
                            return false;
                    }
                    *x_value = p.load(a.src, p.src_index(n, c, flatten(x, p.in)));
                    *dy = p.load(a.dst, p.dst_index(n, o, ys));
                    if (m == M::bwd_weights_zero_src_skipped && *x_value == 0.0f) return false;
                    if (m == M::bwd_weights_zero_diff_dst_skipped && *dy == 0.0f) return false;
                    return true;
                });
                store_from_double(a.diff_weights, p.dt, p.weights_index(o, ic, kx), round_to(p.dt, v));
            }
    if (!p.d.has_bias) return;
    for (long long o = 0; o < p.O; ++o) {
        const long long images = m == M::bwd_bias_first_image ? 1 : p.N;
        const double v = reduce(p, m, half, images * p.out_spatial, [&](long long i, float* dy, float* one) {
            *dy = p.load(a.dst, p.dst_index(i / p.out_spatial, o, i % p.out_spatial));
            *one = 1.0f;
            return true;
        });
        store_from_double(a.diff_bias, p.dt, o, m == M::bwd_bias_dropped ? 0.0 : round_to(p.dt, v));
    }
}

}  // namespace

void compute_backward(const convcheck_conv_desc& desc, const convcheck_conv_args& args, Mutant mutant) {
    // the forward mutants' deviations stay out of the backward passes; the backward ones with 32-bit offsets
    // hold their offsets as offsets_int32 does
    const bool data = desc.prop_kind == CONVCHECK_BACKWARD_DATA;
    const bool int32 = mutant == (data ? M::bwd_data_offsets_int32 : M::bwd_weights_offsets_int32);
    const Problem p(desc, int32 ? M::offsets_int32 : M::none);
    if (data) backward_data(p, args, mutant);
    else backward_weights(p, args, mutant);
}

}  // namespace convcheck::mutants
