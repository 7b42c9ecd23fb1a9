// The size past which a kernel's channels-last f32 output is stored non-temporally (Options::
// stream_nxc_output_above resolved): the forward's blocked and depthwise kernels; backward data's pointwise and row
// kernels and its zeros of the phases no tap reaches.
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

// Options::stream_nxc_output_above, 0 resolved: half the last-level cache (on AMD at most one CCD's 32 MiB), and at
// least kStreamOutputAbove.
i64 resolved_stream_nxc_output_above(i64 option);

}  // namespace convcheck::optimized::detail
