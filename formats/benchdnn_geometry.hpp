// The geometry of one benchdnn problem string as benchdnn's conv and deconv drivers read it
// (conv/conv_aux.cpp and deconv/deconv_aux.cpp: str2desc, sanitize_desc, desc_t::init_pad_r; oneDNN v3.7.1):
// the two drivers scan the same entries and share every rule but two formulas, which `driver` chooses:
//
//                      conv                                   deconv (the roles of i and o swap)
//   missing output     (i - K + 2p) / s + 1  (C division)     (i - 1)*s + K - 2p   ((i-1)*s + (k-1)*(d+1) - 2p + 1)
//   missing left pad   ((o - 1)*s - i + K) / 2                ((i - 1)*s - o + K) / 2
//   right pad          (o - 1)*s - i + K - p                  (i - 1)*s - o + K - p
//
// with K = (k-1)*(d+1)+1 and benchdnn's 0-based dilation d. oneDNN's convolution and deconvolution
// descriptors then both demand p >= 0 and right pad + s > 0 (src/common/convolution.cpp, deconvolution.cpp).
// Private to convcheck_formats: benchdnn.cpp (conv) and benchdnn_deconv.cpp build their descriptors on it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "convcheck/formats/benchdnn.hpp"

namespace convcheck::benchdnn_detail {

// One spatial axis as benchdnn holds it: 0-based dilation, pad -1 while not given, right pad deduced.
struct Axis {
    std::int64_t i = 0, o = 0, k = 0, s = 1, p = -1, d = 0;
    std::int64_t p_r = 0;
};

struct ProblemFields {
    std::int64_t g = -1, mb = 2, ic = 0, oc = 0;  // g = -1 while not given
    std::array<Axis, 3> axis;                    // benchdnn's d, h, w; the problem's axes are the last `rank`
    int rank = 0;
    std::string name;                            // as written after `n`
    bool g_given = false;
};

// Reads, deduces and checks one problem string as `driver` does; throws ConvError naming the benchdnn field.
ProblemFields read_geometry(std::string_view text, BenchdnnDriver driver);

// The fields ConvDescriptor and TransposedDescriptor share, from a geometry read by read_geometry: the axes
// (the last `rank` of benchdnn's d, h, w), canonical 1-based dilation, left and right pads, and the settings.
template <class Descriptor>
void fill_descriptor(const ProblemFields& g, const BenchdnnSettings& settings, Descriptor& d) {
    d.rank = g.rank;
    d.batch = g.mb;
    d.in_channels = g.ic;
    d.out_channels = g.oc;
    d.groups = g.g;
    for (int a = 0; a < g.rank; ++a) {
        const Axis& x = g.axis[3 - g.rank + a];
        d.input_size[a] = x.i;
        d.kernel_size[a] = x.k;
        d.strides[a] = x.s;
        d.dilations[a] = x.d + 1;  // benchdnn 0-based -> canonical 1-based (read_geometry checked the overflow)
        d.pads_begin[a] = x.p;
        d.pads_end[a] = x.p_r;
    }
    d.has_bias = settings.has_bias;
    d.dtype = settings.dtype;
    d.data_format = settings.data_format;
    d.filter_format = settings.filter_format;
}

// A canonical descriptor's geometry as `driver` would read it back: its output sizes and left pads, and the
// right pad the driver deduces from them (the smallest that gives those outputs). Throws ConvError for what
// benchdnn cannot express: a negative left pad, or a right pad with pad + stride <= 0.
template <class Descriptor>
ProblemFields geometry_of(const Descriptor& d, BenchdnnDriver driver) {
    ProblemFields g;
    g.rank = d.rank;
    g.g = d.groups;
    g.mb = d.batch;
    g.ic = d.in_channels;
    g.oc = d.out_channels;
    for (int a = 0; a < d.rank; ++a) {
        const std::string attribute = "[" + std::to_string(a) + "]";
        if (d.pads_begin[a] < 0)
            throw ConvError("pads_begin" + attribute, std::to_string(d.pads_begin[a]),
                            "benchdnn cannot express a negative left pad");
        Axis& x = g.axis[3 - d.rank + a];
        x = Axis{d.input_size[a], d.output_size(a), d.kernel_size[a], d.strides[a], d.pads_begin[a], d.dilations[a] - 1};
        // conv: (o-1)*s - i + K - p; deconv: (i-1)*s - o + K - p
        x.p_r = (driver == BenchdnnDriver::conv ? (x.o - 1) * x.s - x.i : (x.i - 1) * x.s - x.o) +
                d.dilated_kernel(a) - x.p;
        if (x.p_r + x.s <= 0)
            throw ConvError("pads_end" + attribute, std::to_string(d.pads_end[a]),
                            "benchdnn would deduce the right pad " + std::to_string(x.p_r) +
                                ", and oneDNN requires right pad + stride > 0");
    }
    return g;
}

// benchdnn's short form of a geometry (desc_t's operator<<: print_dhw, strides and dilations only when not
// default) followed by n"name" when a name is given; `g` is printed when groups != 1.
std::string print_geometry(const ProblemFields& geometry, std::string_view name);

}  // namespace convcheck::benchdnn_detail
