// Real-scale CC layers whose windows are not decidable (docs/cc.md, "Exact and real scales"). A
// backend computes the projected grid itself; for a REAL scale (a double in the ABI) an f32 grid is
// off by up to distance_error_bound(u = 2^-24), and where a grid point g_n - k/2 lies within that of
// an integer the backend may pick either window, each a literal reading of Eq. 2 (the reference
// snaps to the integer with its 1e-9 tolerance; a double backend without it takes the other side).
// Where the two windows give different verdicts, the case judges luck, not conformance, so the
// runner refuses it when it loads it, naming the point and pointing to the exact scale that decides
// it. They differ in probe mode always (a NaN in the edge pixel reaches the output or not) and in
// bound mode when the kernel weighs a neighbour at distance k/2 (net, Gaussian; linear with k < 2,
// Keys cubic with k < 4): otherwise both windows weigh the edge neighbour 0 and agree. An exact (p/q) scale is never ambiguous:
// the ABI carries p and q, the window is an exact integer decision, and grid points on a window
// edge are fair tests of its inclusive edge (smoke's cc/grid_on_window_edge).
#pragma once

#include <string>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::runner {

// Empty when every grid point of every real-scale axis is farther from a window edge than an f32
// backend's grid error, or when the window decision cannot change the verdict in `mode`; else the
// first point that is too close, and why (window_edge_margin's measure, per axis, against
// distance_error_bound).
std::string ambiguous_real_scale_window(const CcDescriptor& d, accuracy::Mode mode);

}  // namespace convcheck::runner
