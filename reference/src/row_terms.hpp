// Internal: the forward index set (index_set.hpp) walked row by row, for the parallel, vectorized
// forward sum (convolution.cpp). The same (output, term) pairs as ForwardIndexSet::for_each_term,
//   { (n, oc, y ; ic, k, x) : x = y*S - P_L + k*D, 0 <= x < in, ic in oc's group },
// grouped differently: for one output row (n, oc, od, oh), the term positions (ic_g, kd, kh, kw) whose
// input row (id, ih) exists, in the forward's order; output column ow of the row pairs with those of
// them whose input column iw = ow*SW - PW + kw*DW lies in [0, IW) (all of them in the row's interior).
// Every output therefore meets its own terms in exactly for_each_term's order.
#pragma once

#include <algorithm>
#include <cstdint>

#include "chunk_sums.hpp"
#include "index_set.hpp"

namespace convcheck::reference::detail {

class ForwardRowTerms {
public:
    explicit ForwardRowTerms(const ConvDescriptor& d)
        : geo_(lift(d)),
          out_channels_(d.out_channels),
          in_channels_(d.in_channels),
          ic_per_group_(d.in_channels_per_group()),
          oc_per_group_(d.out_channels_per_group()),
          planes_(d.batch * d.out_channels) {}

    // The output planes (n, oc), plane = n*OC + oc, each of rows() rows (od, oh) of row_width() outputs.
    std::int64_t planes() const { return planes_; }
    std::int64_t rows() const { return geo_.out[0] * geo_.out[1]; }
    std::int64_t row_width() const { return geo_.out[2]; }
    std::int64_t out_channel(std::int64_t plane) const { return plane % out_channels_; }
    // The src offset between two neighbouring output columns: the stride along w.
    std::int64_t column_step() const { return geo_.stride[2]; }

    std::int64_t kernel_width() const { return geo_.kernel[2]; }

    // The output columns [begin, end) whose input column for tap kw, iw = ow*SW - PW + kw*DW, lies in [0, IW).
    LaneRange tap_columns(std::int64_t kw) const {
        const std::int64_t shift = geo_.pad_begin[2] - kw * geo_.dilation[2], OW = geo_.out[2];
        const std::int64_t begin = std::clamp<std::int64_t>(ceil_div(shift, geo_.stride[2]), 0, OW);
        return {begin, std::clamp<std::int64_t>(ceil_div(geo_.in[2] + shift, geo_.stride[2]), begin, OW)};
    }

    // Calls f(src, weights, kw) for every term position of row `row` of `plane` whose input row exists,
    // in the forward's order (ic_g, then kd, kh, kw): output column ow adds src[src + ow*SW] *
    // weights[weights] when its input column is inside the input (canonical NCX / OIX offsets; src is
    // the offset at ow = 0).
    template <class F>
    void for_each_row_term(std::int64_t plane, std::int64_t row, F&& f) const {
        const std::int64_t ID = geo_.in[0], IH = geo_.in[1], IW = geo_.in[2], OH = geo_.out[1];
        const std::int64_t KD = geo_.kernel[0], KH = geo_.kernel[1], KW = geo_.kernel[2];
        const std::int64_t IC_G = ic_per_group_, IC = in_channels_;
        const std::int64_t n = plane / out_channels_, oc = plane % out_channels_, g = oc / oc_per_group_;
        const std::int64_t od = row / OH, oh = row % OH;
        for (std::int64_t ic_g = 0; ic_g < IC_G; ++ic_g)
        for (std::int64_t kd = 0; kd < KD; ++kd)
        for (std::int64_t kh = 0; kh < KH; ++kh) {
            // id = od*SD - PD + kd*DD (seed 002: oh'' = oh*SH - PH_L + kh*DH, 1-based DH)
            const std::int64_t id = od * geo_.stride[0] - geo_.pad_begin[0] + kd * geo_.dilation[0];
            const std::int64_t ih = oh * geo_.stride[1] - geo_.pad_begin[1] + kh * geo_.dilation[1];
            if (id < 0 || id >= ID || ih < 0 || ih >= IH) continue;  // zero padding
            for (std::int64_t kw = 0; kw < KW; ++kw)
                f((((n * IC + g * IC_G + ic_g) * ID + id) * IH + ih) * IW - geo_.pad_begin[2] + kw * geo_.dilation[2],
                  (((oc * IC_G + ic_g) * KD + kd) * KH + kh) * KW + kw, kw);
        }
    }

private:
    // ceil(a / b) for b > 0 and any sign of a
    static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

    Geometry3 geo_;
    std::int64_t out_channels_, in_channels_, ic_per_group_, oc_per_group_, planes_;
};

}  // namespace convcheck::reference::detail
