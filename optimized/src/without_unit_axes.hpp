// Internal: a descriptor without its unit spatial axes, the form every forward plan runs.
#pragma once

#include "convcheck/core/descriptor.hpp"

namespace convcheck::optimized::detail {

// d without the spatial axes that hold one input pixel, one tap and no padding (one output pixel; their
// stride and dilation are never used), keeping at least one axis. The tensors are the same bytes (a dense
// layout does not change when a dimension of size 1 goes) and every output the same sum in the same order
// (taps outermost first: a unit axis adds no tap). Why: the blocked kernel's tiles run along an output
// plane (height x width), so a 3-D layer of depth only (benchdnn's in=Dx1x1) ran one pixel per tile;
// as a 1-D layer its outputs fill the tiles.
ConvDescriptor without_unit_axes(const ConvDescriptor& d);

}  // namespace convcheck::optimized::detail
