#include "convcheck/reference/cc/neighbours.hpp"

#include <algorithm>
#include <cmath>

namespace convcheck::reference::cc {

AxisWindow neighbour_window(const GridAxis& axis, std::int64_t support) {
    AxisWindow w;
    w.support = support;
    const Rational half_support(support, 2);
    for (std::int64_t n = 0; n < axis.output_size; ++n) {
        // the integers m with g - k/2 <= m < g + k/2: m_0 = ceil(g - k/2), then k of them
        std::int64_t first;
        if (axis.exact) first = (axis.exact_points[n] - half_support).ceil();
        else first = cc_ceil(axis.points[n] - 0.5 * static_cast<double>(support));
        w.first.push_back(first);
        for (std::int64_t j = 0; j < support; ++j) {
            const std::int64_t m = first + j;
            if (axis.exact) {
                const Rational D = axis.exact_points[n] - Rational(m);  // D = g - m
                w.exact_distance.push_back(D);
                w.distance.push_back(D.to_double());
            } else {
                w.distance.push_back(axis.points[n] - static_cast<double>(m));
            }
        }
    }
    return w;
}

double window_edge_margin(const CcDescriptor& d) {
    double margin = 0.5;
    for (int a = 0; a < 2; ++a) {
        const GridAxis g = projected_grid_axis(d, a);
        const Rational half_support(d.support[a], 2);
        for (std::int64_t n = 0; n < g.output_size; ++n) {
            double x;
            if (g.exact) {
                const Rational exact = g.exact_points[n] - half_support;
                x = (exact - Rational(exact.floor())).to_double();  // fractional part, exact before rounding
            } else {
                x = g.points[n] - 0.5 * static_cast<double>(d.support[a]);
                x -= std::floor(x);
            }
            margin = std::min(margin, std::min(x, 1.0 - x));
        }
    }
    return margin;
}

Neighbours extract_neighbours(const CcDescriptor& d, const ProjectedGrid& grid, std::span<const double> src) {
    Neighbours nb;
    nb.batch = d.batch;
    nb.in_channels = d.in_channels;
    nb.count = d.neighbours();
    nb.out_h = d.output_size[0];
    nb.out_w = d.output_size[1];
    nb.windows[0] = neighbour_window(grid.axes[0], d.support[0]);
    nb.windows[1] = neighbour_window(grid.axes[1], d.support[1]);
    const std::int64_t N = nb.batch, C = nb.in_channels, K = nb.count, OH = nb.out_h, OW = nb.out_w;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], KH = d.support[0], KW = d.support[1];
    nb.values.assign(static_cast<std::size_t>(N * C * K * OH * OW), 0.0);
    nb.inside.assign(static_cast<std::size_t>(K * OH * OW), 0);
    nb.distances.assign(static_cast<std::size_t>(K * 2 * OH * OW), 0.0);

    for (std::int64_t jh = 0; jh < KH; ++jh)
    for (std::int64_t jw = 0; jw < KW; ++jw)
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow) {
        const std::int64_t k = jh * KW + jw;
        const std::int64_t mh = nb.windows[0].first[oh] + jh, mw = nb.windows[1].first[ow] + jw;
        nb.distances[((k * 2 + 0) * OH + oh) * OW + ow] = nb.windows[0].distance[oh * KH + jh];  // dy = g_h - m_h
        nb.distances[((k * 2 + 1) * OH + oh) * OW + ow] = nb.windows[1].distance[ow * KW + jw];  // dx = g_w - m_w
        const bool inside = mh >= 0 && mh < H && mw >= 0 && mw < W;  // outside the input: zero
        nb.inside[(k * OH + oh) * OW + ow] = inside ? 1 : 0;
        if (!inside) continue;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t c = 0; c < C; ++c)
                nb.values[(((n * C + c) * K + k) * OH + oh) * OW + ow] = src[((n * C + c) * H + mh) * W + mw];
    }
    return nb;
}

}  // namespace convcheck::reference::cc
