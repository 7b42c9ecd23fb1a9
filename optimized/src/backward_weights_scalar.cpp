// The portable backward-weights loops (no vector ISA): one row per tile (the problem says so), every
// lane of the item one at a time, each element summed over the output pixels in increasing order.
#include "backward_weights_problem.hpp"

namespace convcheck::optimized::detail {

void backward_weights_items_scalar(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw,
                                   i64 row_begin, i64 row_end, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 taps = g.taps(), ICg = g.in_per_group, OCg = g.out_per_group, Cs = g.channel_stride, O = g.out_channels;
    const i64 rows_total = p.depthwise ? taps : taps * ICg, chunks = p.chunks();  // one lane chunk (plan_problem)
    const i64 lanes = p.depthwise ? g.out_channels : OCg;
    for (i64 item = begin; item < end; ++item) {
        const i64 chunk = item % chunks, grp = item / chunks;
        const i64 tile_end = (chunk + 1) * p.tiles_per_item < p.tiles ? (chunk + 1) * p.tiles_per_item : p.tiles;
        for (i64 q = chunk * p.tiles_per_item; q < tile_end; ++q)
            for (i64 lane = 0; lane < lanes; ++lane) {
                const i64 x_channel = p.depthwise ? lane : grp * ICg + q % ICg;
                const i64 x_offset = p.tap_offsets[p.depthwise ? q : q / ICg] + x_channel;
                const i64 oc = p.depthwise ? lane : grp * OCg + lane;
                float acc = 0.0f;
                for (i64 row = row_begin; row < row_end; ++row) {
                    const i64 oh = row % g.out[1], od = (row / g.out[1]) % g.out[0], n = row / (g.out[1] * g.out[0]);
                    const float* xr = xp + (((n * g.padded[0] + od * g.stride[0]) * g.padded[1] + oh * g.stride[1]) * g.padded[2]) * Cs +
                                      x_offset;
                    const float* dr = dy + row * g.out[2] * O + oc;
                    for (i64 ow = 0; ow < g.out[2]; ++ow) acc += xr[ow * g.stride[2] * Cs] * dr[ow * O];
                }
                float& home = p.depthwise ? dw[q * lanes + lane] : dw[(grp * rows_total + q) * OCg + lane];
                home = acc;
            }
        if (p.bias_at < 0 || chunk != 0) continue;
        for (i64 lane = 0; lane < lanes; ++lane) {  // diff_bias: the item's output channels
            const i64 oc = p.depthwise ? lane : grp * OCg + lane;
            float acc = 0.0f;
            for (i64 px = row_begin * g.out[2]; px < row_end * g.out[2]; ++px) acc += dy[px * O + oc];
            dw[p.bias_at + oc] = acc;
        }
    }
}

}  // namespace convcheck::optimized::detail
