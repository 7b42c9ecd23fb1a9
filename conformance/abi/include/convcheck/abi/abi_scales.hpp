// A float descriptor's scales (core/include/convcheck/core/scales.hpp) <-> the ABI's scales extension (1.7,
// convcheck/plugin/scales.h).
#pragma once

#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/plugin.h"

namespace convcheck::runner {

// The extension and its weights scales together: a descriptor's next points into this object, which therefore is
// held by pointer (neither copied nor moved once attached).
struct AbiScales {
    convcheck_scales extension{};
    std::vector<float> weights;
};
// Fills holder with d's scales and puts it first on desc's chain (desc.next); nothing when d has none. d's
// per-channel scales must be given (wsc=oc resolved by the caller).
void attach_scales(const ConvDescriptor& d, convcheck_conv_desc& desc, AbiScales& holder);
// The scales extension of desc's chain (none: every scale 1). Throws ConvError for a malformed one (two of them,
// a struct_size too small, a weights_scale_count other than 1 or out_channels, NULL weights_scales, a scale not > 0
// and finite).
ConvScales scales_from_abi(const convcheck_conv_desc& desc, std::int64_t out_channels);

}  // namespace convcheck::runner
