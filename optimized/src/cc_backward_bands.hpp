// Internal: how the CC backward (cc_backward_net, cc_backward_polyphase) cuts the output rows into
// bands for a deterministic diff_src: two bands of the same parity read no common input row, so the
// even bands run in parallel and add into diff_src, then the odd ones. Fixed by the descriptor alone.
#pragma once

#include <tbb/blocked_range.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "cc_grid.hpp"
#include "parallel_join.hpp"
#include "workspace_meter.hpp"
#include "workspace_pool.hpp"

namespace convcheck::optimized::detail {

// At most max_bands bands (each holds a partial sum of the parameter gradients); fewer when a band must
// be taller for band i's last input row to lie before band i + 2's first. Band b: output rows
// [rows[b], rows[b + 1]).
inline std::vector<std::int64_t> cc_backward_bands(const AxisWindows& height, std::int64_t max_bands) {
    const std::int64_t OH = height.out;
    const auto separated = [&](std::int64_t rows) {
        for (std::int64_t r0 = 0; r0 + 2 * rows < OH; r0 += rows)
            if (height.first[r0 + rows - 1] + height.support > height.first[r0 + 2 * rows]) return false;
        return true;
    };
    std::int64_t rows = (OH + max_bands - 1) / max_bands;
    while (!separated(rows)) ++rows;  // rows = OH: one band
    std::vector<std::int64_t> bands;
    for (std::int64_t r = 0; r < OH; r += rows) bands.push_back(r);
    bands.push_back(OH);
    return bands;
}

// The input rows [lo, hi) that output rows oy0 .. oy1 (inclusive) read, clipped to the input.
inline std::array<std::int64_t, 2> cc_input_rows(const AxisWindows& height, std::int64_t oy0, std::int64_t oy1) {
    return {std::clamp<std::int64_t>(height.first[oy0], 0, height.in),
            std::clamp<std::int64_t>(height.first[oy1] + height.support, 0, height.in)};
}

// 4 bands for a method that runs each band in chunks of at most chunk_pixels (rows of row_pixels): heights
// (h, g, h, rest), same-parity bands sharing no input row, with the fewest chunks on the path of two
// threads (even bands at once, then odd ones: max(c0, c2) + max(c1, c3)), then the fewest in all (one
// thread), then the fewest pixels on that path, then heights as equal as may be; cc_backward_bands(height,
// 4) when no such cut exists.
// (The bench's 0.7071 layer: 46 rows of 46 pixels as 10, 13, 10, 13: chunks 4, 5, 4, 5, where 12, 12, 12,
// 10 made 5, 5, 5, 4.)
inline std::vector<std::int64_t> cc_backward_bands_by_chunks(const AxisWindows& height, std::int64_t row_pixels,
                                                             std::int64_t chunk_pixels) {
    const std::int64_t OH = height.out;
    const auto chunks = [&](std::int64_t rows) { return (rows * row_pixels + chunk_pixels - 1) / chunk_pixels; };
    const auto apart = [&](std::int64_t a0, std::int64_t a1, std::int64_t c0, std::int64_t c1) {  // a before c
        const std::array<std::int64_t, 2> a = cc_input_rows(height, a0, a1 - 1), c = cc_input_rows(height, c0, c1 - 1);
        return a[1] <= c[0] || a[0] >= a[1] || c[0] >= c[1];
    };
    std::array<std::int64_t, 3> best{};
    std::array<std::int64_t, 4> cost{};
    bool found = false;
    for (std::int64_t h = 1; 2 * h + 2 <= OH; ++h)
        for (std::int64_t g = 1; 2 * h + g + 1 <= OH; ++g) {
            const std::int64_t r = OH - 2 * h - g;  // the last band's height
            if (!apart(0, h, h + g, 2 * h + g) || !apart(h, h + g, 2 * h + g, OH)) continue;
            const std::array<std::int64_t, 4> c{chunks(h) + std::max(chunks(g), chunks(r)),
                                                2 * chunks(h) + chunks(g) + chunks(r), (h + std::max(g, r)) * row_pixels,
                                                std::max({h, g, r}) - std::min({h, g, r})};
            if (!found || c < cost) found = true, cost = c, best = {h, g, r};
        }
    if (!found) return cc_backward_bands(height, 4);
    return {0, best[0], best[0] + best[1], 2 * best[0] + best[1], OH};
}

// The input rows no even band reads, as ranges [lo, hi) in order: diff_src's rows there start from 0,
// and every other row's first contribution is its even band's (same-parity bands share no input row),
// which may store it rather than add it to zeros: the same bits, as 0 + x = x (a band's sums start from
// +0, so x is never -0).
inline std::vector<std::array<std::int64_t, 2>> cc_rows_outside_even_bands(const AxisWindows& height,
                                                                           const std::vector<std::int64_t>& bands) {
    std::vector<std::array<std::int64_t, 2>> outside;
    std::int64_t next = 0;  // the rows before it are read by an even band or listed
    for (std::size_t b = 0; b + 1 < bands.size(); b += 2) {
        const std::array<std::int64_t, 2> rows = cc_input_rows(height, bands[b], bands[b + 1] - 1);
        if (rows[0] > next) outside.push_back({next, rows[0]});
        next = std::max(next, rows[1]);
    }
    if (next < height.in) outside.push_back({next, height.in});
    return outside;
}

// Per band, the input rows [lo, hi) an odd band stores (its first run of rows that no even band reads:
// their first contribution is the odd band's, which comes after the even bands'); {0, 0} for even bands
// and odd bands without such a row. (The 2/3 layer's 64 rows: 30 stored by the odd bands, 34 by the even.)
inline std::vector<std::array<std::int64_t, 2>> cc_rows_odd_bands_store(const AxisWindows& height,
                                                                        const std::vector<std::int64_t>& bands) {
    std::vector<bool> even(static_cast<std::size_t>(height.in), false);
    for (std::size_t b = 0; b + 1 < bands.size(); b += 2) {
        const std::array<std::int64_t, 2> rows = cc_input_rows(height, bands[b], bands[b + 1] - 1);
        for (std::int64_t r = rows[0]; r < rows[1]; ++r) even[static_cast<std::size_t>(r)] = true;
    }
    std::vector<std::array<std::int64_t, 2>> store(bands.size() - 1, {0, 0});
    for (std::size_t b = 1; b + 1 < bands.size(); b += 2) {
        const std::array<std::int64_t, 2> rows = cc_input_rows(height, bands[b], bands[b + 1] - 1);
        std::int64_t lo = rows[0];
        while (lo < rows[1] && even[static_cast<std::size_t>(lo)]) ++lo;
        std::int64_t hi = lo;
        while (hi < rows[1] && !even[static_cast<std::size_t>(hi)]) ++hi;
        if (lo < hi) store[b] = {lo, hi};
    }
    return store;
}

// The input rows no band stores (cc_rows_outside_even_bands without the odd bands' stored rows), as
// ranges [lo, hi) in order: diff_src's rows that start from 0.
inline std::vector<std::array<std::int64_t, 2>> cc_rows_no_band_stores(const AxisWindows& height,
                                                                       const std::vector<std::int64_t>& bands) {
    std::vector<std::array<std::int64_t, 2>> zero;
    const std::vector<std::array<std::int64_t, 2>> store = cc_rows_odd_bands_store(height, bands);
    for (const auto& [lo, hi] : cc_rows_outside_even_bands(height, bands)) {
        std::int64_t from = lo;  // cut out the stored ranges inside [lo, hi), in order
        for (const auto& [s0, s1] : store) {
            if (s0 >= s1 || s1 <= from || s0 >= hi) continue;
            if (s0 > from) zero.push_back({from, s0});
            from = s1;
        }
        if (from < hi) zero.push_back({from, hi});
    }
    return zero;
}

// f(band) for every band of `bands` (cc_backward_bands): the even ones in parallel, then the odd ones.
template <typename F>
void for_each_band_by_parity(const std::vector<std::int64_t>& bands, const F& f) {
    const std::int64_t B = static_cast<std::int64_t>(bands.size()) - 1;
    for (std::int64_t parity = 0; parity < 2; ++parity)
        parallel_for_joined(tbb::blocked_range<std::int64_t>(0, (B - parity + 1) / 2, 1), [&](const auto& r) {
            for (std::int64_t i = r.begin(); i < r.end(); ++i) f(2 * i + parity);
        });
}

// Partial sums of the chunked method's run_bands: one per pair of bands (2i, 2i + 1).
inline std::int64_t cc_band_partials(const std::vector<std::int64_t>& bands) {
    return static_cast<std::int64_t>(bands.size()) / 2;  // (B + 1) / 2 for B = bands.size() - 1
}

// The frame of the chunked method's run: diff_src ([planes][plane] floats, rows of `width`) zeroed at the
// rows `zero_rows` (cc_rows_no_band_stores: the bands store the others first); cc_band_partials
// partial sums of `size` doubles, from `pool` (counted in meter: the caller counts them out when done
// with the result): band 2i zeroes partial i and adds to it, then (after every even band) band 2i + 1
// adds to it too, so band(b, partial) runs on partial b / 2, never at the same time as another band on
// it; the returned workspace holds them in order (add_band_partials adds them up). (One partial per band
// was twice the zeroing and the final sum: 2-3% of the 0.7071 layer's backward at batch 1.)
template <typename F>
Workspace<double> run_bands(const std::vector<std::int64_t>& bands, std::int64_t size, float* diff_src,
                            std::int64_t planes, std::int64_t plane,
                            const std::vector<std::array<std::int64_t, 2>>& zero_rows, std::int64_t width,
                            const WorkspacePool<double>& pool, WorkspaceMeter& meter, const F& band) {
    const std::int64_t partials_count = cc_band_partials(bands);
    if (!zero_rows.empty())
        parallel_for_joined(tbb::blocked_range<std::int64_t>(0, planes), [&](const auto& r) {
            for (std::int64_t p = r.begin(); p < r.end(); ++p)
                for (const auto& [lo, hi] : zero_rows)
                    std::fill(diff_src + p * plane + lo * width, diff_src + p * plane + hi * width, 0.0f);
        });
    meter.count_in(partials_count * size * 8);
    Workspace<double> partials = pool.take(static_cast<std::size_t>(partials_count * size));
    double* all = partials.data();
    for_each_band_by_parity(bands, [&](std::int64_t b) {
        double* partial = all + b / 2 * size;
        if (b % 2 == 0) std::fill(partial, partial + size, 0.0);
        band(b, partial);
    });
    return partials;
}

// at[0 .. count) += at[b * size ..] for b = 1 .. bands - 1 in order (at: a place in the first band's
// partial, each band's partial `size` doubles).
// (Eight doubles at a time in the baseline ISA's vectors: -O2 leaves the plain loop scalar; the same adds.)
inline void add_band_partials(double* at, std::int64_t bands, std::int64_t size, std::int64_t count) {
    using v2d = double __attribute__((vector_size(16)));
    for (std::int64_t b = 1; b < bands; ++b) {
        const double* from = at + b * size;
        std::int64_t k = 0;
        for (; k + 8 <= count; k += 8) {
            v2d x[4], y[4];
            __builtin_memcpy(x, at + k, sizeof x);
            __builtin_memcpy(y, from + k, sizeof y);
            for (int i = 0; i < 4; ++i) x[i] += y[i];
            __builtin_memcpy(at + k, x, sizeof x);
        }
        for (; k < count; ++k) at[k] += from[k];
    }
}

}  // namespace convcheck::optimized::detail
