// The depthwise backward-weights kernel (ICg = OCg = 1), compiled once per ISA after
// backward_weights_kernels.inl. Output row by output row, the input rows its taps reach are packed
// (once, kept while later rows need them) into a channel-blocked row [lane block][padded width][NB*W]
// with zeros in the padding, and its diff_dst row into [lane block][OW][NB*W]; a tile (R taps x one
// lane block) then reads two sequential streams, as oneDNN's blocked layouts do, from the user's
// channels-last buffers (or the edges' padded copy, which problem.x_geometry describes then). Each
// element is summed over the output pixels in increasing (n, od, oh, ow) order, as the general kernel does.

#include <vector>

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// One tile over one output row: acc[r] += x_at[r][ow*step] * dk[ow] for ow in [0, OW).
template <int R, int NB, bool Bias>
void depthwise_tile(const float* const* x_at, const float* dk, i64 OW, i64 step, const TileHome& home,
                    const TileHome& bias_home, bool first) {
    constexpr int B = NB * W;
    vf acc[R * NB], bias[NB];
    static const float one_value = 1.0f;
    const vf one = broadcast(&one_value);
    if (first) {
#pragma GCC unroll 64
        for (int i = 0; i < R * NB; ++i) acc[i] = zero();
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) bias[j] = zero();
    } else {
        home_load<R, NB>(acc, home);
        if constexpr (Bias) home_load<1, NB>(bias, bias_home);
    }
    const float* at[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) at[r] = x_at[r];
    for (i64 ow = 0, xo = 0; ow < OW; ++ow, xo += step, dk += B) {
        vf d[NB];
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) d[j] = load(dk + j * W);
        if constexpr (Bias)
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) bias[j] = fma(d[j], one, bias[j]);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(load(at[r] + xo + j * W), d[j], acc[r * NB + j]);
    }
    home_store<R, NB>(acc, home);
    if constexpr (Bias) home_store<1, NB>(bias, bias_home);
}

// `count` pixels of C channels into [lane block][count][B] (zeros past C), `stride` floats per lane block.
template <int B>
void pack_blocked(const float* from, i64 count, i64 C, i64 lane_blocks, float* to, i64 stride) {
    const i64 full = C / B;  // lane blocks of B channels
    for (i64 lb = 0; lb < full; ++lb) {
        const float* f = from + lb * B;
        float* t = to + lb * stride;
        for (i64 px = 0; px < count; ++px)
#pragma GCC unroll 4
            for (int j = 0; j < B / W; ++j) store(t + px * B + j * W, load(f + px * C + j * W));
    }
    if (full == lane_blocks) return;
    const i64 lanes = C - full * B;
    for (i64 px = 0; px < count; ++px) {
        float* out = to + full * stride + px * B;
        for (i64 l = 0; l < lanes; ++l) out[l] = from[px * C + full * B + l];
        for (i64 l = lanes; l < B; ++l) out[l] = 0.0f;
    }
}

// dw [taps][C]; scratch: problem.scratch_floats() (the packed rows, then the packed diff_dst row).
void depthwise_items(const BackwardWeightsProblem& p, const float* x, const float* dy, float* dw, i64 row_begin,
                     i64 row_end, i64 begin, i64 end, float* scratch) {
    constexpr int R = kDepthwiseRows, NB = kDepthwiseBlocks;
    constexpr i64 B = NB * W;
    const Geometry& g = *p.geometry;     // output sizes, kernel, strides, dilations
    const Geometry& xg = *p.x_geometry;  // x's sizes and pads
    const i64 taps = g.taps(), C = g.out_channels, OW = g.out[2], LB = p.lane_blocks;
    const i64 PW = g.padded[2], plane = PW * B, row_floats = LB * plane, KR = g.kernel[0] * g.kernel[1];
    float* const dy_row = scratch + p.depthwise_slots() * row_floats;  // [LB][OW][B]
    std::vector<i64> tag(static_cast<std::size_t>(p.depthwise_slots()), -2), needed(static_cast<std::size_t>(KR));
    std::vector<const float*> row_of(static_cast<std::size_t>(KR));
    for (i64 item = begin; item < end; ++item) {
        const i64 t_begin = item * p.tiles_per_item, t_end = min_i64(p.tiles, t_begin + p.tiles_per_item);
        for (i64 row = row_begin; row < row_end; ++row) {
            const i64 oh = row % g.out[1], od = (row / g.out[1]) % g.out[0], n = row / (g.out[1] * g.out[0]);
            // the input rows of (kd, kh), as keys (n, id, ih) in x, -1 in the padding
            for (i64 kr = 0; kr < KR; ++kr) {
                const i64 id = od * g.stride[0] + (kr / g.kernel[1]) * g.dilation[0] - xg.pad_begin[0];
                const i64 ih = oh * g.stride[1] + (kr % g.kernel[1]) * g.dilation[1] - xg.pad_begin[1];
                needed[kr] = id >= 0 && id < xg.in[0] && ih >= 0 && ih < xg.in[1] ? (n * xg.in[0] + id) * xg.in[1] + ih : -1;
                row_of[kr] = p.zeros;
            }
            for (i64 kr = 0; kr < KR; ++kr) {
                if (needed[kr] < 0) continue;
                i64 slot = -1;
                for (std::size_t s = 0; s < tag.size() && slot < 0; ++s)
                    if (tag[s] == needed[kr]) slot = static_cast<i64>(s);
                for (std::size_t s = 0; s < tag.size() && slot < 0; ++s) {  // a slot no row of this output row holds
                    bool free = true;
                    for (i64 k = 0; k < KR; ++k) free = free && tag[s] != needed[k];
                    if (free) slot = static_cast<i64>(s);
                }
                float* to = scratch + slot * row_floats;
                if (tag[static_cast<std::size_t>(slot)] != needed[kr]) {
                    tag[static_cast<std::size_t>(slot)] = needed[kr];
                    // padded column w is x's column w - pad (pads may be negative: crops)
                    const i64 left = xg.pad_begin[2], IW = xg.in[2];
                    const i64 lo = left > 0 ? left : 0, hi = left + IW < PW ? left + IW : PW;
                    for (i64 lb = 0; lb < LB; ++lb) {
                        for (i64 f = 0; f < lo * B; ++f) to[lb * plane + f] = 0.0f;
                        for (i64 f = hi * B; f < PW * B; ++f) to[lb * plane + f] = 0.0f;
                    }
                    pack_blocked<B>(x + (needed[kr] * IW + lo - left) * C, hi - lo, C, LB, to + lo * B, plane);
                }
                row_of[kr] = to;
            }
            pack_blocked<B>(dy + row * OW * C, OW, C, LB, dy_row, OW * B);
            if (row + 1 < row_end) {  // the next row's new inputs start coming from memory while this one runs
                const i64 oh1 = (row + 1) % g.out[1], od1 = ((row + 1) / g.out[1]) % g.out[0], n1 = (row + 1) / (g.out[1] * g.out[0]);
                for (i64 kr = 0; kr < KR; ++kr) {
                    const i64 id = od1 * g.stride[0] + (kr / g.kernel[1]) * g.dilation[0] - xg.pad_begin[0];
                    const i64 ih = oh1 * g.stride[1] + (kr % g.kernel[1]) * g.dilation[1] - xg.pad_begin[1];
                    if (id < 0 || id >= xg.in[0] || ih < 0 || ih >= xg.in[1]) continue;
                    const i64 key = (n1 * xg.in[0] + id) * xg.in[1] + ih;
                    bool held = false;
                    for (const i64 t : tag) held = held || t == key;
                    if (held) continue;
                    const char* from = reinterpret_cast<const char*>(x + key * xg.in[2] * C);
                    for (i64 b = 0; b < xg.in[2] * C * i64{4}; b += 64) __builtin_prefetch(from + b);
                }
                const char* from = reinterpret_cast<const char*>(dy + (row + 1) * OW * C);
                for (i64 b = 0; b < OW * C * i64{4}; b += 64) __builtin_prefetch(from + b);
            }
            const bool first = row == row_begin;
            for (i64 lb = 0; lb < LB; ++lb)
                for (i64 tile = t_begin; tile < t_end; ++tile) {
                    const i64 q0 = tile * R, lane0 = lb * B, lanes = min_i64(B, C - lane0);
                    const float* x_at[R];
                    for (int r = 0; r < R; ++r) {
                        const i64 q = q0 + min_i64(r, taps - q0 - 1), kw = q % g.kernel[2];
                        const float* base = row_of[q / g.kernel[2]];
                        x_at[r] = base == p.zeros ? base : base + lb * plane + kw * g.dilation[2] * B;
                    }
                    const TileHome home{dw + q0 * C + lane0, C, 1, min_i64(R, taps - q0), lanes};
                    const TileHome bias_home{dw + p.bias_at + lane0, 0, 1, 1, lanes};
                    if (p.bias_at >= 0 && q0 == 0)
                        depthwise_tile<R, NB, true>(x_at, dy_row + lb * OW * B, OW, g.stride[2] * B, home, bias_home, first);
                    else
                        depthwise_tile<R, NB, false>(x_at, dy_row + lb * OW * B, OW, g.stride[2] * B, home, bias_home, first);
                }
        }
    }
}

}  // namespace
}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
