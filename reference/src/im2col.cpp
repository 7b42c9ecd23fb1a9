// im2col and col2im (im2col.hpp): a row goes by runs of columns with one (od, oh), where only the w tap moves.
#include "im2col.hpp"

#include <algorithm>
#include <cmath>

namespace convcheck::reference::detail {

namespace {

// For each row of a block, in order, and each run of its columns [j, j + run) whose outputs share one (od, oh):
// inside(ic, row, j, run, line, x2) where that tap's input row lies in the input (line: the row's first element in
// channel ic's plane; x2: the input column of the run's first output, the next ones S_w apart), else
// outside(row, j, run). The rows: (ic, kd, kh, kw) for every tap; or, with `taps`, (tap, ic) for the taps
// [taps->first, taps->end) only (taps numbered (kd, kh, kw) in order).
template <class Inside, class Outside>
void for_each_run(const Geometry3& g, std::int64_t channels, std::int64_t p0, std::int64_t width, const TapRange* taps,
                  Inside inside, Outside outside) {
    const std::int64_t all = g.kernel[0] * g.kernel[1] * g.kernel[2];
    const std::int64_t first = taps ? taps->first : 0, end = taps ? taps->end : all;
    const auto runs = [&](std::int64_t ic, std::int64_t tap, std::int64_t row) {
        const std::int64_t kd = tap / (g.kernel[1] * g.kernel[2]), kh = (tap / g.kernel[2]) % g.kernel[1],
                           kw = tap % g.kernel[2];
        for (std::int64_t j = 0, p = p0; j < width;) {
            const std::int64_t ow0 = p % g.out[2], oh = (p / g.out[2]) % g.out[1];
            const std::int64_t od = p / (g.out[2] * g.out[1]);
            const std::int64_t run = std::min(width - j, g.out[2] - ow0);
            const std::int64_t x0 = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            const std::int64_t x1 = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            if (x0 >= 0 && x0 < g.in[0] && x1 >= 0 && x1 < g.in[1])
                inside(ic, row, j, run, (x0 * g.in[1] + x1) * g.in[2], ow0 * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2]);
            else
                outside(row, j, run);
            j += run;
            p += run;
        }
    };
    if (taps == nullptr) {
        for (std::int64_t ic = 0, row = 0; ic < channels; ++ic)
            for (std::int64_t tap = 0; tap < all; ++tap, ++row) runs(ic, tap, row);
        return;
    }
    for (std::int64_t tap = first, row = 0; tap < end; ++tap)
        for (std::int64_t ic = 0; ic < channels; ++ic, ++row) runs(ic, tap, row);
}

}  // namespace

std::vector<std::int64_t> input_index(const Geometry3& g, int a) {
    std::vector<std::int64_t> x(static_cast<std::size_t>(g.out[a] * g.kernel[a]));
    for (std::int64_t o = 0; o < g.out[a]; ++o)
        for (std::int64_t k = 0; k < g.kernel[a]; ++k) {
            const std::int64_t at = o * g.stride[a] - g.pad_begin[a] + k * g.dilation[a];
            x[static_cast<std::size_t>(o * g.kernel[a] + k)] = (at >= 0 && at < g.in[a]) ? at : -1;
        }
    return x;
}

TapRange live_taps(const Geometry3& g, std::int64_t p0, std::int64_t width) {
    TapRange live{g.kernel[0] * g.kernel[1] * g.kernel[2], 0};
    // run by run (outputs of one (od, oh)): a tap is live where its input plane and row lie inside and its input column
    // does for one of the run's outputs
    for (std::int64_t j = 0, p = p0; j < width;) {
        const std::int64_t ow0 = p % g.out[2], oh = (p / g.out[2]) % g.out[1], od = p / (g.out[2] * g.out[1]);
        const std::int64_t run = std::min(width - j, g.out[2] - ow0);
        for (std::int64_t kd = 0, tap = 0; kd < g.kernel[0]; ++kd)
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw, ++tap) {
                    if (tap >= live.first && tap < live.end) continue;  // already inside the range
                    const std::int64_t x0 = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                    const std::int64_t x1 = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                    if (x0 < 0 || x0 >= g.in[0] || x1 < 0 || x1 >= g.in[1]) continue;
                    for (std::int64_t ow = ow0; ow < ow0 + run; ++ow) {
                        const std::int64_t x2 = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                        if (x2 < 0 || x2 >= g.in[2]) continue;
                        live.first = std::min(live.first, tap);
                        live.end = std::max(live.end, tap + 1);
                        break;
                    }
                }
        if (live.first == 0 && live.end == g.kernel[0] * g.kernel[1] * g.kernel[2]) return live;  // every tap
        j += run;
        p += run;
    }
    if (live.end <= live.first) live = TapRange{0, 0};
    return live;
}

void im2col_block(const Geometry3& g, const double* planes, std::int64_t channels, std::int64_t p0,
                  std::int64_t width, double* patches, double* patches_magnitude, const TapRange* taps) {
    const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
    for_each_run(
        g, channels, p0, width, taps,
        [&](std::int64_t ic, std::int64_t row, std::int64_t j, std::int64_t run, std::int64_t line, std::int64_t x2) {
            const double* in = planes + ic * in_plane + line;
            double* out = patches + row * width + j;
            double* out_magnitude = patches_magnitude + row * width + j;
            for (std::int64_t t = 0; t < run; ++t, x2 += g.stride[2]) {
                const double v = (x2 >= 0 && x2 < g.in[2]) ? in[x2] : 0.0;
                out[t] = v;
                out_magnitude[t] = std::fabs(v);
            }
        },
        [&](std::int64_t row, std::int64_t j, std::int64_t run) {
            std::fill_n(patches + row * width + j, run, 0.0);
            std::fill_n(patches_magnitude + row * width + j, run, 0.0);
        });
}

void col2im_add_block(const Geometry3& g, const double* columns, const double* columns_magnitude,
                      std::int64_t channels, std::int64_t p0, std::int64_t width, double* planes,
                      double* planes_magnitude) {
    const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
    for_each_run(
        g, channels, p0, width, nullptr,
        [&](std::int64_t ic, std::int64_t row, std::int64_t j, std::int64_t run, std::int64_t line, std::int64_t x2) {
            double* plane = planes + ic * in_plane + line;
            double* plane_magnitude = planes_magnitude + ic * in_plane + line;
            const double* in = columns + row * width + j;
            const double* in_magnitude = columns_magnitude + row * width + j;
            for (std::int64_t t = 0; t < run; ++t, x2 += g.stride[2]) {
                if (x2 < 0 || x2 >= g.in[2]) continue;
                plane[x2] += in[t];
                plane_magnitude[x2] += in_magnitude[t];
            }
        },
        [](std::int64_t, std::int64_t, std::int64_t) {});  // a tap in the padding adds nothing
}

}  // namespace convcheck::reference::detail
