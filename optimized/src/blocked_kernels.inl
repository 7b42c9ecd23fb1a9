// The register-blocked direct kernel, written once and compiled once per ISA: blocked_avx512.cpp and
// blocked_avx2.cpp include their ISA's vocabulary (isa_avx512.hpp, isa_avx2.hpp: the vector type `vf`,
// its width W, load/broadcast/fma/store) and tile sizes, then this file, each with its own -m flags.
//
// One register tile computes R output pixels times NB*W output channels, for one block of input
// channels [ic0, ic0 + icb):
//   acc[r][j] = (first block ? bias : y);  for tap (kd, kh, kw): for ic in the block:
//       w[j] = weights[tap][ic][j*W .. j*W+W);  acc[r][j] += xp[pixel(r) + tap, ic] * w[j]
//   y = acc
// so every output is summed in one order (bias, then per input-channel block: taps outermost-first,
// input channels), whatever tile or thread computes it; storing and reloading an f32 partial sum is
// exact. No std:: templates here: an inline function instantiated with AVX-512 enabled must not be
// shared with other units; the scratch comes from the caller (BlockedProblem::scratch_elements()).

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

struct TileArgs {
    const float* x;             // xp at the item's plane (tap 0), channel g*ICg + ic0
    const i64* x_offsets;       // per pixel of the tile: its offset from x
    const i64* tap_offsets;
    const i64* tap_list;        // the taps this tile visits (those inside the input for some pixel of it)
    i64 taps, in_per_group, ic_count;  // taps: entries of tap_list
    const float* w;             // packed weights of this (g, ocs), at [tap 0][ic0]: [taps][ICg][NB*W]
    i64 w_ic_step;              // floats from one input channel's NB*W weights to the next's (NB*W when packed)
    const float* bias;          // packed bias of this (g, ocs), or null
    const float* pixel_bias;    // or per pixel of the tile: one value for all its channels (or null)
    bool accumulate;            // start from y (a later input-channel block) instead of the bias
    float* y;                   // y at the tile's first pixel, first channel of the block
    i64 y_pixel_step;           // O
    i64 oc_valid;               // channels of the block that exist (<= NB*W)
    const i64* next_offsets;    // per pixel of the next tile (R of them): its offset from x, to prefetch; or null
};

template <int NB, int R>
void blocked_tile(const TileArgs& a) {
    vf acc[R * NB];  // acc[r * NB + j]: pixel r, channels [j*W, j*W + W) of the block
    i64 off[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) off[r] = a.x_offsets[r];
    if (a.accumulate) {
        load_tile<R, NB>(acc, a.y, a.y_pixel_step, a.oc_valid);
    } else {
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) {
            const vf b = a.bias ? load(a.bias + j * W) : zero();
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) acc[r * NB + j] = a.pixel_bias ? broadcast(a.pixel_bias + r) : b;
        }
    }
    for (i64 tt = 0; tt < a.taps; ++tt) {
        const i64 t = a.tap_list[tt];
        const float* px = a.x + a.tap_offsets[t];
        const float* w = a.w + t * a.in_per_group * a.w_ic_step;
        // with next_offsets, one cache line of each of the next tile's pixels per W input channels: the
        // next tile's input arrives while this one computes; without, one pass over all the channels
        const i64 chunk = a.next_offsets ? W : a.ic_count;
        for (i64 ic0 = 0; ic0 < a.ic_count; ic0 += chunk) {
            if (a.next_offsets)
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) __builtin_prefetch(px + a.next_offsets[r] + ic0, 0, 3);
            const i64 ic1 = min_i64(ic0 + chunk, a.ic_count);
            for (i64 ic = ic0; ic < ic1; ++ic) {
                vf wv[NB];
#pragma GCC unroll 8
                for (int j = 0; j < NB; ++j) wv[j] = load(w + j * W);
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) {
                    const vf b = broadcast(px + off[r] + ic);
#pragma GCC unroll 8
                    for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(b, wv[j], acc[r * NB + j]);
                }
                w += a.w_ic_step;
            }
        }
    }
    store_tile<R, NB>(acc, a.y, a.y_pixel_step, a.oc_valid);
}

using BlockedTileFn = void (*)(const TileArgs&);

template <int NB, int R>
BlockedTileFn pick_blocked(int r) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        return r == R ? &blocked_tile<NB, R> : pick_blocked<NB, R - 1>(r);
    }
}

BlockedTileFn blocked_tile_for(int nb, int r) {
    switch (nb) {
    case 1: return pick_blocked<1, kTileWidth[1]>(r);
    case 2: return pick_blocked<2, kTileWidth[2]>(r);
    case 3: return pick_blocked<3, kTileWidth[3]>(r);
    case 4: return pick_blocked<4, kTileWidth[4]>(r);  // nullptr where the ISA has no 4-block tile
    case 5: return pick_blocked<5, kTileWidth[5]>(r);
    case 6: return pick_blocked<6, kTileWidth[6]>(r);
    default: return nullptr;
    }
}

}  // namespace

int max_vector_blocks() { return kMaxVectorBlocks; }
int tile_width(int vector_blocks) { return kTileWidth[vector_blocks]; }

namespace {

// The taps a tile of output rows [oh_first, oh_last] (in plane od) visits: every (kd, kh) whose input
// row lies inside the input for at least one of its rows, with all kw. A tap that lies in the
// padding for every pixel of the tile only adds zeros, so it is skipped (as oneDNN does); the
// list depends only on the tile, never on the thread count.
// With merge_kw, only the kw = 0 tap of each kept (kd, kh) is listed: the caller runs the kw taps as
// one longer input-channel loop (see blocked_pixels).
i64 tile_taps(const Geometry& g, i64 od, i64 oh_first, i64 oh_last, bool merge_kw, i64* list) {
    i64 count = 0;
    for (i64 kd = 0; kd < g.kernel[0]; ++kd) {
        const i64 id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        if (id < 0 || id >= g.in[0]) continue;
        for (i64 kh = 0; kh < g.kernel[1]; ++kh) {
            const i64 ih_first = oh_first * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            const i64 ih_last = oh_last * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            if (ih_last < 0 || ih_first >= g.in[1]) continue;
            for (i64 kw = 0; kw < (merge_kw ? 1 : g.kernel[2]); ++kw)
                list[count++] = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
        }
    }
    return count;
}

// A run of output pixels of one (group grp, output-channel super block ocs) for blocked_pixels.
struct PixelRun {
    const float* x = nullptr;          // the tap-0 input of the pixels' plane, channel grp*ICg
    const i64* x_offsets = nullptr;    // per pixel: its offset from x
    const i64* rows = nullptr;         // per pixel: its output row in plane od, or null: every tap
    i64 od = 0;
    float* y = nullptr;                // the first pixel's output, first channel of the block
    i64 y_pixel_step = 0;              // pixel i's output is at y + i * y_pixel_step
    i64 count = 0, grp = 0, ocs = 0;
    const float* pixel_bias = nullptr;  // BlockedSegment::pixel_bias
};

// The run's pixels, every input-channel block in turn, in register tiles. scratch: two tap lists
// (BlockedProblem::scratch_elements()).
void blocked_pixels(const BlockedProblem& p, const PixelRun& run, i64* scratch) {
    const Geometry& g = *p.geometry;
    const int nb = p.vector_blocks;
    const int full = kTileWidth[nb];
    const i64 block = static_cast<i64>(nb) * W;
    const i64 taps = g.taps(), count = run.count;
    const BlockedTileFn full_tile = blocked_tile_for(nb, full);
    const BlockedTileFn last_tile = count % full ? blocked_tile_for(nb, static_cast<int>(count % full)) : nullptr;
    // When the kw taps of a kernel row read consecutive input (dilation_w 1, one group, no channel
    // padding, one input-channel block), the pairs (kw, ic) are KW*ICg consecutive floats of the input
    // and of the packed weights: the kernel runs them as one input-channel loop of KW*ICg. The
    // products and their order are exactly those of the tap-by-tap loop.
    const bool merge_kw = g.dilation[2] == 1 && g.groups == 1 && g.channel_stride == g.in_per_group &&
                          p.ic_block >= g.in_per_group && g.kernel[2] > 1;
    const i64 merged = merge_kw ? g.kernel[2] : 1;
    i64* all_taps = scratch;
    i64* some_taps = scratch + taps;
    i64 all_count = 0;
    for (i64 t = 0; t < taps; t += merged) all_taps[all_count++] = t;
    // A 1x1 layer with one output-channel super block (each input pixel is read once) and more input
    // than kPrefetchInputAbove (per ISA): each full tile prefetches the next tile's input into L1 as it
    // goes (a channels-last tile's input is R interleaved streams, which the hardware alone fetched
    // late). Measured on the Xeon, 1 thread, batch 8: pw144->24@56 1.62-1.65 -> 1.44-1.46 ms,
    // pw192->32@28 0.49-0.52 -> 0.44, res2_1x1_reduce 8.9-9.4 -> 6.5-6.9; with several super blocks the
    // input is already in the cache for all but the first, and the prefetches cost time (pw16->96@112
    // 3.1-4.4 -> 5.8-7.3 ms, res4_1x1_1024 about 10%), as they did on layers that stay in L2
    // (docs/performance-forward-2t.md). The results are the same bits: a prefetch changes no sum.
    const i64 input_bytes = g.batch * g.padded[0] * g.padded[1] * g.padded[2] * g.channel_stride * 4;
    const bool prefetch = kPrefetchInputAbove >= 0 && taps == 1 && p.oc_super_blocks == 1 &&
                          input_bytes > kPrefetchInputAbove;
    TileArgs a;
    a.tap_offsets = p.tap_offsets;
    a.in_per_group = g.in_per_group;
    a.bias = p.bias ? p.bias + (run.grp * p.oc_super_blocks + run.ocs) * block : nullptr;
    a.y_pixel_step = run.y_pixel_step;
    a.oc_valid = min_i64(block, g.out_per_group - run.ocs * block);
    a.w_ic_step = p.weights_ic_step > 0 ? p.weights_ic_step : block;
    const i64 w_block_step = p.weights_block_step > 0 ? p.weights_block_step : taps * g.in_per_group * block;
    const float* w = p.weights + (run.grp * p.oc_super_blocks + run.ocs) * w_block_step;
    // When every tap lies inside the input for the run's first and last rows, it does for every row
    // between them (the run's rows ascend): each tile visits every tap, as tile_taps would list them
    const bool every_tap = run.rows == nullptr ||
                           (tile_taps(g, run.od, run.rows[0], run.rows[0], merge_kw, some_taps) == all_count &&
                            tile_taps(g, run.od, run.rows[count - 1], run.rows[count - 1], merge_kw, some_taps) == all_count);
    const auto set_taps = [&](i64 first, i64 n) {
        if (every_tap) {
            a.tap_list = all_taps;
            a.taps = all_count;
        } else {
            a.tap_list = some_taps;
            a.taps = tile_taps(g, run.od, run.rows[first], run.rows[first + n - 1], merge_kw, some_taps);
        }
    };
    for (i64 ic0 = 0; ic0 < g.in_per_group; ic0 += p.ic_block) {
        a.ic_count = min_i64(p.ic_block, g.in_per_group - ic0) * merged;
        a.accumulate = ic0 > 0;
        a.x = run.x + ic0;
        a.w = w + ic0 * a.w_ic_step;
        i64 i = 0;
        for (; i + full <= count; i += full) {
            a.x_offsets = run.x_offsets + i;
            a.pixel_bias = run.pixel_bias ? run.pixel_bias + i : nullptr;
            a.next_offsets = prefetch && i + 2 * full <= count ? run.x_offsets + i + full : nullptr;
            a.y = run.y + i * run.y_pixel_step;
            set_taps(i, full);
            full_tile(a);
        }
        if (i < count) {
            a.x_offsets = run.x_offsets + i;
            a.pixel_bias = run.pixel_bias ? run.pixel_bias + i : nullptr;
            a.next_offsets = nullptr;
            a.y = run.y + i * run.y_pixel_step;
            set_taps(i, count - i);
            last_tile(a);
        }
    }
}

constexpr i64 kMaxChunk = 1024;

}  // namespace

void blocked_segment(const BlockedProblem& p, const BlockedSegment& segment, i64* scratch) {
    i64 offsets[kMaxChunk];
    PixelRun run;
    run.x_offsets = offsets;
    run.y_pixel_step = segment.y_pixel_step;
    run.grp = segment.grp;
    run.ocs = segment.ocs;
    for (i64 i0 = 0; i0 < segment.count; i0 += kMaxChunk) {
        run.count = min_i64(kMaxChunk, segment.count - i0);
        for (i64 i = 0; i < run.count; ++i) offsets[i] = i * segment.x_pixel_step;
        run.x = segment.x + i0 * segment.x_pixel_step;
        run.y = segment.y + i0 * segment.y_pixel_step;
        run.pixel_bias = segment.pixel_bias ? segment.pixel_bias + i0 : nullptr;
        blocked_pixels(p, run, scratch);
    }
}

void blocked_items(const BlockedProblem& p, const float* xp, float* y, i64* scratch, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 block = static_cast<i64>(p.vector_blocks) * W;
    const i64 cs = g.channel_stride, chunks = p.chunks_per_plane(), plane = g.out[1] * g.out[2];
    i64 offsets[kMaxChunk], rows[kMaxChunk];
    PixelRun run;
    run.x_offsets = offsets;
    run.rows = rows;
    run.y_pixel_step = g.out_channels;
    i64 offsets_chunk = -1;
    for (i64 item = begin; item < end; ++item) {
        // item = (((n * G + grp) * OCS + ocs) * OD + od) * chunks + chunk, or with ocs_innermost
        // (((n * G + grp) * OD + od) * chunks + chunk) * OCS + ocs
        i64 rest = item, ocs = 0;
        if (p.ocs_innermost) ocs = rest % p.oc_super_blocks, rest /= p.oc_super_blocks;
        const i64 chunk = rest % chunks; rest /= chunks;
        const i64 od = rest % g.out[0]; rest /= g.out[0];
        if (!p.ocs_innermost) ocs = rest % p.oc_super_blocks, rest /= p.oc_super_blocks;
        const i64 grp = rest % g.groups;
        const i64 n = rest / g.groups;
        const i64 p0 = chunk * p.chunk_pixels, count = min_i64(p.chunk_pixels, plane - p0);
        if (chunk != offsets_chunk) {  // the pixels' offsets and rows depend on the chunk alone
            const i64 OW = g.out[2], row_step = g.stride[1] * g.padded[2] * cs, col_step = g.stride[2] * cs;
            const i64 row_begin = p.xp_first_row * g.padded[2] * cs;
            for (i64 i = 0, oh = p0 / OW, ow = p0 % OW; i < count; ++i) {
                offsets[i] = oh * row_step - row_begin + ow * col_step;
                rows[i] = oh;
                if (++ow == OW) ow = 0, ++oh;
            }
            offsets_chunk = chunk;
        }
        run.x = xp + (n * g.padded[0] + od * g.stride[0] - p.xp_first_plane) * g.padded[1] * g.padded[2] * cs +
                grp * g.in_per_group;
        run.y = y + ((n * g.out[0] + od) * plane + p0) * g.out_channels + grp * g.out_per_group + ocs * block;
        run.od = od;
        run.count = count;
        run.grp = grp;
        run.ocs = ocs;
        blocked_pixels(p, run, scratch);
    }
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
