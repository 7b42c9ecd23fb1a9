// Internal: the forward index set (index_set.hpp) walked row by row, for the parallel, vectorized
// forward sum (fast_summation.cpp). The same (output, term) pairs as ForwardIndexSet::for_each_term,
//   { (n, oc, y ; ic, k, x) : x = y*S - P_L + k*D, 0 <= x < in, ic in oc's group },
// grouped differently: for one output row (n, oc, od, oh), the term positions (ic_g, kd, kh, kw) whose
// input row (id, ih) exists, in the forward's order; output column ow of the row pairs with those of
// them whose input column iw = ow*SW - PW + kw*DW lies in [0, IW) (all of them in the row's interior).
// Every output therefore meets its own terms in exactly for_each_term's order.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

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

    // The output rows of one od that may be summed as one run of lanes: with a 1x1 kernel along h and w,
    // unit strides, no begin pads and OW = IW, output (oh, ow) reads input (oh, ow) for every term, so
    // row oh's lanes continue row oh-1's in src as in dst (a pointwise convolution). 1 otherwise.
    std::int64_t rows_per_run() const {
        const bool pointwise = geo_.kernel[1] == 1 && geo_.kernel[2] == 1 && geo_.stride[1] == 1 &&
                               geo_.stride[2] == 1 && geo_.pad_begin[1] == 0 && geo_.pad_begin[2] == 0 &&
                               geo_.out[2] == geo_.in[2] && geo_.out[1] <= geo_.in[1];
        return pointwise ? geo_.out[1] : 1;
    }

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

    // Rows with the same key have the same term positions (the same taps (kd, kh) have their input row): their
    // lists differ only by where the row starts in src (row_shift), as every offset above is linear in n, g,
    // od and oh. The key: the range of taps kd, then kh, whose input row exists.
    std::array<std::int64_t, 4> row_key(std::int64_t row) const {
        const std::int64_t od = row / geo_.out[1], oh = row % geo_.out[1];
        const auto [d_begin, d_end] = taps_inside(0, od);
        const auto [h_begin, h_end] = taps_inside(1, oh);
        return {d_begin, d_end, h_begin, h_end};
    }
    // What to add to the src offsets of row `like` of plane 0 to get those of row `row` of `plane`.
    std::int64_t row_shift(std::int64_t plane, std::int64_t row, std::int64_t like) const {
        return row_origin(plane, row) - row_origin(0, like);
    }
    // What to add to the weights offsets of plane 0 (oc = 0) to get those of `plane`.
    std::int64_t weights_shift(std::int64_t plane) const {
        return out_channel(plane) * ic_per_group_ * geo_.kernel[0] * geo_.kernel[1] * geo_.kernel[2];
    }

private:
    // The taps [begin, end) along `axis` (0: d, 1: h) whose input coordinate o*S - P + k*D lies inside.
    std::pair<std::int64_t, std::int64_t> taps_inside(int axis, std::int64_t o) const {
        std::int64_t begin = geo_.kernel[axis], end = 0;
        for (std::int64_t k = 0; k < geo_.kernel[axis]; ++k) {
            const std::int64_t i = o * geo_.stride[axis] - geo_.pad_begin[axis] + k * geo_.dilation[axis];
            if (i >= 0 && i < geo_.in[axis]) begin = std::min(begin, k), end = k + 1;
        }
        return {std::min(begin, end), end};
    }
    // The part of for_each_row_term's src offset that depends on the row and plane, not on the term.
    std::int64_t row_origin(std::int64_t plane, std::int64_t row) const {
        const std::int64_t IH = geo_.in[1], IW = geo_.in[2], OH = geo_.out[1];
        const std::int64_t n = plane / out_channels_, g = plane % out_channels_ / oc_per_group_;
        return ((n * in_channels_ + g * ic_per_group_) * geo_.in[0] + row / OH * geo_.stride[0]) * IH * IW +
               row % OH * geo_.stride[1] * IW;
    }

    // ceil(a / b) for b > 0 and any sign of a
    static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

    Geometry3 geo_;
    std::int64_t out_channels_, in_channels_, ic_per_group_, oc_per_group_, planes_;
};

}  // namespace convcheck::reference::detail
