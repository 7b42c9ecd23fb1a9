// im2col and col2im (im2col.hpp): a row goes by runs of columns with one (od, oh), where only the w tap moves.
#include "im2col.hpp"

#include <algorithm>
#include <cmath>

namespace convcheck::reference::detail {

void im2col_block(const Geometry3& g, const double* planes, std::int64_t channels, std::int64_t p0,
                  std::int64_t width, double* patches, double* patches_magnitude) {
    const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
    for (std::int64_t ic = 0, row = 0; ic < channels; ++ic) {
        const double* plane = planes + ic * in_plane;
        for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd)
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw, ++row) {
                    double* out = patches + row * width;
                    double* out_magnitude = patches_magnitude + row * width;
                    std::int64_t p = p0;
                    for (std::int64_t j = 0; j < width;) {
                        const std::int64_t ow0 = p % g.out[2], oh = (p / g.out[2]) % g.out[1];
                        const std::int64_t od = p / (g.out[2] * g.out[1]);
                        const std::int64_t run = std::min(width - j, g.out[2] - ow0);
                        const std::int64_t x0 = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                        const std::int64_t x1 = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                        if (x0 >= 0 && x0 < g.in[0] && x1 >= 0 && x1 < g.in[1]) {
                            const double* line = plane + (x0 * g.in[1] + x1) * g.in[2];
                            for (std::int64_t t = 0; t < run; ++t) {
                                const std::int64_t x2 = (ow0 + t) * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                                const double v = (x2 >= 0 && x2 < g.in[2]) ? line[x2] : 0.0;
                                out[j + t] = v;
                                out_magnitude[j + t] = std::fabs(v);
                            }
                        } else {
                            std::fill_n(out + j, run, 0.0);
                            std::fill_n(out_magnitude + j, run, 0.0);
                        }
                        j += run;
                        p += run;
                    }
                }
    }
}

void col2im_add_block(const Geometry3& g, const double* columns, const double* columns_magnitude,
                      std::int64_t channels, std::int64_t p0, std::int64_t width, double* planes,
                      double* planes_magnitude) {
    const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
    for (std::int64_t ic = 0, row = 0; ic < channels; ++ic) {
        double* plane = planes + ic * in_plane;
        double* plane_magnitude = planes_magnitude + ic * in_plane;
        for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd)
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw, ++row) {
                    const double* in = columns + row * width;
                    const double* in_magnitude = columns_magnitude + row * width;
                    std::int64_t p = p0;
                    for (std::int64_t j = 0; j < width;) {
                        const std::int64_t ow0 = p % g.out[2], oh = (p / g.out[2]) % g.out[1];
                        const std::int64_t od = p / (g.out[2] * g.out[1]);
                        const std::int64_t run = std::min(width - j, g.out[2] - ow0);
                        const std::int64_t x0 = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                        const std::int64_t x1 = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                        if (x0 >= 0 && x0 < g.in[0] && x1 >= 0 && x1 < g.in[1]) {
                            const std::int64_t line = (x0 * g.in[1] + x1) * g.in[2];
                            for (std::int64_t t = 0; t < run; ++t) {
                                const std::int64_t x2 = (ow0 + t) * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                                if (x2 < 0 || x2 >= g.in[2]) continue;
                                plane[line + x2] += in[j + t];
                                plane_magnitude[line + x2] += in_magnitude[j + t];
                            }
                        }
                        j += run;
                        p += run;
                    }
                }
    }
}

}  // namespace convcheck::reference::detail
