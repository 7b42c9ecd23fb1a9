// Internal: the Internal-Net's pieces that the CC chunked method (cc_chunked.cpp) and the CC backward
// (cc_backward_net.cpp) share, prepared once per plan from the descriptor, theta and the grid:
//   - the first layer split over the axes (W1[j][0] dy + b1[j] per output row and tap, W1[j][1] dx per
//     column and tap), evaluated in double and rounded once to f32;
//   - the second layer, W2 transposed and b2, zero padded to h2p = h2 rounded up to 8;
//   - the last layer [W3 | b3] as one [Cout][depth] matrix, depth = Cin * (h2p + 1): W3 of channel
//     pair (cout, cin) at cin*h2p + m, b3 at Cin*h2p + cin (exact: theta is f32);
//   - the kernels' problems (cc_factored_kernels.hpp) pointing into them and into the axes' windows.
#pragma once

#include <cstdint>
#include <vector>

#include "cc_factored_kernels.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::optimized::detail {

struct CcNetFactors {
    // height and width stay where they are while this object lives (the problems point into them).
    CcNetFactors(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height, const AxisWindows& width);
    CcNetFactors(const CcNetFactors&) = delete;
    CcNetFactors& operator=(const CcNetFactors&) = delete;

    std::int64_t h1 = 1, h2 = 1, h2p = 8, depth = 1;
    std::vector<float> ay, ax, w2t, b2;
    std::vector<float> last;  // [Cout][depth]
    CcHiddenProblem hidden;
    CcContractProblem contract;
};

}  // namespace convcheck::optimized::detail
