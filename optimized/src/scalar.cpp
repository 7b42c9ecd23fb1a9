// The portable path: plain loops over xp, in the same summation order as the vector kernels
// (bias, taps outermost-first, input channels), vectorised over output channels by the compiler.
#include "scalar.hpp"

#include <vector>

namespace convcheck::optimized::detail {

void scalar_rows(const ScalarProblem& p, const float* xp, float* y, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 cs = g.channel_stride, ICg = g.in_per_group, OCg = g.out_per_group, taps = g.taps();
    std::vector<float> acc(static_cast<std::size_t>(OCg));
    for (i64 row = begin; row < end; ++row) {
        const i64 oh = row % g.out[1];
        const i64 od = (row / g.out[1]) % g.out[0];
        const i64 n = row / (g.out[1] * g.out[0]);
        const float* x_row = xp + ((n * g.padded[0] + od * g.stride[0]) * g.padded[1] + oh * g.stride[1]) *
                                      g.padded[2] * cs;
        for (i64 ow = 0; ow < g.out[2]; ++ow) {
            const float* x_pixel = x_row + ow * g.stride[2] * cs;
            float* y_pixel = y + (row * g.out[2] + ow) * g.out_channels;
            for (i64 grp = 0; grp < g.groups; ++grp) {
                for (i64 oc = 0; oc < OCg; ++oc) acc[oc] = p.bias ? p.bias[grp * OCg + oc] : 0.0f;
                const float* w = p.weights + grp * taps * ICg * OCg;
                for (i64 t = 0; t < taps; ++t) {
                    const float* x = x_pixel + p.tap_offsets[t] + grp * ICg;
                    for (i64 ic = 0; ic < ICg; ++ic, w += OCg)
                        for (i64 oc = 0; oc < OCg; ++oc) acc[oc] += x[ic] * w[oc];
                }
                for (i64 oc = 0; oc < OCg; ++oc) y_pixel[grp * OCg + oc] = acc[oc];
            }
        }
    }
}

}  // namespace convcheck::optimized::detail
