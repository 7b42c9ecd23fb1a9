// Blocks 1 and 2 of the torch CC layer, per axis (cc_torch.hpp): the projected grid (Eq. 2), the
// window of k neighbours of every grid point, g - k/2 <= m < g + k/2, and the distances D = g - m.
#pragma once

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck_libtorch::cc {

using convcheck::CcDescriptor;

struct AxisWindows {
    at::Tensor first;     // int64 [out]: m_0 = ceil(g - k/2), the first neighbour of output n
    at::Tensor distance;  // double [out][k]: g_n - (m_0 + j)
    std::int64_t period = 0;  // rational scale p/q in lowest terms: p (g_{n+p} = g_n + q); 0 for a real scale
    std::int64_t step = 0;    // q
    std::int64_t pad_before = 0, pad_after = 0;  // zeros the windows reach before 0 and after in - 1
};

// Axis 0 (h) or 1 (w) of d.
//  - a rational scale p/q in exact int64 arithmetic: g_n = (2nq + (in-1)p - (out-1)q) / (2p), the window's
//    first neighbour by an exact ceiling division, and D = (2p g_n - 2p m) / (2p) converted once to double:
//    the reference's exact distance rounded to double (its numerator and 2p are below 2^53:
//    exact_grid_fits);
//  - a real scale in double, Eq. 2 literally, (n/s + (in-1)/2) - (out-1)/(2s), and the window's ceiling with
//    the reference's tolerance (convcheck::cc_ceil: within 1e-9 max(1, |x|) of an integer is that integer),
//    D = g - m in double: the reference's double operations, so its values.
AxisWindows axis_windows(const CcDescriptor& d, int axis);

// src [N, Cin, H, W] with the zeros every window reaches (at::constant_pad_nd): what the neighbours are
// read from (a neighbour outside the input is zero, paper Sec. 3.1).
at::Tensor zero_padded(const at::Tensor& src, const AxisWindows& h, const AxisWindows& w);

// Whether every numerator of the exact grid of d is below 2^53 (a bound: 8 (out q + (in + k) p)).
bool exact_grid_fits(const CcDescriptor& d);

}  // namespace convcheck_libtorch::cc
