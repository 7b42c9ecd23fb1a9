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

struct Geometry {
    std::int64_t g = -1, mb = 2, ic = 0, oc = 0;  // g = -1 while not given
    std::array<Axis, 3> axis;                    // benchdnn's d, h, w; the problem's axes are the last `rank`
    int rank = 0;
    std::string name;                            // as written after `n`
    bool g_given = false;
};

// Reads, deduces and checks one problem string as `driver` does; throws ConvError naming the benchdnn field.
Geometry read_geometry(std::string_view text, BenchdnnDriver driver);

// benchdnn's short form of a geometry (desc_t's operator<<: print_dhw, strides and dilations only when not
// default) followed by n"name" when a name is given; `g` is printed when groups != 1.
std::string print_geometry(const Geometry& geometry, std::string_view name);

}  // namespace convcheck::benchdnn_detail
