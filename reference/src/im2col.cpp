// im2col and col2im (im2col.hpp): a row goes by runs of columns with one (od, oh), where only the w tap moves.
#include "im2col.hpp"

#include <algorithm>
#include <cmath>

namespace convcheck::reference::detail {

namespace {

// For each row (ic, kd, kh, kw) of a block, in order, and each run of its columns [j, j + run) whose outputs share one
// (od, oh): inside(ic, row, j, run, line, x2) where that tap's input row lies in the input (line: the row's first
// element in channel ic's plane; x2: the input column of the run's first output, the next ones S_w apart), else
// outside(row, j, run).
template <class Inside, class Outside>
void for_each_run(const Geometry3& g, std::int64_t channels, std::int64_t p0, std::int64_t width, Inside inside,
                  Outside outside) {
    for (std::int64_t ic = 0, row = 0; ic < channels; ++ic)
        for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd)
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw, ++row)
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

void im2col_block(const Geometry3& g, const double* planes, std::int64_t channels, std::int64_t p0,
                  std::int64_t width, double* patches, double* patches_magnitude) {
    const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
    for_each_run(
        g, channels, p0, width,
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
        g, channels, p0, width,
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
