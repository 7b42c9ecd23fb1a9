// Internal: forward layers on the row kernel (backward_data_rows.hpp). A forward convolution of one group on
// f32 channels-last buffers is what that kernel runs for a phase of backward data (there with stride 1): here
// it reads the user's src in place (or a copy of it at another pixel pitch: forward_rows_pitch) and writes
// dst, in register tiles of consecutive outputs of one row, skipping every product of a padding zero exactly
// (per kw, only the tile's pixels whose input column exists), and starting each sum from the bias:
//   dst(n, od, oh, ow, o) = bias(o) + sum over taps (kd, kh, kw) in increasing order whose input is inside,
//                           then over c in increasing order, of src(n, od*S - P + kd*D, ..., c) * W(o, c, k)
// in f32 FMAs (one order for any thread count). The blocked path runs it (same path name) where it fits;
// measured faster than the register tiles on ResNet-50's 3x3 layers (bench/results/forward-rows.md).
#pragma once

#include "backward_data_rows.hpp"
#include "convcheck/core/cache_line_allocator.hpp"
#include "convcheck/core/descriptor.hpp"

namespace convcheck::optimized::detail {

struct ForwardRows {
    Geometry geometry;        // make_geometry(d, 1)
    RowsBackwardData kernel;  // pointing into geometry, weights and bias
    CacheLineFloats weights;  // [super block][taps][C][NB*W], zeros past O
    CacheLineFloats bias;     // [super block][NB*W], zeros past O; empty without bias
};

// The floats per pixel of a copy of src that the row kernel reads instead of src (RowsBackwardData::pixel_pitch),
// or 0: src read in place. A tile's pixels along a row lie C * stride floats apart; where that is a multiple of
// 4 KiB, every pixel's broadcasts fall in one set of the L1 data cache (8 ways on Zen 4, 12 on Intel's recent
// cores), and a tile of two 7-wide rows reads 14 of them at once: res5_3x3s2 (C = 512, stride 2) ran at 0.87 FMA a
// cycle where the same layer over 496 or 528 channels ran at 1.05 (Zen 4, 1 thread, bench/results/forward-rows.md).
// A pitch of C + 16 floats spreads them over the sets.
i64 forward_rows_pitch(const Geometry& g);

// The floats of the copy for one call (0 without one: path_memory.cpp).
i64 forward_rows_copy_floats(const ConvDescriptor& d);

// Whether `d` goes to the row kernel on the blocked path of this ISA: one group, f32 channels last, no
// negative pad, a kernel of more than one tap, at least kBlockedGroupFrom products per output if strided, a
// super block's weights within 2 MiB, and rows whose tiles skip few enough pixels.
bool forward_rows_fit(const ConvDescriptor& d, bool avx512);

// The floats of the plan's packed weights and bias (path_memory.cpp).
i64 forward_rows_floats(const ConvDescriptor& d, bool avx512);

// The plan (forward_rows_fit(d, avx512) must hold). canonical: the f32 weights [O][C][taps]; bias: [O] or empty.
// The plan's pointers stay valid when the unique_ptr holding it moves.
void plan_forward_rows(const ConvDescriptor& d, const float* canonical, const std::vector<float>& bias, bool avx512,
                       ForwardRows& plan);

}  // namespace convcheck::optimized::detail
