// The portable backward-weights loops (no vector ISA): one row per tile (the problem says so), each element
// summed over the output pixels in increasing order. The item's output channels (its lanes) are the innermost
// loop, each with an accumulator of its own, so that diff_dst (and a depthwise x) is read along its channels,
// as the compiler can vectorise, while every element keeps its own order of additions.
#include <algorithm>
#include <vector>

#include "backward_weights_problem.hpp"

namespace convcheck::optimized::detail {

void backward_weights_items_scalar(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw,
                                   i64 row_begin, i64 row_end, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 ICg = g.in_per_group, OCg = g.out_per_group, Cs = g.channel_stride, O = g.out_channels;
    const i64 rows_total = p.depthwise ? g.taps() : g.taps() * ICg, chunks = p.chunks();  // one lane chunk (plan_problem)
    const i64 lanes = p.depthwise ? g.out_channels : OCg;
    std::vector<float> sums(static_cast<std::size_t>(lanes));
    float* const acc = sums.data();
    for (i64 item = begin; item < end; ++item) {
        const i64 chunk = item % chunks, grp = item / chunks;
        const i64 first_oc = p.depthwise ? 0 : grp * OCg;  // lane 0's output channel
        const i64 tile_end = (chunk + 1) * p.tiles_per_item < p.tiles ? (chunk + 1) * p.tiles_per_item : p.tiles;
        for (i64 q = chunk * p.tiles_per_item; q < tile_end; ++q) {
            // x's channel: the lane's (depthwise), or the row's input channel for every lane
            const i64 x_offset = p.depthwise ? p.tap_offsets[q] : p.tap_offsets[q / ICg] + grp * ICg + q % ICg;
            std::fill(acc, acc + lanes, 0.0f);
            for (i64 row = row_begin; row < row_end; ++row) {
                const i64 oh = row % g.out[1], od = (row / g.out[1]) % g.out[0], n = row / (g.out[1] * g.out[0]);
                const float* xr = xp + (((n * g.padded[0] + od * g.stride[0]) * g.padded[1] + oh * g.stride[1]) * g.padded[2]) * Cs +
                                  x_offset;
                const float* dr = dy + row * g.out[2] * O + first_oc;
                for (i64 ow = 0; ow < g.out[2]; ++ow) {
                    const float* x = xr + ow * g.stride[2] * Cs;
                    const float* d = dr + ow * O;
                    if (p.depthwise)
                        for (i64 lane = 0; lane < lanes; ++lane) acc[lane] += x[lane] * d[lane];
                    else
                        for (i64 lane = 0; lane < lanes; ++lane) acc[lane] += x[0] * d[lane];
                }
            }
            float* home = p.depthwise ? dw + q * lanes : dw + (grp * rows_total + q) * OCg;
            std::copy(acc, acc + lanes, home);
        }
        if (p.bias_at < 0 || chunk != 0) continue;
        std::fill(acc, acc + lanes, 0.0f);  // diff_bias: the item's output channels
        for (i64 px = row_begin * g.out[2]; px < row_end * g.out[2]; ++px)
            for (i64 lane = 0; lane < lanes; ++lane) acc[lane] += dy[px * O + first_oc + lane];
        std::copy(acc, acc + lanes, dw + p.bias_at + first_oc);
    }
}

}  // namespace convcheck::optimized::detail
