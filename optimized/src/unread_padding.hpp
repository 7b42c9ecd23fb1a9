// Internal: a descriptor without the end padding no window reads.
#pragma once

#include "convcheck/core/descriptor.hpp"

namespace convcheck::optimized::detail {

// d with each axis's pads_end cut to the last window's reach: the last output's window ends at
// (out - 1) * stride - pads_begin + (kernel - 1) * dilation + 1 (input coordinates), so padding past it is never
// read. pads_end becomes max(0, reach - input) where that is smaller (never below a negative pads_end given), the
// output size stays the same and every output the same sum in the same order. Why: a padded copy of the input
// sized by its pads took 200 MB for one output (pads_end = 196608, stride 2^48: the ABI fuzzer's slow case).
ConvDescriptor without_unread_padding(const ConvDescriptor& d);

}  // namespace convcheck::optimized::detail
