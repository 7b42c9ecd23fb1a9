// The VNNI path's depthwise layers (quantized_vnni.hpp): one input and one output channel per group. No copy of the
// image is made. Each thread walks its output rows in order and expands each input row they read once
// (quantized_kernels.hpp, DepthwiseExpansion: per output pixel, 4 taps of a kernel row in one dword per channel),
// keeping the last rows in a ring, so that a VPDPBUSD sums 4 taps of 16 channels; an input row is read where it
// lies (channels last) or gathered into a channels-last row (channels first). A padding pixel reads the src zero
// point, and a row wholly in the padding reads one expanded row of it shared by all threads. The sums are then
// those of the padded copy (quantized_vnni.hpp): the compensation holds the padding's part.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include "parallel_join.hpp"
#include "quantized_vnni.hpp"

namespace convcheck::optimized::detail {
namespace {

using i64 = std::int64_t;

// A unit's pixels per vector (quantized_kernels.hpp, DepthwiseExpansion): 1 for 33 to 64 channels, 2 for 17 to 32,
// 4 for 1 to 16.
i64 pixels_per_vector(i64 channels) { return channels > 32 ? 1 : channels > 16 ? 2 : 4; }

// The bytes of a column's ring of expanded rows (depthwise_run)
// Measured on dw96_112s2 (1 thread, ms, five runs each): 24 KiB 0.086-0.088, whole rows 0.091-0.096, 12 KiB and
// 36 KiB slower; dw32_112 and dw144_56 the same within noise
constexpr i64 kRingBytes = 24 * 1024;

// Where lane `lane` of vector k of a unit with `pixels` pixels per vector is: which pixel of the vector, and which
// of the unit's channels.
struct Lane {
    i64 pixel, channel;
};
Lane lane_of(i64 pixels, i64 k, i64 lane) {
    const i64 L = lane / 4, i = lane % 4, per_pixel = 4 / pixels;  // 128-bit lanes per pixel
    return {L / per_pixel, 16 * (L % per_pixel) + 4 * k + i};
}

// The cost of the busiest thread when a plane's `rows` are cut into `chunks` tasks of `length` rows: counted in
// rows of the layer's width, with the `span` input rows a run of rows of a plane (a column's ring started afresh)
// expands before its first: once per plane a thread's range touches, or once per task where the layer has several
// columns (each task runs its columns in turn, and a column's ring is gone when the next task starts it). The tasks
// in one range per thread, thread k's [k n / t, (k + 1) n / t) (TBB's static partitioner, near enough).
i64 busiest_thread(i64 planes, i64 rows, i64 span, i64 tiles, i64 length, i64 chunks, i64 threads) {
    const i64 n = planes * chunks;
    const auto rows_before = [&](i64 c) { return c / chunks * rows + std::min(rows, c % chunks * length); };
    i64 most = 0;
    for (i64 k = 0; k < threads; ++k) {
        const i64 a = k * n / threads, b = (k + 1) * n / threads;
        if (a == b) continue;
        const i64 starts = tiles > 1 ? b - a : (b - 1) / chunks - a / chunks + 1;
        most = std::max(most, rows_before(b) - rows_before(a) + span * starts);
    }
    return most;
}

// The unit's expansion of a column of `columns` output pixels (its pixels and sources left to set)
DepthwiseExpansion depthwise_expansion(const QuantizedGeometry& g, std::uint8_t shift, i64 groups, i64 unit, i64 columns) {
    DepthwiseExpansion e;
    e.shift = shift;
    e.channels = std::min<i64>(64, g.C - 64 * unit), e.pixels = pixels_per_vector(e.channels);
    e.kernel_width = g.kernel[2], e.groups = groups;
    e.stride = g.stride[2], e.dilation = g.dilation[2], e.crop = g.crop[2];
    e.width = columns, e.width_padded = (columns + e.pixels - 1) / e.pixels * e.pixels;
    return e;
}

}  // namespace

DepthwiseCut vnni_depthwise_cut(const QuantizedGeometry& g, int threads) {
    DepthwiseCut cut;
    const i64 width = g.out[2], groups = (g.kernel[2] + 3) / 4;  // (VnniPath::dw_groups_)
    cut.ring = (g.kernel[0] - 1) * g.dilation[0] * g.padded[1] + (g.kernel[1] - 1) * g.dilation[1] + 1;
    // Output rows in columns of `tile` pixels (a multiple of 4), each column's ring of expanded rows (256 bytes per
    // pixel and group, at most) within kRingBytes, so that it stays in L1 beside the src and dst lines it streams
    // (256 / pixels bytes per pixel and group: the first unit's pixels per vector, every unit's but the last)
    const i64 ring_pixel = cut.ring * groups * 256 / pixels_per_vector(std::min<i64>(64, g.C));
    cut.tile = std::min(width, std::max<i64>(4, kRingBytes / ring_pixel / 4 * 4));
    cut.tiles = (width + cut.tile - 1) / cut.tile, cut.last_tile = width - (cut.tiles - 1) * cut.tile;
    cut.planes = g.N * ((g.C + 63) / 64), cut.rows = g.out[0] * g.out[1];
    cut.span = (g.kernel[1] - 1) * g.dilation[1];
    cut.chunk_rows = cut.rows, cut.chunks = 1;
    // Whole planes (consecutive rows share input rows, and a unit's ring of expanded rows stays in the core's caches;
    // measured against units innermost, 1 thread: dw144_56 0.103 ms against 0.110, dw576_14 0.025 against 0.027),
    // unless shorter tasks let the busiest thread end sooner (busiest_thread): a cut of a plane's rows expands the
    // kernel's overlap rows again, which on a small plane with many units costs more than an uneven split of planes
    // (dw960_7 at 2 threads: 15 planes of 7 + 2 rows, 8 x 9 = 72 in the busier range; 2 threads on 30 tasks of 4
    // and 3 rows, 69). Ties: fewer tasks.
    if (threads <= 1) return cut;
    // A narrower last unit (C not a multiple of 64) costs less than a whole one, but not in proportion to its
    // channels: its tasks go with the whole units' of the same rows (units innermost), and the cut counts an image's
    // units as one plane. dw96_112s2 batch 1 at 2 threads (`chrt -f 5`), ms: a thread per unit 0.051-0.052, two
    // chunks of 28 rows, each with both units, 0.040-0.041.
    const i64 units = (g.C + 63) / 64;
    cut.units_inner = units > 1 && g.C % 64 != 0;
    const i64 planes = cut.units_inner ? g.N : cut.planes;
    i64 best = busiest_thread(planes, cut.rows, cut.span, cut.tiles, cut.rows, 1, threads), last_chunks = 1;
    for (i64 want = 2; want <= cut.rows; ++want) {
        const i64 length = (cut.rows + want - 1) / want, chunks = (cut.rows + length - 1) / length;
        if (chunks == last_chunks) continue;  // (the same length as the `want` before)
        last_chunks = chunks;
        const i64 cost = busiest_thread(planes, cut.rows, cut.span, cut.tiles, length, chunks, threads);
        if (cost < best) best = cost, cut.chunk_rows = length, cut.chunks = chunks;
    }
    return cut;
}

Decomposition vnni_depthwise_decomposition(const QuantizedGeometry& g, int threads) {
    const DepthwiseCut cut = vnni_depthwise_cut(g, threads);
    const double row = static_cast<double>(g.out[2] * 64 * g.taps);  // (a narrower last unit counted as 64 channels)
    Decomposition s;
    s.threads = threads;
    s.tasks = cut.planes * cut.chunks;
    s.most_tasks = cut.planes * cut.rows;  // every output row of every plane a task
    s.largest_task = static_cast<double>(cut.chunk_rows) * row;
    s.mean_task = static_cast<double>(cut.rows) / static_cast<double>(cut.chunks) * row;
    s.one_range_per_thread = true;
    return s;
}

// Per unit of 64 channels: weights [C][taps] to [kernel row][group of 4 taps][k][16 lanes][4 taps] and the
// compensation (as the dense layers') to [k][16], in lane order, each pixel of a vector with its channels'.
void VnniPath::pack_depthwise(const std::vector<std::int16_t>& weights, const std::vector<std::int32_t>& bias) {
    const i64 padding = i64{q_.src_zero_point} + shift_;  // the value a padding tap reads, moved
    const i64 kw = g_.kernel[2], kernel_rows = g_.taps / kw;
    pitch_ = (g_.C + 63) / 64 * 64, group_pitch_ = 1, blocks_ = pitch_ / 64, dw_groups_ = (kw + 3) / 4;
    const i64 unit_weights = kernel_rows * dw_groups_ * 256;
    packed_dw_.assign(static_cast<std::size_t>(blocks_ * unit_weights), 0);
    compensation_.assign(static_cast<std::size_t>(pitch_), 0);
    for (i64 unit = 0; unit < blocks_; ++unit) {
        const i64 channels = std::min<i64>(64, g_.C - 64 * unit), pixels = pixels_per_vector(channels);
        for (i64 k = 0; k < 4; ++k)
            for (i64 lane = 0; lane < 16; ++lane) {
                const i64 c = 64 * unit + lane_of(pixels, k, lane).channel;
                if (c >= g_.C) continue;  // past the last channel: weights and compensation 0
                i64 sum = 0;
                for (i64 t = 0; t < g_.taps; ++t) {
                    const std::int16_t w = weights[static_cast<std::size_t>(c * g_.taps + t)];
                    const i64 kr = t / kw, group = (t % kw) / 4, j = (t % kw) % 4;
                    packed_dw_[static_cast<std::size_t>(unit * unit_weights + ((kr * dw_groups_ + group) * 4 + k) * 64 + lane * 4 + j)] =
                        static_cast<std::int8_t>(w);
                    sum += w;
                }
                // mod 2^32, as the accumulators wrap
                compensation_[static_cast<std::size_t>(64 * unit + k * 16 + lane)] =
                    static_cast<std::int32_t>(static_cast<std::uint32_t>(bias[static_cast<std::size_t>(c)] - padding * sum));
            }
    }
}

// What depthwise_run reads that depends only on the plan (VnniPath's members, quantized_vnni.hpp)
void VnniPath::prepare_depthwise(int threads) {
    dw_threads_ = threads, dw_cut_ = vnni_depthwise_cut(g_, threads);
    const i64 units = blocks_, tile = dw_cut_.tile, row_bytes = dw_groups_ * tile * 256;
    // the src zero point as a raw src byte: the expansion moves it like the src (x ^ 128 for s8)
    dw_fill_.assign(static_cast<std::size_t>(std::max<i64>(pitch_, 64)), static_cast<std::uint8_t>(q_.src_zero_point));
    const bool narrower = dw_cut_.last_tile != tile;
    dw_padding_rows_.assign(static_cast<std::size_t>(units * 2 * row_bytes), 0);
    const std::vector<const std::uint8_t*> fill_pixels(static_cast<std::size_t>(g_.padded[2]), dw_fill_.data());
    for (i64 unit = 0; unit < units; ++unit)
        for (i64 last = 0; last <= i64{narrower}; ++last) {
            DepthwiseExpansion e = depthwise_expansion(g_, shift_, dw_groups_, unit, last ? dw_cut_.last_tile : tile);
            e.pixel = fill_pixels.data(), e.reach = g_.padded[2], e.out = dw_padding_rows_.data() + (unit * 2 + last) * row_bytes;
            expand_depthwise_row_avx512(e);
        }
    const i64 plane_rows = g_.padded[0] * g_.padded[1];
    dw_slot_of_.resize(static_cast<std::size_t>(plane_rows));  // flat % ring, without a division per row
    for (i64 flat = 0; flat < plane_rows; ++flat) dw_slot_of_[static_cast<std::size_t>(flat)] = flat % dw_cut_.ring;
    dw_multiplier_.assign(static_cast<std::size_t>(rule_ ? pitch_ : 0), 0.0f);
    for (i64 unit = 0; rule_ && unit < units; ++unit) {
        const i64 channels = std::min<i64>(64, g_.C - 64 * unit);
        for (i64 k = 0; k < 4; ++k)
            for (i64 lane = 0; lane < 16; ++lane)
                if (const i64 c = lane_of(pixels_per_vector(channels), k, lane).channel; c < channels)
                    dw_multiplier_[static_cast<std::size_t>(64 * unit + 16 * k + lane)] =
                        requantize_.multiplier_f32[static_cast<std::size_t>(64 * unit + c)];
    }
}

void VnniPath::depthwise_run(const void* src, void* dst) const {
    const i64 width = g_.out[2], kernel_rows = g_.taps / g_.kernel[2], rows = g_.out[0] * g_.out[1];
    // the tasks for the arena's threads (vnni_depthwise_cut); the rows one output row reads are `ring` apart at most
    // in the plane's flattened padded rows: slot = row % ring (a cut's ring, tile and columns do not depend on the
    // threads: dw_padding_rows_ and dw_slot_of_ serve any cut)
    const int threads = tbb::this_task_arena::max_concurrency();
    const DepthwiseCut cut = threads == dw_threads_ ? dw_cut_ : vnni_depthwise_cut(g_, threads);
    const i64 ring = cut.ring, tile = cut.tile, tiles = cut.tiles, last_tile = cut.last_tile;
    const i64 units = blocks_, width_padded = (width + 3) / 4 * 4;  // for every unit's pixels per vector
    const i64 row_bytes = dw_groups_ * tile * 256;                  // a unit's expanded row of a column, at most
    const i64 unit_weights = kernel_rows * dw_groups_ * 256;
    const std::uint8_t* fill = dw_fill_.data();
    const auto* bytes = static_cast<const std::uint8_t*>(src);
    const bool narrower = last_tile != tile;
    const i64 plane_rows = g_.padded[0] * g_.padded[1];
    const std::optional<RowRequantization>& rule = rule_;
    // tasks (image, unit, chunk of output rows), each running its rows column by column, rows innermost (a unit of
    // 16 or 32 channels costs less than one of 64: the tasks cut rows, not units), in one range per thread
    parallel_for_joined(tbb::blocked_range<i64>(0, cut.planes * cut.chunks), [&](const tbb::blocked_range<i64>& tasks) {
        const Workspace<std::uint8_t> slots(ring * row_bytes);
        std::vector<i64> held(static_cast<std::size_t>(ring), -1);  // the (image, unit, column, padded row) each slot holds
        std::vector<const std::uint8_t*> pixel(static_cast<std::size_t>(g_.padded[2]), fill);
        std::vector<std::uint8_t> gathered(static_cast<std::size_t>(g_.src_nxc ? 0 : g_.in[2] * g_.C));
        std::vector<const std::uint8_t*> reads(static_cast<std::size_t>(kernel_rows));
        std::vector<std::int32_t> acc(static_cast<std::size_t>(rule ? 0 : width_padded * 64)), in_order(acc.size());
        // input row (x0, x1) of image n, the unit's channels, expanded into `to` for `columns` output pixels from t0:
        // the input pixels those read (their pointers set, gathered where the src is channels first), and the 2 past
        // them that the pair expansion reads (zero weights, or no output), so that no pointer left from another row
        // or unit is read
        const auto expand = [&](i64 n, i64 unit, i64 x0, i64 x1, i64 t0, i64 columns, std::uint8_t* to) {
            const i64 first = (x0 * g_.in[1] + x1) * g_.in[2], C = g_.C;  // the row's first pixel
            const i64 reach = t0 * g_.stride[2] + g_.crop[2] - g_.lead[2];  // input pixel of the column's first tap
            const i64 from_x2 = std::max<i64>(0, reach);
            const i64 to_x2 = std::min(g_.in[2], reach + (columns - 1) * g_.stride[2] + (g_.kernel[2] - 1) * g_.dilation[2] + 3);
            const std::uint8_t** const inside = pixel.data() + g_.lead[2];
            if (g_.src_nxc) {
                const std::uint8_t* from = bytes + (n * g_.in_spatial + first) * C + 64 * unit;
                for (i64 x2 = from_x2; x2 < to_x2; ++x2) inside[x2] = from + x2 * C;
            } else {
                for (i64 x2 = from_x2; x2 < to_x2; ++x2) {
                    std::uint8_t* at = gathered.data() + x2 * C;
                    for (i64 c = 0; c < C; ++c) at[c] = bytes[(n * C + c) * g_.in_spatial + first + x2];
                    inside[x2] = at + 64 * unit;
                }
            }
            DepthwiseExpansion e = depthwise_expansion(g_, shift_, dw_groups_, unit, columns);
            e.pixel = pixel.data() + t0 * g_.stride[2], e.reach = g_.padded[2] - t0 * g_.stride[2], e.out = to;
            expand_depthwise_row_avx512(e);
        };
        // a task's rows counted (the divisions per row cost dw96_112s2 about 5 %)
        for (i64 task = tasks.begin(); task < tasks.end(); ++task) {
            const i64 n = task / cut.chunks / units;  // task: (n, unit, chunk), or (n, chunk, unit) with units_inner
            const i64 unit = cut.units_inner ? task % units : task / cut.chunks % units;
            const i64 chunk = cut.units_inner ? task / units % cut.chunks : task % cut.chunks;
            const i64 first = chunk * cut.chunk_rows, end = std::min(rows, first + cut.chunk_rows);
            for (i64 column = 0; column < tiles; ++column)
                for (i64 row = first, y0 = first / g_.out[1], y1 = first % g_.out[1]; row < end;
                     ++row, y1 = y1 + 1 == g_.out[1] ? 0 : y1 + 1, y0 += y1 == 0) {
                    const i64 t0 = column * tile, columns = column + 1 == tiles ? last_tile : tile;
                    for (i64 k0 = 0, k = 0; k0 < g_.kernel[0]; ++k0)
                        for (i64 k1 = 0; k1 < g_.kernel[1]; ++k1, ++k) {
                            const i64 r0 = y0 * g_.stride[0] + g_.crop[0] + k0 * g_.dilation[0];
                            const i64 r1 = y1 * g_.stride[1] + g_.crop[1] + k1 * g_.dilation[1];
                            const i64 x0 = r0 - g_.lead[0], x1 = r1 - g_.lead[1];
                            if (x0 < 0 || x0 >= g_.in[0] || x1 < 0 || x1 >= g_.in[1]) {
                                reads[static_cast<std::size_t>(k)] = dw_padding_rows_.data() + (unit * 2 + (narrower && column + 1 == tiles)) * row_bytes;
                                continue;
                            }
                            const i64 flat = r0 * g_.padded[1] + r1, slot = dw_slot_of_[static_cast<std::size_t>(flat)];
                            const i64 tag = ((n * units + unit) * tiles + column) * plane_rows + flat;
                            std::uint8_t* to = slots.get() + slot * row_bytes;
                            if (held[static_cast<std::size_t>(slot)] != tag) {
                                expand(n, unit, x0, x1, t0, columns, to);
                                held[static_cast<std::size_t>(slot)] = tag;
                            }
                            reads[static_cast<std::size_t>(k)] = to;
                        }
                    const i64 channels = std::min<i64>(64, g_.C - 64 * unit), pixels = pixels_per_vector(channels);
                    DepthwiseRow r;
                    r.rows = reads.data(), r.kernel_rows = kernel_rows, r.groups = dw_groups_, r.pixels = pixels;
                    r.weights = packed_dw_.data() + unit * unit_weights, r.compensation = compensation_.data() + 64 * unit;
                    r.width = columns, r.width_padded = (columns + pixels - 1) / pixels * pixels;
                    r.acc = acc.data(), r.channels = channels;
                    if (rule) {
                        r.rule = &*rule, r.multiplier = dw_multiplier_.data() + 64 * unit;
                        r.dst = static_cast<std::uint8_t*>(dst) + (n * g_.out_spatial + row * width + t0) * g_.O + 64 * unit;
                        r.dst_pitch = g_.O;
                    }
                    depthwise_row_avx512_vnni(r);
                    if (rule) continue;
                    for (i64 v = 0; v < r.width_padded / pixels; ++v)  // acc [vector][k][16] to [pixel][channel]
                        for (i64 k = 0; k < 4; ++k)
                            for (i64 lane = 0; lane < 16; ++lane) {
                                const Lane at = lane_of(pixels, k, lane);
                                in_order[static_cast<std::size_t>((v * pixels + at.pixel) * 64 + at.channel)] =
                                    acc[static_cast<std::size_t>((v * 4 + k) * 16 + lane)];
                            }
                    store_row(in_order.data(), 64, n, row * width + t0, columns, 64 * unit, channels, dst);
                }
        }
    }, /*one_per_thread=*/true);
}

}  // namespace convcheck::optimized::detail
