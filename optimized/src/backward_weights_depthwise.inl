// The depthwise backward-weights kernel (ICg = OCg = 1), compiled once per ISA after
// backward_weights_kernels.inl. Output row by output row, the input rows its taps reach are packed
// (once, kept while later rows need them) into a channel-blocked row [lane block][padded width][NB*W]
// (the lane blocks' rows a vector apart when they would be 256-byte aligned: see depthwise_plane)
// with zeros in the padding, and its diff_dst row into [lane block][OW][NB*W] (or, with many channels,
// read where it is: problem.depthwise_dy_direct); a tile (R taps x one lane block) then reads sequential
// streams, as oneDNN's blocked layouts do, from the user's channels-last buffers (or the edges' padded
// copy, which problem.x_geometry describes then). The packing reads each pixel's channels in one
// sequential pass. With problem.depthwise_x_direct nothing of x is packed: the tiles read its rows in
// place, a lane block's columns C floats apart, and zeros for the columns outside x (TileX).
// Each element is summed over the output pixels in increasing (n, od, oh, ow) order, as the general
// kernel does (a 3x3 stride-1 tile walks input columns instead of taps: the same terms in the same order).

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// One column iw of a 3x3 tile's three input rows xr[kh] (stride 1, no dilation: taps kh*3 + kw read
// columns ow + kw): acc[kh][kw] += x[kh][iw] * dy[iw - kw] for the kw enabled, d0/d1/d2 = dy[iw], dy[iw - 1],
// dy[iw - 2]. Each input vector is loaded once for its three taps.
template <int NB, bool K0, bool K1, bool K2>
[[gnu::always_inline]] inline void window_column(vf* acc, const float* const* xr, i64 xo, const vf* d0, const vf* d1,
                                                 const vf* d2) {
#pragma GCC unroll 3
    for (int kh = 0; kh < 3; ++kh)
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) {
            vf v = load(xr[kh] + xo + j * W);
            asm("" : "+v"(v));  // one load for the three taps (the compiler would fold it into each FMA)
            if constexpr (K0) acc[(kh * 3) * NB + j] = fma(v, d0[j], acc[(kh * 3) * NB + j]);
            if constexpr (K1) acc[(kh * 3 + 1) * NB + j] = fma(v, d1[j], acc[(kh * 3 + 1) * NB + j]);
            if constexpr (K2) acc[(kh * 3 + 2) * NB + j] = fma(v, d2[j], acc[(kh * 3 + 2) * NB + j]);
        }
}

// Where a tile reads x: per (row, tap) the row's column 0 (x_at, plus lane), per tap its column offset kcol
// (kw * dilation), x_step floats from one column of a lane block to the next, and the padded columns
// [lo, hi) that hold x: column c of row i is x_at[i] + lane + (c - lo) * x_step there and zeros (a vector
// of them at `zeros`) outside. Packed rows hold their padding (lo = 0, hi = padded width, x_step the
// lane block); x read in place does not (x_step = C, [lo, hi) where the pads put x).
struct TileX {
    const float* const* x_at;
    i64 lane;  // floats added to each of x_at's pointers: the lane block's first channel for x in place, else 0
    const i64* kcol;
    i64 x_step, lo, hi;
    const float* zeros;
    // x and diff_dst in place with a lane block after this one: floats to its lines (B), which the
    // tile prefetches, else 0
    i64 ahead;
};

// One tile over `rows` output rows: acc[r] += x(row, tap r, column ow*S + kcol[r]) * dk[row][ow] for ow
// in [0, OW), in increasing ow. Window (3x3 taps, stride 1, no dilation, OW >= 2): the same terms, each
// element's in the same order, walked by input column instead (window_column): 4 loads per pixel, not
// 10. Only the columns outside [lo, hi) pick zeros (the others' pointers step evenly).
template <int R, int NB, bool Bias, bool Window>
void depthwise_tile(const TileX& tx, const float* const* dk_rows, i64 dk_step, i64 rows, i64 OW, i64 S,
                    const TileHome& home, const TileHome& bias_home, bool first) {
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
    const i64 xs = tx.x_step, lo = tx.lo, hi = tx.hi;
    // column c of a row starting at `at` (checked: zeros outside [lo, hi))
    const auto column = [&](const float* at, i64 c) __attribute__((always_inline)) { return c >= lo && c < hi ? at + (c - lo) * xs : tx.zeros; };
    for (i64 row = 0; row < rows; ++row) {
        const float* at[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) at[r] = tx.x_at[row * R + r] + tx.lane;
        const float* dk = dk_rows[row];
        if constexpr (Window) {
            static_assert(R == 9, "a 3x3 window needs a tile of 9 taps");
            vf d0[NB], d1[NB], d2[NB];
            const auto next = [&](i64 iw) __attribute__((always_inline)) {  // d0 = dy[iw] (and the bias), the older ones shifted
#pragma GCC unroll 4
                for (int j = 0; j < NB; ++j) {
                    d2[j] = d1[j], d1[j] = d0[j], d0[j] = load(dk + iw * dk_step + j * W);
                    if constexpr (Bias) bias[j] = fma(d0[j], one, bias[j]);
                }
            };
            const auto checked = [&](i64 c, const float** xr) __attribute__((always_inline)) {
                for (int kh = 0; kh < 3; ++kh) xr[kh] = column(at[kh * 3], c);
            };
            const float* xr[3];
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) d1[j] = d0[j] = zero();
            next(0);
            checked(0, xr);
            window_column<NB, true, false, false>(acc, xr, 0, d0, d1, d2);
            next(1);
            checked(1, xr);
            window_column<NB, true, true, false>(acc, xr, 0, d0, d1, d2);
            // columns [2, OW): those in [a, b) read x, stepping evenly from its first
            const i64 a = lo < 2 ? 2 : lo > OW ? OW : lo, b = hi < a ? a : hi > OW ? OW : hi;
            i64 iw = 2;
            for (; iw < a; ++iw) {
                next(iw);
                checked(iw, xr);
                window_column<NB, true, true, true>(acc, xr, 0, d0, d1, d2);
            }
            // (each row's column lo at its first float: no pointer is formed before a row)
            const float* even[3] = {at[0], at[3], at[6]};
            for (; iw < b; ++iw) {
                next(iw);
                if (tx.ahead > 0) {  // the next lane block's lines of the newest input row and of diff_dst
                    const float* px = even[2] + (iw - lo) * xs + tx.ahead;
                    const float* pd = dk + iw * dk_step + tx.ahead;
                    prefetch_l2(px), prefetch_l2(px + kLineFloats), prefetch_l2(pd), prefetch_l2(pd + kLineFloats);
                }
                window_column<NB, true, true, true>(acc, even, (iw - lo) * xs, d0, d1, d2);
            }
            for (; iw < OW; ++iw) {
                next(iw);
                checked(iw, xr);
                window_column<NB, true, true, true>(acc, xr, 0, d0, d1, d2);
            }
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) d2[j] = d1[j], d1[j] = d0[j];
            checked(OW, xr);
            window_column<NB, false, true, true>(acc, xr, 0, d0, d1, d2);
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) d2[j] = d1[j];
            checked(OW + 1, xr);
            window_column<NB, false, false, true>(acc, xr, 0, d0, d1, d2);
            continue;
        }
        const auto pixel = [&](i64 ow, const float* const* xr, i64 xo) __attribute__((always_inline)) {
            vf d[NB];
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) d[j] = load(dk + ow * dk_step + j * W);
            if constexpr (Bias)
#pragma GCC unroll 4
                for (int j = 0; j < NB; ++j) bias[j] = fma(d[j], one, bias[j]);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
                for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(load(xr[r] + xo + j * W), d[j], acc[r * NB + j]);
        };
        // pixels [a, b) read every tap's column in [lo, hi), their pointers stepping evenly
        i64 kmin = tx.kcol[0], kmax = tx.kcol[0];
        for (int r = 1; r < R; ++r) kmin = tx.kcol[r] < kmin ? tx.kcol[r] : kmin, kmax = tx.kcol[r] > kmax ? tx.kcol[r] : kmax;
        i64 a = lo - kmin <= 0 ? 0 : (lo - kmin + S - 1) / S, b = hi - kmax <= 0 ? 0 : (hi - kmax - 1) / S + 1;
        a = a > OW ? OW : a, b = b > OW ? OW : b < a ? a : b;
        const float* xr[R];
        const auto checked_pixel = [&](i64 ow) __attribute__((always_inline)) {
            for (int r = 0; r < R; ++r) xr[r] = column(at[r], ow * S + tx.kcol[r]);
            pixel(ow, xr, 0);
        };
        for (i64 ow = 0; ow < a; ++ow) checked_pixel(ow);
        // from pixel a on, each tap's column a*S + kcol[r] (in [lo, hi)) and then every S-th: no pointer before a row
        const float* even[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) even[r] = a < b ? at[r] + (a * S + tx.kcol[r] - lo) * xs : nullptr;
        // the next lane block's lines of the columns this pixel reads first (those the pixel before did not) and of
        // diff_dst, as the window does
        bool fresh[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) fresh[r] = tx.kcol[r] > kmax - S;
        for (i64 ow = a; ow < b; ++ow) {
            if (tx.ahead > 0) {
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r)
                    if (fresh[r]) {
                        const float* px = even[r] + (ow - a) * S * xs + tx.ahead;
                        prefetch_l2(px), prefetch_l2(px + kLineFloats);
                    }
                const float* pd = dk + ow * dk_step + tx.ahead;
                prefetch_l2(pd), prefetch_l2(pd + kLineFloats);
            }
            pixel(ow, even, (ow - a) * S * xs);
        }
        for (i64 ow = b; ow < OW; ++ow) checked_pixel(ow);
    }
    home_store<R, NB>(acc, home);
    if constexpr (Bias) home_store<1, NB>(bias, bias_home);
}

// `count` pixels (C floats apart) of `channels` channels into [lane block][count][B] (zeros past `channels`),
// `stride` floats per lane block: an item's lane blocks, `from` and `to` at its first.
template <int B>
void pack_blocked(const float* from, i64 count, i64 C, i64 channels, i64 lane_blocks, float* to, i64 stride) {
    const i64 full = channels / B;  // lane blocks of B channels
    // pixel after pixel (each pixel's channels are one sequential read), its lane blocks to their rows
    for (i64 px = 0; px < count; ++px) {
        const float* f = from + px * C;
        float* t = to + px * B;
        for (i64 lb = 0; lb < full; ++lb)
#pragma GCC unroll 4
            for (int j = 0; j < B / W; ++j) store(t + lb * stride + j * W, load(f + lb * B + j * W));
    }
    if (full == lane_blocks) return;
    const i64 lanes = channels - full * B;
    for (i64 px = 0; px < count; ++px) {
        float* out = to + full * stride + px * B;
        for (i64 l = 0; l < lanes; ++l) out[l] = from[px * C + full * B + l];
        for (i64 l = lanes; l < B; ++l) out[l] = 0.0f;
    }
}

// dw [taps][C]; scratch: problem.scratch_floats() (the packed input rows unless x is read in place,
// then the packed diff_dst rows unless diff_dst is); ints: problem.scratch_offsets() (the slots' keys and stamps, per (row, kd, kh) of a block its
// key and slot, per (row, tap of a tile) its packed column). Output rows go in blocks of
// problem.rows_per_block, a tile over a whole block. No std:: container here: see optimized.md.
void depthwise_items(const BackwardWeightsProblem& p, const float* x, const float* dy, float* dw, i64 row_begin,
                     i64 row_end, i64 begin, i64 end, float* scratch, i64* ints) {
    constexpr int R = kDepthwiseRows, NB = kDepthwiseBlocks;
    constexpr i64 B = NB * W;
    constexpr i64 kMaxRows = 128;  // rows_per_block's bound (plan_problem)
    const Geometry& g = *p.geometry;     // output sizes, kernel, strides, dilations
    const Geometry& xg = *p.x_geometry;  // x's sizes and pads
    const i64 taps = g.taps(), C = g.out_channels, OW = g.out[2], LB = p.lane_blocks, RB = p.rows_per_block;
    const i64 PW = g.padded[2], plane = p.depthwise_plane(), row_floats = LB * plane, KR = g.kernel[0] * g.kernel[1];
    const i64 dplane = p.depthwise_dy_plane();
    const i64 slots = p.depthwise_slots();
    float* const dy_rows = scratch + (p.depthwise_x_direct ? 0 : slots * row_floats);  // [row of the block][LB][dplane]
    i64* const tag = ints;                      // per slot: the key of the row it holds (-2: none)
    i64* const stamp = tag + slots;             // per slot: the last block that uses it
    i64* const needed = stamp + slots;          // per (row, kd, kh) of the block: its key, -1 in the padding
    i64* const slot_of = needed + RB * KR;      // and its slot, -1 for the zeros
    i64* const x_base = slot_of + RB * KR;      // per (row, tap of the tile): packed floats at lane block 0, -1: zeros
    const float* x_at[kMaxRows * R];
    const float* dk[kMaxRows];
    const auto find = [&](i64 key) {
        for (i64 s = 0; s < slots; ++s)
            if (tag[s] == key) return s;
        return i64{-1};
    };
    // 3x3 taps, stride and dilation 1 along the width, at least 2 output columns: the window tile
    const bool window = R == 9 && taps == 9 && g.kernel[1] == 3 && g.kernel[2] == 3 && g.stride[2] == 1 &&
                        g.dilation[2] == 1 && OW >= 2;
    // diff_dst read where it is (its lane blocks' rows C floats a pixel apart) when a pixel's channels
    // span many lines (packing them is then slower than reading them strided: 576 channels 0.65 ->
    // 0.58 ms, 32 channels 2.7 -> 3.0 ms) and no vector load goes past its last element (C a multiple
    // of the lanes); else packed as the input rows are
    const bool dy_direct = p.depthwise_dy_direct, x_direct = p.depthwise_x_direct;
    const i64 dk_step = dy_direct ? C : B;
    // x read in place: its rows' column 0 is padded column `left` (plan_problem: no crop along the width)
    const i64 left = xg.pad_begin[2], IW = xg.in[2];
    i64 kcol[R];
    i64 block = 0;  // stamps the slots a block keeps
    for (i64 item = begin, next_item; item < end; item = next_item) {
        // item = (chunk of tiles, chunk of lane blocks); the items of [begin, end) with the same chunk of tiles walk
        // as one (their lane chunks are consecutive, the same sums: one setup, and each lane block's lines fetched
        // while the one before it computes, as an item's own are): lane blocks [lb_begin, lb_end), channels
        // [lb_begin * B, ch_end), the only ones it packs (a slot holds one walk's: none kept across walks)
        const i64 tile_chunk = item / p.lane_chunks(), lane_chunk = item % p.lane_chunks();
        next_item = min_i64(end, (tile_chunk + 1) * p.lane_chunks());
        const i64 t_begin = tile_chunk * p.tiles_per_item, t_end = min_i64(p.tiles, t_begin + p.tiles_per_item);
        const i64 lb_begin = lane_chunk * p.lane_blocks_per_item,
                  lb_end = min_i64(LB, lb_begin + (next_item - item) * p.lane_blocks_per_item);
        const i64 ch_begin = lb_begin * B, channels = min_i64(C, lb_end * B) - ch_begin;
        for (i64 s = 0; s < slots; ++s) tag[s] = -2, stamp[s] = -1;
        for (i64 rb = row_begin; rb < row_end; rb += RB, ++block) {
            const i64 rows = min_i64(RB, row_end - rb);
            // the input rows of each (row, kd, kh), as keys (n, id, ih) in x, -1 in the padding; those
            // already packed are kept for this block (stamp), the others packed into slots no key of it holds
            // (a row's divisions once, not per key: with many lane chunks, as dw960_7 cut for 2 threads, each item
            // walks these keys again)
            for (i64 r = 0, i = 0; r < rows; ++r) {
                const i64 row = rb + r;
                const i64 oh = row % g.out[1], od = (row / g.out[1]) % g.out[0], n = row / (g.out[1] * g.out[0]);
                for (i64 kd = 0; kd < g.kernel[0]; ++kd)
                    for (i64 kh = 0; kh < g.kernel[1]; ++kh, ++i) {
                        const i64 id = od * g.stride[0] + kd * g.dilation[0] - xg.pad_begin[0];
                        const i64 ih = oh * g.stride[1] + kh * g.dilation[1] - xg.pad_begin[1];
                        needed[i] = id >= 0 && id < xg.in[0] && ih >= 0 && ih < xg.in[1] ? (n * xg.in[0] + id) * xg.in[1] + ih : -1;
                        slot_of[i] = needed[i] < 0 || x_direct ? -1 : find(needed[i]);
                        if (slot_of[i] >= 0) stamp[slot_of[i]] = block;
                    }
            }
            for (i64 i = 0; i < rows * KR; ++i) {
                if (needed[i] < 0 || slot_of[i] >= 0 || x_direct) continue;
                i64 s = find(needed[i]);  // packed for an earlier key of this block
                if (s < 0) {
                    s = 0;
                    while (stamp[s] == block) ++s;  // slots >= keys of a block + 1
                    stamp[s] = block, tag[s] = needed[i];
                    float* to = scratch + s * row_floats;
                    // padded column w is x's column w - pad (pads may be negative: crops); x fills the
                    // padded columns [lo, hi), none when a pad or a crop puts x wholly outside the padded row
                    // (pb beyond the padded width, or x cropped off entirely: pb < -IW)
                    const i64 lo = min_i64(left > 0 ? left : 0, PW);
                    const i64 hi = left + IW < lo ? lo : min_i64(left + IW, PW);
                    for (i64 lb = lb_begin; lb < lb_end; ++lb) {
                        for (i64 f = 0; f < lo * B; ++f) to[lb * plane + f] = 0.0f;
                        for (i64 f = hi * B; f < PW * B; ++f) to[lb * plane + f] = 0.0f;
                    }
                    if (hi > lo) pack_blocked<B>(x + (needed[i] * IW + lo - left) * C + ch_begin, hi - lo, C, channels, lb_end - lb_begin,
                                                   to + lb_begin * plane + lo * B, plane);
                }
                slot_of[i] = s;
            }
            if (!dy_direct)
                for (i64 row = 0; row < rows; ++row)
                    pack_blocked<B>(dy + (rb + row) * OW * C + ch_begin, OW, C, channels, lb_end - lb_begin,
                                    dy_rows + (row * LB + lb_begin) * dplane, dplane);
            for (i64 tile = t_begin; tile < t_end; ++tile) {
                // per (row, tap of the tile): its row (packed, or in x) at lane block 0, or -1 for the zeros;
                // per tap its column offset
                const i64 q0 = tile * R;
                i64 tap_kr[R];  // per tap of the tile its (kd, kh)
                for (int r = 0; r < R; ++r) {
                    const i64 q = q0 + min_i64(r, taps - q0 - 1);
                    kcol[r] = q % g.kernel[2] * g.dilation[2], tap_kr[r] = q / g.kernel[2];
                }
                // x in place: each (row, tap)'s row at lane 0 (the zeros' row for the padding, as long as x's), the
                // same for every lane block (TileX::lane); packed: its slot's offset, the pointers per lane block
                for (i64 row = 0; row < rows; ++row)
                    for (int r = 0; r < R; ++r) {
                        const i64 kr = row * KR + tap_kr[r];
                        const i64 slot = slot_of[kr];
                        if (x_direct)
                            x_at[row * R + r] = needed[kr] < 0 ? p.zeros : x + needed[kr] * IW * C;
                        else
                            x_base[row * R + r] = slot < 0 ? -1 : slot * row_floats;
                    }
                for (i64 lb = lb_begin; lb < lb_end; ++lb) {
                    const i64 lane0 = lb * B, lanes = min_i64(B, C - lane0);
                    if (!x_direct)
                        for (i64 i = 0; i < rows * R; ++i) x_at[i] = x_base[i] < 0 ? p.zeros : scratch + x_base[i] + lb * plane;
                    const i64 ahead = x_direct && dy_direct && lb + 1 < lb_end ? B : 0;
                    const TileX tx = x_direct ? TileX{x_at, lane0, kcol, C, left, left + IW, p.zeros, ahead}
                                              : TileX{x_at, 0, kcol, B, 0, PW, p.zeros, 0};
                    for (i64 row = 0; row < rows; ++row)
                        dk[row] = dy_direct ? dy + (rb + row) * OW * C + lane0 : dy_rows + (row * LB + lb) * dplane;
                    const TileHome home{dw + q0 * C + lane0, C, 1, min_i64(R, taps - q0), lanes};
                    const TileHome bias_home{dw + p.bias_at + lane0, 0, 1, 1, lanes};
                    const bool first = rb == row_begin;
                    // a last lane block of one vector (C = 144 with blocks of 32) by the one-vector tile
                    const auto tile = [&]<int nb>() __attribute__((always_inline)) {
                        if (window && p.bias_at >= 0)
                            depthwise_tile<R, nb, true, true>(tx, dk, dk_step, rows, OW, 1, home, bias_home, first);
                        else if (window)
                            depthwise_tile<R, nb, false, true>(tx, dk, dk_step, rows, OW, 1, home, bias_home, first);
                        else if (p.bias_at >= 0 && q0 == 0)
                            depthwise_tile<R, nb, true, false>(tx, dk, dk_step, rows, OW, g.stride[2], home, bias_home, first);
                        else
                            depthwise_tile<R, nb, false, false>(tx, dk, dk_step, rows, OW, g.stride[2], home, bias_home, first);
                    };
                    if (NB > 1 && lanes <= W)
                        tile.template operator()<1>();
                    else
                        tile.template operator()<NB>();
                }
            }
        }
    }
}

}  // namespace
}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
