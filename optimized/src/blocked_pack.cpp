#include "blocked_pack.hpp"

#include <algorithm>

namespace convcheck::optimized::detail {

BlockedWeights pack_blocked(const std::vector<float>& canonical, const std::vector<float>& bias, i64 groups,
                            i64 in_per_group, i64 out_per_group, i64 taps, bool avx512) {
    const i64 width = avx512 ? 16 : 8;
    const int max_nb = avx512 ? avx512::max_vector_blocks() : avx2::max_vector_blocks();
    BlockedWeights out;
    out.vector_blocks = static_cast<int>(std::min<i64>(max_nb, (out_per_group + width - 1) / width));
    const i64 block = out.vector_blocks * width;
    out.oc_super_blocks = (out_per_group + block - 1) / block;
    const i64 OCS = out.oc_super_blocks, ICg = in_per_group, T = taps;
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
