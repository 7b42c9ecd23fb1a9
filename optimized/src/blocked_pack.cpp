#include "blocked_pack.hpp"

#include <algorithm>

namespace convcheck::optimized::detail {

BlockedWeights pack_blocked(const std::vector<float>& canonical, const std::vector<float>& bias, i64 groups,
                            i64 in_per_group, i64 out_per_group, i64 taps, bool avx512) {
    const i64 width = avx512 ? 16 : 8;
    const int max_nb = avx512 ? avx512::max_vector_blocks() : avx2::max_vector_blocks();
    BlockedWeights out;
    // the number of vector blocks that wastes the fewest padded lanes (ties: the larger tile)
    i64 best_padded = -1;
    for (int nb = 1; nb <= max_nb; ++nb) {
        const i64 block = nb * width, padded = (out_per_group + block - 1) / block * block;
        if (best_padded < 0 || padded <= best_padded) {
            best_padded = padded;
            out.vector_blocks = nb;
        }
        if (block >= out_per_group) break;
    }
    const i64 block = out.vector_blocks * width;
    out.oc_super_blocks = (out_per_group + block - 1) / block;
    const i64 OCS = out.oc_super_blocks, ICg = in_per_group, T = taps;
    // a block of input channels whose weights (all taps, one super block) take at most 384 KiB, so
    // that they stay in L2 while a work item's tiles reuse them (measured: smaller blocks cost more in
    // partial-sum traffic than they gain); work items of 32 register tiles
    out.ic_block = std::clamp<i64>(393216 / (T * block * 4), 1, ICg);
    out.chunk_pixels = 32 * (avx512 ? avx512::tile_width(out.vector_blocks) : avx2::tile_width(out.vector_blocks));
    out.weights.assign(groups * OCS * T * ICg * block, 0.0f);
    if (!bias.empty()) out.bias.assign(groups * OCS * block, 0.0f);
    for (i64 grp = 0; grp < groups; ++grp)
        for (i64 oc = 0; oc < out_per_group; ++oc) {
            const i64 ocs = oc / block, lane = oc % block, o = grp * out_per_group + oc;
            for (i64 t = 0; t < T; ++t)
                for (i64 ic = 0; ic < ICg; ++ic)
                    out.weights[(((grp * OCS + ocs) * T + t) * ICg + ic) * block + lane] = canonical[(o * ICg + ic) * T + t];
            if (!bias.empty()) out.bias[(grp * OCS + ocs) * block + lane] = bias[o];
        }
    return out;
}

}  // namespace convcheck::optimized::detail
