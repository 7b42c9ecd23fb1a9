// Reading 1 of the backward passes, fast: the same sums as the literal walk (backward.cpp,
// backward_*_walk), each gradient element adding its own terms one at a time in the walk's order, only
// grouped so that many elements advance together.
//
//   backward weights  diff_weights(oc, ic_g, k) = sum over the outputs y of oc, in (n, od, oh, ow) order,
//                     of src(n, ic, x(y, k)) * diff_dst(n, oc, y)      (the walk meets them in that order)
//   backward data     diff_src(n, ic, x) = sum over (oc_g, then y) in increasing order of
//                     diff_dst(n, oc, y) * weights(oc, ic_g, k), over the y that reach x with some tap k:
//                     y = (x + P_L - k*D) / S exactly, so increasing y is decreasing k on each axis
//                     (oc_g ascending, then kd, kh, kw descending).
#include <algorithm>
#include <cmath>
#include <vector>

#include "chunk_sums.hpp"
#include "convcheck/reference/backward.hpp"
#include "geometry.hpp"
#include "gradient_arrays.hpp"
#include "row_terms.hpp"

namespace convcheck::reference {

namespace {

using detail::ChunkTerm;
using i64 = std::int64_t;

// a mod b in [0, b) for b > 0 and any sign of a
i64 floor_mod(i64 a, i64 b) { return ((a % b) + b) % b; }

// L elements of one output channel's diff_weights (input channels ic_g .. ic_g+L-1 of tap k): each adds
// src[x + j*plane + ow*SW] * dy[ow] for ow in [lo, hi), in that order.
template <int L>
void add_row_products(const double* x, i64 plane, i64 SW, const double* dy, i64 lo, i64 hi, double* values,
                      double* magnitude, std::int64_t* terms, i64 element_step) {
    double s[L], m[L];
    for (int j = 0; j < L; ++j) s[j] = values[j * element_step], m[j] = magnitude[j * element_step];
    for (i64 ow = lo; ow < hi; ++ow) {
        const double d = dy[ow];
#pragma GCC unroll 4
        for (int j = 0; j < L; ++j) {
            const double product = x[j * plane + ow * SW] * d;
            s[j] += product;
            m[j] += std::fabs(product);
        }
    }
    for (int j = 0; j < L; ++j) values[j * element_step] = s[j], magnitude[j * element_step] = m[j], terms[j * element_step] += hi - lo;
}

}  // namespace

GradientResult backward_weights_summation(const ConvDescriptor& d, std::span<const double> src,
                                          std::span<const double> diff_dst) {
    detail::check_canonical_size("src", src.size(), d.src_elements());
    detail::check_canonical_size("diff_dst", diff_dst.size(), d.dst_elements());
    const detail::Geometry3 geo = detail::lift(d);
    const i64 ID = geo.in[0], IH = geo.in[1], IW = geo.in[2], OD = geo.out[0], OH = geo.out[1], OW = geo.out[2];
    const i64 KD = geo.kernel[0], KH = geo.kernel[1], KW = geo.kernel[2], K = KD * KH * KW;
    const i64 IC = d.in_channels, OC = d.out_channels, IC_G = d.in_channels_per_group(), OC_G = d.out_channels_per_group();
    const i64 plane = ID * IH * IW;
    const detail::ForwardRowTerms rows_of(d);
    GradientResult r = detail::zero_gradient(d.weights_elements());
    // one block per output channel: its IC_G * K elements (OIX), each summed over (n, od, oh, ow) in order
    detail::for_each_block(OC, 0, d.dst_elements() * IC_G * K, [&](i64 oc) {
        const i64 g = oc / OC_G, first = oc * IC_G * K;
        double* const values = r.values.data() + first;
        double* const magnitude = r.magnitude.data() + first;
        std::int64_t* const terms = r.terms.data() + first;
        for (i64 n = 0; n < d.batch; ++n)
        for (i64 od = 0; od < OD; ++od)
        for (i64 oh = 0; oh < OH; ++oh) {
            const double* dy = diff_dst.data() + (((n * OC + oc) * OD + od) * OH + oh) * OW;
            for (i64 kd = 0; kd < KD; ++kd) {
                const i64 id = od * geo.stride[0] - geo.pad_begin[0] + kd * geo.dilation[0];
                if (id < 0 || id >= ID) continue;  // zero padding
                for (i64 kh = 0; kh < KH; ++kh) {
                    const i64 ih = oh * geo.stride[1] - geo.pad_begin[1] + kh * geo.dilation[1];
                    if (ih < 0 || ih >= IH) continue;
                    for (i64 kw = 0; kw < KW; ++kw) {
                        // iw = ow*SW - PW + kw*DW inside [0, IW) for ow in [lo, hi)
                        const i64 shift = geo.pad_begin[2] - kw * geo.dilation[2], SW = geo.stride[2];
                        const auto [lo, hi] = rows_of.tap_columns(kw);
                        if (lo == hi) continue;
                        const i64 k = (kd * KH + kh) * KW + kw;
                        const auto x_at = [&](i64 ic_g) {
                            return src.data() + (((n * IC + g * IC_G + ic_g) * ID + id) * IH + ih) * IW - shift;
                        };
                        i64 ic_g = 0;
                        for (; ic_g + 4 <= IC_G; ic_g += 4)
                            add_row_products<4>(x_at(ic_g), plane, SW, dy, lo, hi, values + ic_g * K + k,
                                                magnitude + ic_g * K + k, terms + ic_g * K + k, K);
                        for (; ic_g < IC_G; ++ic_g)
                            add_row_products<1>(x_at(ic_g), plane, SW, dy, lo, hi, values + ic_g * K + k,
                                                magnitude + ic_g * K + k, terms + ic_g * K + k, K);
                    }
                }
            }
        }
    });
    return r;
}

GradientResult backward_data_summation(const ConvDescriptor& d, std::span<const double> diff_dst,
                                       std::span<const double> weights) {
    detail::check_canonical_size("diff_dst", diff_dst.size(), d.dst_elements());
    detail::check_canonical_size("weights", weights.size(), d.weights_elements());
    const detail::Geometry3 geo = detail::lift(d);
    const i64 ID = geo.in[0], IH = geo.in[1], IW = geo.in[2], OD = geo.out[0], OH = geo.out[1], OW = geo.out[2];
    const i64 KD = geo.kernel[0], KH = geo.kernel[1], KW = geo.kernel[2];
    const i64 SD = geo.stride[0], SH = geo.stride[1], SW = geo.stride[2];
    const i64 IC = d.in_channels, OC = d.out_channels, IC_G = d.in_channels_per_group(), OC_G = d.out_channels_per_group();
    GradientResult r = detail::zero_gradient(d.src_elements());
    // rows (n, ic, xd, xh) of diff_src in blocks of about 512 elements
    const i64 rows = d.batch * IC * ID * IH, rows_per_block = std::max<i64>(1, 512 / IW);
    // column xw = phase + SW*m: a tap kw reaches it when xw + PW - kw*DW = yw*SW, i.e. only the taps of the
    // column's phase, from yw = c + m with c = (phase + PW - kw*DW) / SW, for the m in `ranges` that put yw
    // inside [0, OW). The same for every row.
    struct Phase {
        i64 lanes = 0;
        std::vector<bool> reaches;
        std::vector<i64> c;
        std::vector<detail::LaneRange> ranges;
    };
    std::vector<Phase> phases(static_cast<std::size_t>(std::min(SW, IW)));
    for (i64 phase = 0; phase < static_cast<i64>(phases.size()); ++phase) {
        Phase& p = phases[phase];
        p.lanes = (IW - phase + SW - 1) / SW;
        for (i64 kw = 0; kw < KW; ++kw) {
            const i64 v = phase + geo.pad_begin[2] - kw * geo.dilation[2];
            p.reaches.push_back(floor_mod(v, SW) == 0);
            p.c.push_back(v / SW);  // exact where it reaches
            const i64 begin = std::clamp<i64>(-p.c[kw], 0, p.lanes);
            p.ranges.push_back({begin, std::clamp<i64>(OW - p.c[kw], begin, p.lanes)});
        }
    }
    detail::for_each_block((rows + rows_per_block - 1) / rows_per_block, 0,
                           d.src_elements() * OC_G * (d.weights_elements() / (OC * IC_G)), [&](i64 block) {
        std::vector<ChunkTerm> terms;
        std::vector<i64> kws;
        detail::RowTermList phase_terms;
        for (i64 row = block * rows_per_block; row < std::min(rows, (block + 1) * rows_per_block); ++row) {
            const i64 xh = row % IH, xd = row / IH % ID, ic = row / (IH * ID) % IC, n = row / (IH * ID * IC);
            const i64 g = ic / IC_G, ic_g = ic % IC_G;
            // the row's terms in the walk's order: oc_g ascending, then kd, kh, kw descending (y ascending)
            terms.clear(), kws.clear();
            for (i64 oc_g = 0; oc_g < OC_G; ++oc_g) {
                const i64 oc = g * OC_G + oc_g;
                for (i64 kd = KD - 1; kd >= 0; --kd) {
                    const i64 yd_s = xd + geo.pad_begin[0] - kd * geo.dilation[0];  // yd * SD
                    if (yd_s < 0 || yd_s % SD != 0 || yd_s / SD >= OD) continue;
                    for (i64 kh = KH - 1; kh >= 0; --kh) {
                        const i64 yh_s = xh + geo.pad_begin[1] - kh * geo.dilation[1];
                        if (yh_s < 0 || yh_s % SH != 0 || yh_s / SH >= OH) continue;
                        for (i64 kw = KW - 1; kw >= 0; --kw) {
                            terms.push_back({(((n * OC + oc) * OD + yd_s / SD) * OH + yh_s / SH) * OW,
                                             (((oc * IC_G + ic_g) * KD + kd) * KH + kh) * KW + kw});
                            kws.push_back(kw);
                        }
                    }
                }
            }
            const i64 first = row * IW;
            for (i64 phase = 0; phase < static_cast<i64>(phases.size()); ++phase) {
                const Phase& p = phases[phase];
                phase_terms.clear();
                for (std::size_t t = 0; t < terms.size(); ++t)
                    if (p.reaches[kws[t]]) phase_terms.add(terms[t].in + p.c[kws[t]], terms[t].weights, kws[t]);
                detail::add_row_terms(phase_terms, p.ranges.data(), p.lanes, diff_dst.data(), 0, 1, weights.data(),
                                      r.values.data() + first + phase, r.magnitude.data() + first + phase,
                                      r.terms.data() + first + phase, SW);
            }
        }
    });
    return r;
}

}  // namespace convcheck::reference
