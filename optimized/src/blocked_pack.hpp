// Internal: packing canonical f32 weights [O][ICg][taps] (and bias [O]) into the blocked layout the
// direct kernels read: weights [G][OCS][taps][ICg][NB*W], bias [G][OCS][NB*W], zero padded.
#pragma once

#include <vector>

#include "problem.hpp"

namespace convcheck::optimized::detail {

struct BlockedWeights {
    std::vector<float> weights, bias;  // bias empty when there is none
    int vector_blocks = 1;             // NB
    i64 oc_super_blocks = 1;           // OCS
};

// avx512: W = 16 (up to 4 vector blocks), else W = 8 (up to 3).
BlockedWeights pack_blocked(const std::vector<float>& canonical, const std::vector<float>& bias, i64 groups,
                            i64 in_per_group, i64 out_per_group, i64 taps, bool avx512);

}  // namespace convcheck::optimized::detail
