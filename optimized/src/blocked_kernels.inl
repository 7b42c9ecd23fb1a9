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

#include "blocked_tile.inl"

}  // namespace

int max_vector_blocks() { return kMaxVectorBlocks; }
int tile_width(int vector_blocks) { return kTileWidth[vector_blocks]; }

namespace {

// The output positions along axis a (1 or 2) whose every tap lies inside the input: [lo[a], end[a]).
void interior_ranges(const Geometry& g, i64* lo, i64* end) {
    for (int axis = 1; axis < 3; ++axis) {
        const i64 reach = (g.kernel[axis] - 1) * g.dilation[axis];
        lo[axis] = (g.pad_begin[axis] + g.stride[axis] - 1) / g.stride[axis];
        const i64 last = g.in[axis] - 1 + g.pad_begin[axis] - reach;  // o * stride <= last
        end[axis] = last < 0 ? 0 : last / g.stride[axis] + 1;
    }
}

// The taps a tile whose pixels lie in output rows [oh_first, oh_last] and columns [ow_first, ow_last]
// (of plane od) visits: every (kd, kh, kw) whose input pixel lies inside the input for at least one
// pixel of that rectangle. A tap that lies in the padding for every pixel of the tile only adds zeros,
// so it is skipped (as oneDNN does; the reference sums the taps inside the input only); the list
// depends only on the tile, never on the thread count. The kw taps kept are consecutive, [kw_first,
// kw_first + *kw_count): with merge_kw only kw_first is listed per kept (kd, kh), and the caller runs
// the kw taps as one input-channel loop of *kw_count times as many channels (see blocked_pixels).
i64 tile_taps(const Geometry& g, i64 od, i64 oh_first, i64 oh_last, i64 ow_first, i64 ow_last, bool merge_kw,
              i64* list, i64* kw_count) {
    i64 kw_first = 0, kw_end = 0;
    for (i64 kw = 0; kw < g.kernel[2]; ++kw) {
        const i64 iw_first = ow_first * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
        const i64 iw_last = ow_last * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
        if (iw_last < 0) kw_first = kw + 1;
        if (iw_first < g.in[2]) kw_end = kw + 1;
    }
    *kw_count = kw_end > kw_first ? kw_end - kw_first : 0;
    i64 count = 0;
    if (*kw_count == 0) return 0;
    for (i64 kd = 0; kd < g.kernel[0]; ++kd) {
        const i64 id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        if (id < 0 || id >= g.in[0]) continue;
        for (i64 kh = 0; kh < g.kernel[1]; ++kh) {
            const i64 ih_first = oh_first * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            const i64 ih_last = oh_last * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            if (ih_last < 0 || ih_first >= g.in[1]) continue;
            for (i64 kw = kw_first; kw < (merge_kw ? kw_first + 1 : kw_end); ++kw)
                list[count++] = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
        }
    }
    return count;
}

// Whether the tiles of super block ocs prefetch the next tile's input (blocked_pixels says why)
bool prefetches_input(const BlockedProblem& p, i64 ocs) {
    const Geometry& g = *p.geometry;
    const i64 input_bytes = g.batch * g.padded[0] * g.padded[1] * g.padded[2] * g.channel_stride * 4;
    return kPrefetchInputAbove >= 0 && g.taps() == 1 && input_bytes > kPrefetchInputAbove &&
           (p.oc_super_blocks == 1 || (p.ocs_innermost && ocs == 0));
}

// A run of output pixels of one (group grp, output-channel super block ocs) for blocked_pixels.
struct PixelRun {
    const float* x = nullptr;          // the tap-0 input of the pixels' plane, channel grp*ICg
    const i64* x_offsets = nullptr;    // per pixel: its offset from x; or null: pixel i at offset i * x_step
    float* y = nullptr;                // the plane's output, first channel of the block
    const i64* y_offsets = nullptr;    // per pixel: its output's offset from y; null with x_offsets: i * y_step
    // without offsets (a 1x1 run that visits its tap, rows null): the pixels one step apart (blocked_step_tiles)
    i64 x_step = 0, y_step = 0;
    const i64* rows = nullptr;         // per pixel: its output row in plane od, or null: every tap
    const i64* cols = nullptr;         // per pixel: its output column, or null: rows ascending, every kw
    i64 od = 0;
    i64 count = 0, grp = 0, ocs = 0;
    // the pixels in groups of like taps (blocked_items): group k is [group_ends[k-1], group_ends[k]) (from
    // 0); null: one group
    const i64* group_ends = nullptr;
    i64 groups = 1;
    const float* pixel_bias = nullptr;  // BlockedSegment::pixel_bias
    // src read in place (BlockedProblem::src_in_place): the plane's offset from x, and per pixel its input row
    // and column at tap (0, 0) (TileArgs::in_rows)
    i64 x_shift = 0;
    const i64* in_rows = nullptr;
    const i64* in_cols = nullptr;
    // 1x1 layers (blocked_items says which): the packed weights to bring into the L2 over the run's tiles, or null
    const float* weights_ahead = nullptr;
    i64 ahead_floats = 0;
};

// The run's pixels, every input-channel block in turn, in register tiles: each group of pixels in tiles
// of as equal sizes as the widest tile allows (49 pixels in tiles of 6: five of 5 and four of 6, not eight
// of 6 and one of 1, which streams every weight for one pixel). scratch: two tap lists
// (BlockedProblem::scratch_elements()).
void blocked_pixels(const BlockedProblem& p, const PixelRun& run, i64* scratch) {
    const Geometry& g = *p.geometry;
    const int nb = p.vector_blocks;
    const int full = kTileWidth[nb];
    const i64 block = static_cast<i64>(nb) * W;
    const i64 taps = g.taps(), count = run.count;
    // When the kw taps of a kernel row read consecutive input (dilation_w 1, one group, no channel
    // padding, one input-channel block), the pairs (kw, ic) are KW*ICg consecutive floats of the input
    // and of the packed weights: the kernel runs them as one input-channel loop of KW*ICg (of the kw
    // taps the tile keeps). The products and their order are exactly those of the tap-by-tap loop.
    const bool merge_kw = g.dilation[2] == 1 && g.groups == 1 && g.channel_stride == g.in_per_group &&
                          p.ic_block >= g.in_per_group && g.kernel[2] > 1;
    const i64 merged = merge_kw ? g.kernel[2] : 1;
    i64* all_taps = scratch;
    i64* some_taps = scratch + taps;
    i64 all_count = 0, kw_count = 0;
    for (i64 t = 0; t < taps; t += merged) all_taps[all_count++] = t;
    // A 1x1 layer with one output-channel super block (each input pixel is read once) and more input
    // than kPrefetchInputAbove (per ISA): each full tile prefetches the next tile's input into L1 as it
    // goes (a channels-last tile's input is R interleaved streams, which the hardware alone fetched
    // late). Measured on the Xeon, 1 thread, batch 8: pw144->24@56 1.62-1.65 -> 1.44-1.46 ms,
    // pw192->32@28 0.49-0.52 -> 0.44, res2_1x1_reduce 8.9-9.4 -> 6.5-6.9; with several super blocks the
    // input is already in the cache for all but the first, and the prefetches cost time (pw16->96@112
    // 3.1-4.4 -> 5.8-7.3 ms, res4_1x1_1024 about 10%), as they did on layers that stay in L2
    // (bench/results/forward-threads.md). With ocs_innermost the first super block of a chunk reads its input
    // first, and prefetches (batch 8, 1 thread: res3_downsample 12.1-12.6 -> 11.5-11.9 ms, res3_1x1_512 -4 %;
    // bench/results/forward-1x1.md). The results are the same bits: a prefetch changes no sum.
    const bool prefetch = prefetches_input(p, run.ocs);
    TileArgs a;
    a.x_shift = run.x_shift;
    a.geometry = &g;
    a.zeros = p.zeros;
    a.tap_offsets = p.tap_offsets;
    a.in_per_group = g.in_per_group;
    a.bias = p.bias ? p.bias + (run.grp * p.oc_super_blocks + run.ocs) * block : nullptr;
    a.y = run.y;
    a.oc_valid = min_i64(block, g.out_per_group - run.ocs * block);
    a.w_ic_step = p.weights_ic_step > 0 ? p.weights_ic_step : block;
    const i64 w_block_step = p.weights_block_step > 0 ? p.weights_block_step : taps * g.in_per_group * block;
    const float* w = p.weights + (run.grp * p.oc_super_blocks + run.ocs) * w_block_step;
    // Every kd inside the input (plane od), and the rows and columns whose every tap is inside: a tile of
    // pixels in that rectangle visits every tap, as would a run of them (tile_taps would list them all)
    bool plane_inside = true;
    for (i64 kd = 0; kd < g.kernel[0]; ++kd) {
        const i64 id = run.od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        plane_inside = plane_inside && id >= 0 && id < g.in[0];
    }
    i64 inner[3], inner_end[3];
    interior_ranges(g, inner, inner_end);
    // whether pixels [first, first + n) lie inside; their bounding rectangle [r0, r1] x [c0, c1]. Without
    // columns (raster order, rows ascending) the pixels are taken to span their rows: every kw is visited
    i64 r0 = 0, r1 = 0, c0 = 0, c1 = g.out[2] - 1;
    const auto inside = [&](i64 first, i64 n) {
        if (run.cols == nullptr) {
            r0 = run.rows[first], r1 = run.rows[first + n - 1];
            return plane_inside && r0 >= inner[1] && r1 < inner_end[1];
        }
        r0 = r1 = run.rows[first], c0 = c1 = run.cols[first];
        for (i64 i = first + 1; i < first + n; ++i) {
            r0 = run.rows[i] < r0 ? run.rows[i] : r0, r1 = run.rows[i] > r1 ? run.rows[i] : r1;
            c0 = run.cols[i] < c0 ? run.cols[i] : c0, c1 = run.cols[i] > c1 ? run.cols[i] : c1;
        }
        return plane_inside && r0 >= inner[1] && r1 < inner_end[1] && c0 >= inner[2] && c1 < inner_end[2];
    };
    const bool every_tap = run.rows == nullptr || inside(0, count);
    // the run's groups of pixels, group k [group_end(k - 1), group_end(k)), each in tiles_of(its pixels) tiles; the
    // lines of run.weights_ahead per W input channels of a tile: spread evenly over the run's tiles
    const auto group_end = [&](i64 group) { return run.group_ends ? run.group_ends[group] : count; };
    const auto tiles_of = [&](i64 pixels) { return (pixels + full - 1) / full; };
    i64 run_tiles = 0, ahead_steps = 0;
    for (i64 k = 0; k < run.groups && run.weights_ahead; ++k) run_tiles += tiles_of(group_end(k) - (k ? group_end(k - 1) : 0));
    for (i64 ic0 = 0; ic0 < g.in_per_group && run.weights_ahead; ic0 += p.ic_block)
        ahead_steps += run_tiles * ((min_i64(p.ic_block, g.in_per_group - ic0) + W - 1) / W);
    const char* ahead = reinterpret_cast<const char*>(run.weights_ahead);
    const char* ahead_end = ahead ? ahead + run.ahead_floats * 4 : nullptr;  // (no offset to a null pointer)
    a.ahead_lines = ahead_steps > 0 ? (run.ahead_floats / 16 + ahead_steps - 1) / ahead_steps : 0;
    // the tile's taps and its input-channel loop's length, for input-channel block [ic0, ic0 + ic_count)
    const auto set_taps = [&](i64 first, i64 n, i64 ic_count) {
        a.in_rows = a.in_cols = nullptr;
        if (every_tap || inside(first, n)) {
            a.tap_list = all_taps;
            a.taps = all_count;
            a.ic_count = ic_count * merged;
        } else if (p.src_in_place) {
            // no padding to read: tap by tap, each pixel's taps in the padding reading zeros instead
            a.tap_list = some_taps;
            a.taps = tile_taps(g, run.od, r0, r1, c0, c1, false, some_taps, &kw_count);
            a.ic_count = ic_count;
            a.in_rows = run.in_rows + first;
            a.in_cols = run.in_cols + first;
        } else {
            a.tap_list = some_taps;
            a.taps = tile_taps(g, run.od, r0, r1, c0, c1, merge_kw, some_taps, &kw_count);
            a.ic_count = ic_count * (merge_kw ? kw_count : 1);
        }
    };
    // 1x1 runs whose tiles visit the tap, not prefetching: one call per group's like tiles (bench/results/forward-1x1.md)
    const bool like_tiles = taps == 1 && !prefetch && !run.weights_ahead && every_tap;
    // step runs: one call per group's like tiles too, those that prefetch the next tile's input from its step, or
    // bring weights ahead (never both: blocked_items)
    const bool step = run.x_offsets == nullptr;
    const auto tile_for = step && prefetch            ? blocked_tile_for<false, TileCall::step_next>
                          : step && run.weights_ahead ? blocked_tile_for<false, TileCall::step_ahead>
                          : step                      ? blocked_tile_for<false, TileCall::step>
                          : like_tiles     ? blocked_tile_for<false, TileCall::like>
                                           : blocked_tile_for<false>;
    a.x_step = run.x_step;
    a.y_step = run.y_step;
    for (i64 ic0 = 0; ic0 < g.in_per_group; ic0 += p.ic_block) {
        const i64 ic_count = min_i64(p.ic_block, g.in_per_group - ic0);
        a.accumulate = ic0 > 0;
        a.stream = p.stream_output && ic0 + ic_count >= g.in_per_group;
        a.x = run.x + ic0;
        a.w = w + ic0 * a.w_ic_step;
        for (i64 group = 0, i = 0; group < run.groups; ++group) {
            const i64 pixels = group_end(group) - i, tiles = tiles_of(pixels), small = pixels / tiles, bigger = pixels % tiles;
            const BlockedTileFn small_tile = tile_for(nb, static_cast<int>(small));
            const BlockedTileFn big_tile = bigger ? tile_for(nb, static_cast<int>(small + 1)) : nullptr;
            const BlockedTileFn small_checked = p.src_in_place ? blocked_tile_for<true>(nb, static_cast<int>(small)) : nullptr;
            const BlockedTileFn big_checked =
                p.src_in_place && bigger ? blocked_tile_for<true>(nb, static_cast<int>(small + 1)) : nullptr;
            for (i64 k = 0; k < tiles; k += a.tiles) {
                const i64 n = k < bigger ? small + 1 : small;
                a.tiles = like_tiles || step ? (k < bigger ? bigger : tiles) - k : 1;  // the tiles of n pixels from k on, or one
                // step and prefetching: tile t of the call prefetches if full and i + (t + 1) * n + full <= count
                a.next_tiles =
                    step && prefetch && n == full && count - i - full >= 0 ? min_i64(a.tiles, (count - i - full) / n) : 0;
                if (step) {
                    a.x = run.x + ic0 + run.x_shift + i * run.x_step;
                    a.y = run.y + i * run.y_step;
                } else {
                    a.x_offsets = run.x_offsets + i;
                    a.y_offsets = run.y_offsets + i;
                }
                a.pixel_bias = run.pixel_bias ? run.pixel_bias + i : nullptr;
                // offsets runs: the next tile's offsets (a step run has none: x_offsets is null there)
                a.next_offsets = !step && prefetch && n == full && i + n + full <= count ? run.x_offsets + i + n : nullptr;
                set_taps(i, n * a.tiles, ic_count);
                // tile t of the call brings weights from ahead + t * ahead_step on if that lies before ahead_end
                const i64 ahead_step = tile_ahead_bytes(a);  // (after set_taps: a.ic_count)
                a.weights_ahead = ahead < ahead_end ? ahead : nullptr;
                a.ahead_tiles = !a.weights_ahead ? 0
                                : ahead_step == 0 ? a.tiles
                                                  : min_i64(a.tiles, (ahead_end - ahead + ahead_step - 1) / ahead_step);
                ahead += ahead_step * a.tiles;  // (a.tiles is 1 where the offsets tiles bring weights ahead)
                if (a.in_rows) (k < bigger ? big_checked : small_checked)(a);
                else (k < bigger ? big_tile : small_tile)(a);
                i += n * a.tiles;
            }
        }
    }
}

constexpr i64 kMaxChunk = 1024;

}  // namespace

void blocked_segment(const BlockedProblem& p, const BlockedSegment& segment, i64* scratch) {
    i64 x_offsets[kMaxChunk], y_offsets[kMaxChunk];
    PixelRun run;
    run.x_offsets = x_offsets;
    run.y_offsets = y_offsets;
    run.grp = segment.grp;
    run.ocs = segment.ocs;
    for (i64 i0 = 0; i0 < segment.count; i0 += kMaxChunk) {
        run.count = min_i64(kMaxChunk, segment.count - i0);
        for (i64 i = 0; i < run.count; ++i) x_offsets[i] = i * segment.x_pixel_step, y_offsets[i] = i * segment.y_pixel_step;
        run.x = segment.x + i0 * segment.x_pixel_step;
        run.y = segment.y + i0 * segment.y_pixel_step;
        run.pixel_bias = segment.pixel_bias ? segment.pixel_bias + i0 : nullptr;
        blocked_pixels(p, run, scratch);
    }
    if (p.stream_output) _mm_sfence();  // the non-temporal stores visible before the caller's join
}

#include "blocked_groups.inl"

void blocked_items(const BlockedProblem& p, const float* xp, float* y, i64* scratch, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 block = static_cast<i64>(p.vector_blocks) * W;
    const i64 cs = g.channel_stride, chunks = p.chunks_per_plane(), plane = g.out[1] * g.out[2];
    i64 raster_rows[kMaxChunk], raster_cols[kMaxChunk], order[kMaxChunk];
    i64 x_offsets[kMaxChunk], y_offsets[kMaxChunk], rows[kMaxChunk], cols[kMaxChunk], group_ends[kMaxGroups];
    i64 in_rows[kMaxChunk], in_cols[kMaxChunk];
    PixelRun run;
    run.x_offsets = x_offsets;
    run.y_offsets = y_offsets;
    run.rows = rows;
    run.cols = cols;
    run.group_ends = group_ends;
    run.in_rows = in_rows;
    run.in_cols = in_cols;
    // group the pixels (group_pixels) only where some are border pixels and enough products are at stake
    i64 inner[3], inner_end[3];
    interior_ranges(g, inner, inner_end);
    const bool bordered = inner[1] > 0 || inner_end[1] < g.out[1] || inner[2] > 0 || inner_end[2] < g.out[2];
    const bool grouped = bordered && g.taps() * g.in_per_group >= kBlockedGroupFrom;
    // 1x1 layers whose packed weights pass kPrefetchWeightsAbove (they do not stay in the L2): the items of a super
    // block bring the next one's weights (of the next image after the last) into the L2, each its share by pixels
    const i64 block_lines = g.in_per_group * block / 16, blocks = g.groups * p.oc_super_blocks;
    const bool weights_ahead = kPrefetchWeightsAbove >= 0 && g.taps() == 1 && !p.ocs_innermost && p.weights_ic_step == 0 &&
                               p.weights_block_step == 0 && blocks * block_lines * 64 > kPrefetchWeightsAbove;
    // 1x1 layers with no padding whose output pixels are one input step apart across rows too (stride 1): the runs
    // take a pointer and a step (blocked_step_tiles), and need no offsets filled. Not where the runs both bring
    // weights ahead and prefetch the next tile's input (the step tiles do one or the other)
    const i64 col_step = g.stride[2] * cs, row_begin = p.xp_first_row * g.padded[2] * cs;
    // in place, src has no padding: the pixel's tap (0, 0) is pad rows up and pad columns left
    const bool in_place = p.src_in_place;
    const i64 x_shift = in_place ? (g.pad_begin[1] * g.padded[2] + g.pad_begin[2]) * cs : 0;
    const bool stepped_layer = g.taps() == 1 && !bordered && !(weights_ahead && prefetches_input(p, 0)) &&
                               g.stride[1] * g.padded[2] == g.out[2] * g.stride[2];
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
        const i64 in_plane = od * g.stride[0] - g.pad_begin[0];
        const bool stepped = stepped_layer && in_plane >= 0 && in_plane < g.in[0];
        run.x_offsets = stepped ? nullptr : x_offsets;
        run.y_offsets = stepped ? nullptr : y_offsets;
        run.rows = stepped ? nullptr : rows;  // (every pixel visits the tap)
        run.x_step = col_step;
        run.y_step = g.out_channels;
        if (stepped) {
            run.groups = 1;
            group_ends[0] = count;
            offsets_chunk = -1;  // (group_ends)
        } else if (chunk != offsets_chunk) {  // the pixels, their order and groups depend on the chunk alone
            // the geometry's numbers as locals: the stores to the i64 arrays below may alias a Geometry's fields, so
            // the compiler would read them again for every pixel (measured: 1x1 layers over 16 channels spent 18 % of
            // their time here, 1 thread)
            const i64 OW = g.out[2], OC = g.out_channels, row_step = g.stride[1] * g.padded[2] * cs;
            const i64 stride_h = g.stride[1], stride_w = g.stride[2], pad_h = g.pad_begin[1], pad_w = g.pad_begin[2];
            const auto place = [&](i64 i, i64 oh, i64 ow) {
                x_offsets[i] = oh * row_step - row_begin + ow * col_step - x_shift;
                y_offsets[i] = (oh * OW + ow - p0) * OC;
                rows[i] = oh;
                cols[i] = ow;
                if (in_place) in_rows[i] = oh * stride_h - pad_h, in_cols[i] = ow * stride_w - pad_w;
            };
            run.cols = grouped || in_place ? cols : nullptr;
            if (grouped) {
                for (i64 i = 0, oh = p0 / OW, ow = p0 % OW; i < count; ++i) {
                    raster_rows[i] = oh;
                    raster_cols[i] = ow;
                    if (++ow == OW) ow = 0, ++oh;
                }
                run.groups = group_pixels(g, count, raster_rows, raster_cols, kTileWidth[p.vector_blocks], order, group_ends);
                for (i64 i = 0; i < count; ++i) place(i, raster_rows[order[i]], raster_cols[order[i]]);
            } else {
                // raster order, a row's run of pixels at a time (one column step apart): the same numbers as place(),
                // the columns and input rows and columns only where src is read in place (blocked_pixels reads them
                // only then; measured on the Xeon, 1 thread: conv1_7x7s2 2 % faster, bench/results/forward-conv1.md)
                run.groups = 1;
                group_ends[0] = count;
                for (i64 i = 0, oh = p0 / OW, ow = p0 % OW; i < count; ++oh, ow = 0) {
                    const i64 length = min_i64(OW - ow, count - i);
                    const i64 x0 = oh * row_step - row_begin + ow * col_step - x_shift, y0 = (oh * OW + ow - p0) * OC;
                    for (i64 k = 0; k < length; ++k) {
                        x_offsets[i + k] = x0 + k * col_step;
                        y_offsets[i + k] = y0 + k * OC;
                        rows[i + k] = oh;
                    }
                    if (in_place)
                        for (i64 k = 0; k < length; ++k) {
                            cols[i + k] = ow + k;
                            in_rows[i + k] = oh * stride_h - pad_h;
                            in_cols[i + k] = (ow + k) * stride_w - pad_w;
                        }
                    i += length;
                }
            }
            offsets_chunk = chunk;
        }
        // in place, the plane's input begins pad planes earlier, maybe before the image: an offset, not a pointer
        const i64 first_plane = od * g.stride[0] - (p.src_in_place ? g.pad_begin[0] : p.xp_first_plane);
        run.x = xp + n * g.padded[0] * g.padded[1] * g.padded[2] * cs + grp * g.in_per_group;
        run.x_shift = first_plane * g.padded[1] * g.padded[2] * cs;
        // stepped: pixel i's offset i * col_step from the chunk's first (raster, rows one OW * col_step apart)
        if (stepped) run.x_shift += p0 * col_step - row_begin - x_shift;
        run.y = y + ((n * g.out[0] + od) * plane + p0) * g.out_channels + grp * g.out_per_group + ocs * block;
        run.od = od;
        run.count = count;
        run.grp = grp;
        run.ocs = ocs;
        const i64 next = grp * p.oc_super_blocks + ocs + 1, run_pixels = g.out[0] * plane, at = od * plane + p0;
        run.weights_ahead = weights_ahead && (next < blocks || n + 1 < g.batch)
                                ? p.weights + (next % blocks * block_lines + block_lines * at / run_pixels) * 16 : nullptr;
        run.ahead_floats = run.weights_ahead
                               ? (block_lines * (at + count) / run_pixels - block_lines * at / run_pixels) * 16 : 0;
        blocked_pixels(p, run, scratch);
    }
    if (p.stream_output) _mm_sfence();  // the non-temporal stores visible before the caller's join
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
