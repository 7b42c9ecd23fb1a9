// CC block 2, neighbours extraction (seed 004, Sec. 3.1).
//
// "For each grid point g_n, we now extract all its discrete nearest-neighbors N[n] from I. These
//  are all the input 'pixels' centers within the support of the continuous kernel K_theta. This
//  information is captured by a tensor of order 6, with shape [N, 1, Cin, K, H', W'] where K is the
//  number of discrete neighbors in the kernel support. ... These distances D[n, m] are kept in a
//  tensor D whose shape is [K, 2, H', W']."
//
// The support of k input pixels on an axis holds the integers m with g - k/2 <= m < g + k/2
// (SPEC-NOTES §4), i.e. m = m_0 + j, j = 0..k-1, with m_0 = ceil(g - k/2): exact for a rational
// scale, cc_ceil (tolerance kCcRealTolerance) for a real one. A neighbour outside [0, in) reads as
// zero (zero padding). Neighbour index k = j_h * k_w + j_w. The distance is D = g - m in
// input-pixel units, channel 0 the vertical (dy), channel 1 the horizontal (dx).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"

namespace convcheck::reference::cc {

// The window on one axis: first[n] = m_0 for output n, and the distances g_n - (m_0 + j).
struct AxisWindow {
    std::int64_t support = 1;
    std::vector<std::int64_t> first;        // [out]
    std::vector<double> distance;           // [out][support]
    std::vector<Rational> exact_distance;   // [out][support], exact scales only
};
AxisWindow neighbour_window(const GridAxis& axis, std::int64_t support);

struct Neighbours {
    std::int64_t batch = 0, in_channels = 0, count = 0, out_h = 0, out_w = 0;  // N, Cin, K, H', W'
    AxisWindow windows[2];                   // h, w
    std::vector<double> values;              // N: [N, 1, Cin, K, H', W']
    std::vector<unsigned char> inside;       // [K, H', W']: 1 when the neighbour is an input pixel
    std::vector<double> distances;           // D: [K, 2, H', W']
};

// How close the layer comes to a window decision: the smallest distance, over every grid point of
// both axes, from g - k/2 to the nearest integer (0 when a grid point lies exactly on a window
// edge). A backend that computes a REAL-scale grid in f32 may pick another window when this is
// below its grid error; the runner can use it to choose real-scale cases away from the edges.
double window_edge_margin(const CcDescriptor& d);

// Block 2 for src [N, Cin, H, W] (canonical doubles).
Neighbours extract_neighbours(const CcDescriptor& d, const ProjectedGrid& grid, std::span<const double> src);

}  // namespace convcheck::reference::cc
