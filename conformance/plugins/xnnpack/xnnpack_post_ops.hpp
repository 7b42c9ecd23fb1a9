// The xnnpack plugin's fused post-ops and per-tensor dtypes (xnnpack_post_ops.cpp): what of a chain XNNPACK's
// convolution operators compute (their output clamp), and why each mix of dtypes is declined.
#pragma once

#include <cmath>
#include <string>

#include "convcheck/plugin.h"

namespace convcheck_xnnpack {

// The [output_min, output_max] an XNNPACK convolution operator is created with.
struct OutputRange {
    float min = -INFINITY, max = INFINITY;
    bool clamps() const { return min != -INFINITY || max != INFINITY; }
    // For the implementation string: " [clamp min, max]" when it clamps, else "".
    std::string note() const;
};

// The range of d's post-op chain (a clip or a relu, post_ops_accepts), else -inf/+inf.
OutputRange output_range(const convcheck_conv_desc& d);

// "" when XNNPACK computes the chain as its output clamp, else why not in its words (add_post_ops).
std::string post_ops_accepts(const convcheck_conv_desc& d, const convcheck_post_ops& ops);

// Why XNNPACK refused the operator with this range when it creates it without one.
std::string range_refused(const convcheck_conv_desc& d, const OutputRange& range);

// "" when d's tensors have one dtype, else why XNNPACK computes no such convolution.
std::string mixed_dtypes_missing(const convcheck_conv_desc& d);

}  // namespace convcheck_xnnpack
