// Internal: backward data as forward convolutions (the polyphase form of the transposed problem).
//
// The forward sum pairs input x with output y through tap k when x = y*S - P_L + k*D. Split the x of
// one axis by their residue r = x mod S: x = r + S*j. The taps that reach residue r are those with
// k*D = r + P_L (mod S): k = k_first + m*T, T = S / gcd(S, D). For them y = j + c - m*D_y with
// c = (r + P_L - k_first*D) / S (exact) and D_y = D / gcd(S, D). Flipping the taps (t = Kr-1-m) makes
// it a stride-1 forward convolution over j of diff_dst with dilation D_y, pads_begin (Kr-1)*D_y - c,
// and pads_end chosen so that it has exactly J = ceil((in - r) / S) outputs:
//   diff_src(n, ic, r + S*j) = sum over (oc, t) of diff_dst(n, oc, j - pads_begin' + t*D_y) * W(oc, ic_g, k(t))
// where a diff_dst index outside [0, out) is the phase's zero padding. A phase is a product of one
// residue per axis; a residue with no tap (Kr = 0) makes its phase all zeros. A stride used by a
// single output, or a dilation by a single tap, is taken as 1 (as the forward's geometry does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::optimized::detail {

struct AxisPhase {
    std::int64_t residue = 0;   // r
    std::int64_t step = 1;      // S: diff_src x = r + S*j
    std::int64_t outputs = 0;   // J
    std::int64_t taps = 0;      // Kr (0: no tap reaches this residue)
    std::int64_t first_tap = 0; // k_first
    std::int64_t tap_step = 1;  // T
    std::int64_t dilation = 1;  // D_y
    std::int64_t pad_begin = 0, pad_end = 0;
};

struct Phase {
    AxisPhase axis[kMaxSpatialRank];
    bool has_taps = true;      // every axis has Kr >= 1
    ConvDescriptor forward;    // the stride-1 forward convolution (valid only when has_taps)
};

// Every phase of d's backward data (in an order where the first axis's residue changes slowest).
std::vector<Phase> backward_data_phases(const ConvDescriptor& d);
// The number of phases (the product over axes of min(S, in)), without building them; -1 above 2^62.
std::int64_t backward_data_phase_count(const ConvDescriptor& d);
// The most phases BackwardDataPlan builds: one ConvPlan each.
inline constexpr std::int64_t kMaxBackwardPhases = 1024;

// The phase's weights, OIX in d.dtype, from d's canonical f32 weights [O][ICg][taps] (exact: they were
// widened from d.dtype): W'(g*ICg + ic, oc, t) = W(g*OCg + oc, ic, k(t)).
std::vector<unsigned char> phase_weights(const ConvDescriptor& d, const Phase& p, const std::vector<float>& canonical);

}  // namespace convcheck::optimized::detail
