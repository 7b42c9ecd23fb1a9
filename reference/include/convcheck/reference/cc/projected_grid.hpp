// CC block 1, the projected grid (seed 004, Sec. 3.1, Eq. 2).
//
// "The Projected grid g matches each output 'pixel' n = (i', j') in I' to a sub-'pixel' location
//  g_n in the continuous space of the input I. This grid is captured by a tensor of shape [2, H', W']."
//
//   g_n = n/s + 1/2 (in_size - 1) - 1/(2s) (out_size - 1)                              (Eq. 2)
//
// The grid is separable: g_(i',j') = (g_i' on axis h, g_j' on axis w). For a rational scale
// every point is kept exactly; for a real scale it is computed in double, literally as Eq. 2.
#pragma once

#include <cstdint>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/rational.hpp"

namespace convcheck::reference::cc {

// Eq. 2 on one axis.
struct GridAxis {
    std::int64_t input_size = 1;
    std::int64_t output_size = 1;
    bool exact = true;                 // the scale is rational: exact_points holds g_n exactly
    std::vector<Rational> exact_points;  // g_n, n = 0..out-1 (exact scales only)
    std::vector<double> points;          // g_n (exact ones rounded once to double)
};

// g_n for n = 0..out-1 on axis 0 (h) or 1 (w) of d. Throws RationalOverflow only for descriptors
// that validate() rejects.
GridAxis projected_grid_axis(const CcDescriptor& d, int axis);

// Both axes: axes[0] is h (the vertical coordinate), axes[1] is w.
struct ProjectedGrid {
    GridAxis axes[2];
    // The paper's grid tensor [2, H', W']: channel 0 the vertical, channel 1 the horizontal coordinate.
    std::vector<double> tensor() const;
};
ProjectedGrid projected_grid(const CcDescriptor& d);

}  // namespace convcheck::reference::cc
