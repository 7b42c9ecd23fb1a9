// Internal: the row kernel's plan (backward_data_rows.hpp) for every phase of a backward-data layer: one
// stride-1 forward convolution per phase with taps, each written by the kernel straight into diff_src at
// x = r + S*j; a phase no tap reaches is zeros (the caller writes them).
#pragma once

#include <vector>

#include "backward_data_rows.hpp"
#include "backward_phases.hpp"
#include "convcheck/core/cache_line_allocator.hpp"

namespace convcheck::optimized::detail {

struct RowsPlan {
    std::vector<Phase> phases;
    std::vector<Geometry> geometries;        // per phase (its forward's; unused for a phase without taps)
    std::vector<RowsBackwardData> kernels;   // per phase; pointing into geometries and weights
    CacheLineFloats weights;                 // every phase's, each [super block][taps][O][NB*W]
};

// The plan for d (one group, f32 channels last; canonical: its f32 weights [O][C][taps]) on AVX-512 or
// AVX2, or false when some phase's tiles do not fit. The plan's pointers stay valid when it is moved.
bool plan_rows(const ConvDescriptor& d, const std::vector<float>& canonical, bool avx512, RowsPlan& plan);

}  // namespace convcheck::optimized::detail
