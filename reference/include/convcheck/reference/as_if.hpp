// The spec-literal reference, reading 2: OpenVINO Convolution-1's "as if" narrative (seed 001).
//
//   "The convolution is implemented as if each sample input first has p_b zeros inserted before and
//    p_e zeros inserted for the channels on the spatial axes, giving a padded input size of
//    p_b+p_e+X_I. The kernel is stretched by a factor of d on each of its spatial dimensions. [...]
//    The padded input and the dilated kernel are then ungrouped into g equal-sized input and kernel
//    segments; padded input segment i and dilated kernel segment i are convolved. The convolution is
//    only performed where there is complete spatial overlap between the shifted kernel and the padded
//    input [...]. The output segments are then regrouped along the output channel axis. Finally, all
//    but the results on a multiple of [s] spatial axis are removed."
//
// Each step materialises its intermediate array, for any spatial rank, in double. The output shape
// is whatever the process leaves over; it is NOT computed from the output-size formula, so that
// tests can check the formula (ConvDescriptor::output_size) against the process.
//
// The stretched kernel carries real zeros between its taps and the padded input real zeros at its
// borders; they are multiplied like any other value. For finite data this changes nothing; an
// infinity meeting one of those zeros gives NaN, which reading 1 (the summation, convolution.hpp),
// which skips padding and has no stuffed taps, does not produce. The readings are compared on
// finite data only.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference {

struct AsIfResult {
    std::vector<std::int64_t> dst_dims;   // [N][O][out...] as produced by the process
    std::vector<double> dst;              // NCX, row-major over dst_dims
};

// Reading 2 on canonical double arrays: src NCX, weights OIX ([O][I/G][k...]), bias [O] or empty.
// Validates d and the span sizes (throws ConvError).
AsIfResult convolution_as_if(const ConvDescriptor& d, std::span<const double> src_ncx,
                             std::span<const double> weights_oix, std::span<const double> bias);

}  // namespace convcheck::reference
