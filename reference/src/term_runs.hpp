// Internal: the forward index set (index_set.hpp) walked in runs, for the parallel, vectorized
// forward sum (convolution.cpp). The same (output, term) pairs as ForwardIndexSet::for_each_term,
//   { (n, oc, y ; ic, k, x) : x = y*S - P_L + k*D, 0 <= x < in, ic in oc's group },
// grouped differently: term position (ic_g, kd, kh, kw) by term position, in the forward's order, and
// for each, the outputs of one output row (n, oc, od, oh) whose tap x lands inside the input. Along a
// row those outputs are one contiguous run of ow, because iw = ow*SW - PW + kw*DW grows with ow.
// Every output therefore meets its own terms in exactly for_each_term's order; only different
// outputs interleave, and they never share an accumulator.
#pragma once

#include <algorithm>
#include <cstdint>

#include "index_set.hpp"

namespace convcheck::reference::detail {

// `count` outputs of one row, at NCX offsets dst, dst+1, ...: the j-th adds the term
// src[src + j*src_step] * weights[weights] (canonical NCX / OIX offsets).
struct TermRun {
    std::int64_t dst = 0, count = 0, src = 0, src_step = 1, weights = 0;
};

class ForwardTermRuns {
public:
    explicit ForwardTermRuns(const ConvDescriptor& d)
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

    // Calls f(const TermRun&) for every term of every output in rows [row_begin, row_end) of `plane`,
    // term position by term position in the forward's order (ic_g, then kd, kh, kw), skipping the
    // taps that land in padding.
    template <class F>
    void for_each_run(std::int64_t plane, std::int64_t row_begin, std::int64_t row_end, F&& f) const {
        const std::int64_t ID = geo_.in[0], IH = geo_.in[1], IW = geo_.in[2];
        const std::int64_t OH = geo_.out[1], OW = geo_.out[2];
        const std::int64_t KD = geo_.kernel[0], KH = geo_.kernel[1], KW = geo_.kernel[2];
        const std::int64_t SD = geo_.stride[0], SH = geo_.stride[1], SW = geo_.stride[2];
        const std::int64_t DD = geo_.dilation[0], DH = geo_.dilation[1], DW = geo_.dilation[2];
        const std::int64_t PD = geo_.pad_begin[0], PH = geo_.pad_begin[1], PW = geo_.pad_begin[2];
        const std::int64_t IC_G = ic_per_group_, IC = in_channels_;
        const std::int64_t n = plane / out_channels_, oc = plane % out_channels_, g = oc / oc_per_group_;
        TermRun t;
        t.src_step = SW;
        for (std::int64_t ic_g = 0; ic_g < IC_G; ++ic_g)
        for (std::int64_t kd = 0; kd < KD; ++kd)
        for (std::int64_t kh = 0; kh < KH; ++kh)
        for (std::int64_t kw = 0; kw < KW; ++kw) {
            // the outputs whose iw = ow*SW - PW + kw*DW lies in [0, IW): ow in [ow_begin, ow_end)
            const std::int64_t shift = PW - kw * DW;
            const std::int64_t ow_begin = std::max<std::int64_t>(0, ceil_div(shift, SW));
            const std::int64_t ow_end = std::min(OW, ceil_div(IW + shift, SW));
            if (ow_begin >= ow_end) continue;  // this tap is in padding for the whole row
            t.count = ow_end - ow_begin;
            t.weights = (((oc * IC_G + ic_g) * KD + kd) * KH + kh) * KW + kw;
            for (std::int64_t row = row_begin; row < row_end; ++row) {
                const std::int64_t od = row / OH, oh = row % OH;
                // id = od*SD - PD + kd*DD (seed 002: oh'' = oh*SH - PH_L + kh*DH, 1-based DH)
                const std::int64_t id = od * SD - PD + kd * DD;
                const std::int64_t ih = oh * SH - PH + kh * DH;
                if (id < 0 || id >= ID || ih < 0 || ih >= IH) continue;  // zero padding
                const std::int64_t iw = ow_begin * SW - PW + kw * DW;
                t.src = (((n * IC + g * IC_G + ic_g) * ID + id) * IH + ih) * IW + iw;
                t.dst = (plane * rows() + row) * OW + ow_begin;
                f(static_cast<const TermRun&>(t));
            }
        }
    }

private:
    // ceil(a / b) for b > 0 and any sign of a
    static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

    Geometry3 geo_;
    std::int64_t out_channels_, in_channels_, ic_per_group_, oc_per_group_, planes_;
};

}  // namespace convcheck::reference::detail
