// The multiply-adds of a convolution whose input lies inside the image, not in its padding: the work any
// implementation must do (ConvDescriptor::macs() counts the padded products too). The bench table's FMA ceiling
// (bench_table.cpp) divides these by oneDNN's time.
#pragma once

#include "convcheck/core/descriptor.hpp"

namespace convcheck::bench {

// batch x O x C/G x, per spatial axis, the (output, tap) pairs whose input index lies in [0, input).
double inside_macs(const ConvDescriptor& d);

}  // namespace convcheck::bench
