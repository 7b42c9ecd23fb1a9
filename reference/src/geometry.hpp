// Internal: a descriptor's spatial attributes lifted to exactly three axes (depth, height, width),
// unit axes prepended for rank 1 and 2, so one loop nest serves every rank.
#pragma once

#include <array>
#include <cstdint>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference::detail {

struct Geometry3 {
    std::array<std::int64_t, 3> in{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1},
        pad_begin{0, 0, 0}, out{1, 1, 1};
};

inline Geometry3 lift(const ConvDescriptor& d) {
    Geometry3 g;
    const int shift = 3 - d.rank;
    for (int a = 0; a < d.rank; ++a) {
        g.in[shift + a] = d.input_size[a];
        g.kernel[shift + a] = d.kernel_size[a];
        g.stride[shift + a] = d.strides[a];
        g.dilation[shift + a] = d.dilations[a];
        g.pad_begin[shift + a] = d.pads_begin[a];
        g.out[shift + a] = d.output_size(a);
    }
    return g;
}

}  // namespace convcheck::reference::detail
