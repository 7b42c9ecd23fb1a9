// Internal: the CC layer's projected grid (seed 004, Eq. 2) and its neighbour windows, one axis at a
// time. Both CC methods read them: the polyphase method the phases' distances and first neighbours,
// the chunked method every output's.
#pragma once

#include <cstdint>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::optimized::detail {

// One axis of the projected grid and its windows: output n reads the `support` input positions
// first[n] .. first[n] + support - 1, at distances distance[n * support + j] = g_n - (first[n] + j).
struct AxisWindows {
    std::int64_t in = 1, out = 1, support = 1;
    bool exact = true;
    std::int64_t p = 1, q = 1;          // the scale p/q (exact scales)
    std::vector<std::int64_t> first;    // first neighbour of every output
    std::vector<double> distance;       // [out][support]
};

// Axis `axis` of d (0: height, 1: width): computed exactly (rational arithmetic) for a rational
// scale, and literally as Eq. 2 in double (with cc_ceil) for a real one.
AxisWindows axis_windows(const CcDescriptor& d, int axis);

// Phases of an exact axis: outputs r, r+p, r+2p, ... share their distances, and their first
// neighbours step by q (g_{n+p} = g_n + q).
std::int64_t phase_count(const AxisWindows& w);

}  // namespace convcheck::optimized::detail
