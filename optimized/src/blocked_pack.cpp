#include "blocked_pack.hpp"

#include <algorithm>

namespace convcheck::optimized::detail {
namespace {
constexpr i64 kWideTileWeightBytes = 32 << 10;  // two thirds of the Xeon's 48 KiB L1
// blocked_balanced_chunk_pixels: runs of fewer items than kBalancedItems take chunks that 2 threads share
// evenly (measured on the Xeon, 2 threads: bench/results/forward-threads.md)
constexpr i64 kBalancedItems = 32;
constexpr double kImbalance = 1.05;
}  // namespace

int blocked_vector_blocks(i64 out_per_group, i64 weights_per_output, bool avx512) {
    const i64 width = avx512 ? 16 : 8;
    const int max_nb = avx512 ? avx512::max_vector_blocks() : avx2::max_vector_blocks();
    int best = 1;
    i64 best_padded = -1;
    for (int nb = 1; nb <= max_nb; ++nb) {
        const i64 block = nb * width, padded = (out_per_group + block - 1) / block * block;
        // more than 4 blocks (tiles of 5 or 4 pixels) only while the super block's weights stay in L1:
        // each tile reads all of them for fewer pixels (measured on the Xeon, 1 thread: pw16->96@112
        // 0.33 -> 0.27 ms with 6 blocks, but pw576->96@14 0.10 -> 0.13 ms)
        if (nb > 4 && weights_per_output * block * 4 > kWideTileWeightBytes) break;
        if (best_padded < 0 || padded <= best_padded) {
            best_padded = padded;
            best = nb;
        }
        if (block >= out_per_group) break;
    }
    return best;
}

i64 blocked_chunk_pixels(i64 out_per_group, i64 weights_per_output, bool avx512) {
    const int nb = blocked_vector_blocks(out_per_group, weights_per_output, avx512);
    return 32 * (avx512 ? avx512::tile_width(nb) : avx2::tile_width(nb));
}

namespace {

// How much more than half of the pixels the larger half of the items holds (1: none), the items split in the middle
// as TBB's first split does; a chunk of `pixels`, the last of each plane shorter; chunks innermost in the items.
double halves_imbalance(i64 pixels, i64 plane, i64 others) {
    const i64 count = (plane + pixels - 1) / pixels, items = others * count, mid = items / 2;
    const i64 short_by = count * pixels - plane;  // the last chunk's pixels fewer than a full chunk's
    // items [b, e) hold (e - b) chunks, of which those with i % count == count - 1 are the last of their plane
    const auto load = [&](i64 b, i64 e) { return (e - b) * pixels - (e / count - b / count) * short_by; };
    return static_cast<double>(std::max(load(0, mid), load(mid, items))) / (0.5 * static_cast<double>(others * plane));
}

}  // namespace

i64 blocked_balanced_chunk_pixels(i64 chunk_pixels, i64 plane, i64 others) {
    const i64 chunks = (plane + chunk_pixels - 1) / chunk_pixels;
    if (others * chunks >= kBalancedItems || halves_imbalance(chunk_pixels, plane, others) <= kImbalance)
        return chunk_pixels;
    // the fewest chunks, from `chunks` up, whose halves hold half of the pixels within kImbalance
    for (i64 c = chunks; c <= plane; ++c) {
        const i64 pixels = (plane + c - 1) / c;
        if (halves_imbalance(pixels, plane, others) <= kImbalance) return pixels;
    }
    return chunk_pixels;
}

i64 blocked_even_chunk_pixels(i64 chunk_pixels, i64 plane) {
    const i64 chunks = (plane + chunk_pixels - 1) / chunk_pixels;
    return (plane + chunks - 1) / chunks;
}

i64 blocked_plan_chunk_pixels(const Geometry& g, bool avx512) {
    const i64 weights_per_output = g.in_per_group * g.taps(), plane = g.out[1] * g.out[2];
    const i64 block = blocked_vector_blocks(g.out_per_group, weights_per_output, avx512) * (avx512 ? 16 : 8);
    const i64 super_blocks = (g.out_per_group + block - 1) / block;
    const i64 chunk = blocked_chunk_pixels(g.out_per_group, weights_per_output, avx512);
    // 1x1 layers: chunks of equal sizes, so that their items (all the same work) split evenly over the threads
    // (ConvPlan runs them in one range per thread)
    return blocked_balanced_chunk_pixels(g.taps() == 1 ? blocked_even_chunk_pixels(chunk, plane) : chunk, plane,
                                         g.batch * g.groups * super_blocks * g.out[0]);
}

bool every_pixel_reads_every_tap(const Geometry& g) {
    for (int a = 0; a < 3; ++a)
        if (g.pad_begin[a] > 0 || (g.out[a] - 1) * g.stride[a] + (g.kernel[a] - 1) * g.dilation[a] >= g.in[a] + g.pad_begin[a])
            return false;
    return true;
}

i64 blocked_thread_chunk_pixels(i64 chunk_pixels, i64 plane, i64 others, i64 tile, int threads, bool one_range_per_thread) {
    const i64 wanted = kForwardTasksPerThread * threads, chunks = (plane + chunk_pixels - 1) / chunk_pixels;
    if (threads <= 1) return chunk_pixels;
    if (one_range_per_thread) {
        // the busiest thread's tiles with chunks of `pixels`
        const auto busiest = [&](i64 pixels) {
            const i64 items = others * ((plane + pixels - 1) / pixels);
            return (items + threads - 1) / threads * ((std::min(pixels, plane) + tile - 1) / tile);
        };
        const i64 layer = busiest(chunk_pixels);
        i64 best = chunk_pixels, least = layer;
        for (i64 pixels = (std::min(chunk_pixels, plane) + tile - 1) / tile * tile - tile; pixels >= tile; pixels -= tile)
            if (busiest(pixels) < least) best = pixels, least = busiest(pixels);
        return 8 * least <= 7 * layer ? best : chunk_pixels;
    }
    if (others * chunks >= wanted) return chunk_pixels;
    const i64 finest = std::max(chunks, (plane + tile - 1) / tile);
    // (equal chunks of ceil(plane / c) pixels may number fewer than c: 49 pixels in 8 -> 7 of 7)
    for (i64 c = std::max(chunks, (wanted + others - 1) / others); c < finest; ++c) {
        const i64 pixels = (plane + c - 1) / c;
        if (others * ((plane + pixels - 1) / pixels) >= wanted) return pixels;
    }
    return (plane + finest - 1) / finest;
}

i64 blocked_weights_floats(i64 groups, i64 in_per_group, i64 out_per_group, i64 taps, bool avx512) {
    const i64 block = blocked_vector_blocks(out_per_group, in_per_group * taps, avx512) * (avx512 ? 16 : 8);
    return groups * ((out_per_group + block - 1) / block) * taps * in_per_group * block;
}

BlockedWeights pack_blocked(const std::vector<float>& canonical, const std::vector<float>& bias, i64 groups,
                            i64 in_per_group, i64 out_per_group, i64 taps, bool avx512) {
    return pack_blocked(canonical.data(), bias, groups, in_per_group, out_per_group, taps, avx512);
}

BlockedWeights pack_blocked(const float* canonical, const std::vector<float>& bias, i64 groups, i64 in_per_group,
                            i64 out_per_group, i64 taps, bool avx512) {
    const i64 width = avx512 ? 16 : 8;
    BlockedWeights out;
    out.vector_blocks = blocked_vector_blocks(out_per_group, in_per_group * taps, avx512);
    const i64 block = out.vector_blocks * width;
    out.oc_super_blocks = (out_per_group + block - 1) / block;
    const i64 OCS = out.oc_super_blocks, ICg = in_per_group, T = taps;
    // a block of input channels whose weights (all taps, one super block) take at most 384 KiB, so
    // that they stay in L2 while a work item's tiles reuse them (measured: smaller blocks cost more in
    // partial-sum traffic than they gain); work items of 32 register tiles
    out.ic_block = std::clamp<i64>(393216 / (T * block * 4), 1, ICg);
    out.chunk_pixels = blocked_chunk_pixels(out_per_group, in_per_group * taps, avx512);
    // a 1x1 kernel whose packed weights fit in half the L2 (512 KiB): its items go over the output-channel
    // super blocks innermost, so a chunk's input and pixel offsets serve every super block at once and each
    // output pixel's channels are written together (measured on AVX2, 1 thread: pw16->96@112 0.58 -> 0.53 ms,
    // res2/res3 1x1 layers 3-5% faster; the 3x3 layers showed no gain, so they keep one super block's
    // weights in cache across the plane)
    out.ocs_innermost = OCS > 1 && T == 1 && groups * OCS * T * ICg * block * 4 <= (i64{512} << 10);
    out.weights.assign(groups * OCS * T * ICg * block, 0.0f);
    if (!bias.empty()) out.bias.assign(groups * OCS * block, 0.0f);
    for (i64 grp = 0; grp < groups; ++grp)
        for (i64 oc = 0; oc < out_per_group; ++oc) {
            const i64 ocs = oc / block, lane = oc % block, o = grp * out_per_group + oc;
            // canonical order (sequential reads: the weights may be the user's, and large)
            for (i64 ic = 0; ic < ICg; ++ic)
                for (i64 t = 0; t < T; ++t)
                    out.weights[(((grp * OCS + ocs) * T + t) * ICg + ic) * block + lane] = canonical[(o * ICg + ic) * T + t];
            if (!bias.empty()) out.bias[(grp * OCS + ocs) * block + lane] = bias[o];
        }
    return out;
}

}  // namespace convcheck::optimized::detail
