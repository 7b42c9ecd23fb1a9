// Internal: the forward convolution's index set, the one piece that the forward sum and both
// backward sums walk, so that "the (y, k) pairs the forward sum pairs with x" is the same set by
// construction, not by a second copy of the index arithmetic.
//
// Seed 002 (oneDNN Graph Convolution), 1-based dilation, any rank (lifted to three axes):
//   dst(n, g*OC_G + oc_g, y) = sum_{ic_g < IC_G} sum_{k} src(n, g*IC_G + ic_g, y*S - P_L + k*D) * weights(oc, ic_g, k)
// over the taps k whose input position x = y*S - P_L + k*D lies inside [0, in) on every axis
// (zero padding; a negative P_L crops). Each (output, term) pair is one element of the set:
//   { (n, oc, y ; ic, k, x) : x = y*S - P_L + k*D, 0 <= x < in, ic in oc's group }.
// Offsets are canonical: src and dst NCX ([N][C][spatial...]), weights OIX ([O][I/G][k...]).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "convcheck/reference/convolution.hpp"
#include "geometry.hpp"

namespace convcheck::reference::detail {

// One output element (n, oc, y) of the forward sum; `dst` is its NCX offset.
struct Output {
    std::int64_t n = 0, group = 0, oc = 0, dst = 0;
    std::int64_t od = 0, oh = 0, ow = 0;
};

class ForwardIndexSet {
public:
    explicit ForwardIndexSet(const ConvDescriptor& d)
        : geo_(lift(d)),
          batch_(d.batch),
          groups_(d.groups),
          in_channels_(d.in_channels),
          out_channels_(d.out_channels),
          ic_per_group_(d.in_channels_per_group()),
          oc_per_group_(d.out_channels_per_group()) {}

    // Calls f(const Output&) for every output, in NCX order.
    template <class F>
    void for_each_output(F&& f) const {
        const std::int64_t OD = geo_.out[0], OH = geo_.out[1], OW = geo_.out[2];
        const std::int64_t N = batch_, G = groups_, OC_G = oc_per_group_, OC = out_channels_;
        Output y;
        for (y.n = 0; y.n < N; ++y.n)
        for (y.group = 0; y.group < G; ++y.group)
        for (std::int64_t oc_g = 0; oc_g < OC_G; ++oc_g)
        for (y.od = 0; y.od < OD; ++y.od)
        for (y.oh = 0; y.oh < OH; ++y.oh)
        for (y.ow = 0; y.ow < OW; ++y.ow) {
            y.oc = y.group * OC_G + oc_g;
            y.dst = (((y.n * OC + y.oc) * OD + y.od) * OH + y.oh) * OW + y.ow;
            f(static_cast<const Output&>(y));
        }
    }

    // The output at NCX offset `dst` (0 <= dst < N * OC * OD * OH * OW), as for_each_output gives it.
    Output output_at(std::int64_t dst) const {
        Output y;
        y.dst = dst;
        y.ow = dst % geo_.out[2], dst /= geo_.out[2];
        y.oh = dst % geo_.out[1], dst /= geo_.out[1];
        y.od = dst % geo_.out[0], dst /= geo_.out[0];
        y.oc = dst % out_channels_, y.n = dst / out_channels_;
        y.group = y.oc / oc_per_group_;
        return y;
    }

    // Calls f(src_offset, weights_offset) for every term of output y's sum, in the forward's order
    // (ic_g, then kd, kh, kw), skipping the taps that land in padding.
    template <class F>
    void for_each_term(const Output& y, F&& f) const {
        // local copies: the callback writes memory the compiler cannot tell apart from *this
        const std::int64_t ID = geo_.in[0], IH = geo_.in[1], IW = geo_.in[2];
        const std::int64_t KD = geo_.kernel[0], KH = geo_.kernel[1], KW = geo_.kernel[2];
        const std::int64_t SD = geo_.stride[0], SH = geo_.stride[1], SW = geo_.stride[2];
        const std::int64_t DD = geo_.dilation[0], DH = geo_.dilation[1], DW = geo_.dilation[2];
        const std::int64_t PD = geo_.pad_begin[0], PH = geo_.pad_begin[1], PW = geo_.pad_begin[2];
        const std::int64_t IC_G = ic_per_group_, IC = in_channels_;
        const std::int64_t od = y.od, oh = y.oh, ow = y.ow, n = y.n, oc = y.oc, g = y.group;
        for (std::int64_t ic_g = 0; ic_g < IC_G; ++ic_g)
        for (std::int64_t kd = 0; kd < KD; ++kd)
        for (std::int64_t kh = 0; kh < KH; ++kh)
        for (std::int64_t kw = 0; kw < KW; ++kw) {
            // id = od*SD - PD + kd*DD (seed 002: oh'' = oh*SH - PH_L + kh*DH, 1-based DH)
            const std::int64_t id = od * SD - PD + kd * DD;
            const std::int64_t ih = oh * SH - PH + kh * DH;
            const std::int64_t iw = ow * SW - PW + kw * DW;
            if (id < 0 || id >= ID || ih < 0 || ih >= IH || iw < 0 || iw >= IW) continue;  // zero padding
            const std::int64_t src = (((n * IC + g * IC_G + ic_g) * ID + id) * IH + ih) * IW + iw;
            const std::int64_t weights = (((oc * IC_G + ic_g) * KD + kd) * KH + kh) * KW + kw;
            f(src, weights);
        }
    }

private:
    Geometry3 geo_;
    std::int64_t batch_, groups_, in_channels_, out_channels_, ic_per_group_, oc_per_group_;
};

// The forward sum over this index set, one output at a time (convolution.cpp): output y's kernel,
// OIX ([O][I/G][k...]), starts at kernel_of(y): the same for every output of a convolution
// (convolution_summation), one per output position for a locally connected layer.
ConvResult sum_over_index_set(const ConvDescriptor& d, std::span<const double> src, std::span<const double> bias,
                              const std::function<const double*(const Output&)>& kernel_of);

}  // namespace convcheck::reference::detail
