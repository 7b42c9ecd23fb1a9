#include "inside_macs.hpp"

namespace convcheck::bench {

double inside_macs(const ConvDescriptor& d) {
    double pairs = 1;
    for (int a = 0; a < d.rank; ++a) {
        std::int64_t inside = 0;
        for (std::int64_t o = 0; o < d.output_size(a); ++o)
            for (std::int64_t k = 0; k < d.kernel_size[a]; ++k) {
                const std::int64_t i = o * d.strides[a] - d.pads_begin[a] + k * d.dilations[a];
                inside += i >= 0 && i < d.input_size[a];
            }
        pairs *= double(inside);
    }
    return double(d.batch) * double(d.out_channels) * double(d.in_channels_per_group()) * pairs;
}

}  // namespace convcheck::bench
