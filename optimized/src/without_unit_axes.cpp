#include "without_unit_axes.hpp"

namespace convcheck::optimized::detail {

ConvDescriptor without_unit_axes(const ConvDescriptor& d) {
    ConvDescriptor out = d;
    int rank = 0;
    for (int a = 0; a < d.rank; ++a) {
        const bool unit = d.input_size[a] == 1 && d.kernel_size[a] == 1 && d.pads_begin[a] == 0 && d.pads_end[a] == 0;
        if (unit && !(rank == 0 && a == d.rank - 1)) continue;  // the last axis stays when all are unit axes
        out.input_size[rank] = d.input_size[a];
        out.kernel_size[rank] = d.kernel_size[a];
        out.strides[rank] = d.strides[a];
        out.dilations[rank] = d.dilations[a];
        out.pads_begin[rank] = d.pads_begin[a];
        out.pads_end[rank] = d.pads_end[a];
        ++rank;
    }
    for (int a = rank; a < 3; ++a) {
        out.input_size[a] = out.kernel_size[a] = out.strides[a] = out.dilations[a] = 1;
        out.pads_begin[a] = out.pads_end[a] = 0;
    }
    out.rank = rank;
    return out;
}

}  // namespace convcheck::optimized::detail
