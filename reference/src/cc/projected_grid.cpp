#include "convcheck/reference/cc/projected_grid.hpp"

namespace convcheck::reference::cc {

GridAxis projected_grid_axis(const CcDescriptor& d, int axis) {
    GridAxis g;
    g.input_size = d.input_size[axis];
    g.output_size = d.output_size[axis];
    const CcScale& scale = d.scale[axis];
    g.exact = scale.is_rational();
    const std::int64_t in = g.input_size, out = g.output_size;
    for (std::int64_t n = 0; n < out; ++n) {
        if (g.exact) {
            // g_n = n/s + 1/2 (in_size - 1) - 1/(2s) (out_size - 1), in exact rational arithmetic
            const Rational s = scale.rational();
            const Rational point = Rational(n) / s + Rational(in - 1, 2) - Rational(out - 1) / (Rational(2) * s);
            g.exact_points.push_back(point);
            g.points.push_back(point.to_double());
        } else {
            // the same formula in double, for a real scale
            const double s = scale.value;
            g.points.push_back(static_cast<double>(n) / s + 0.5 * static_cast<double>(in - 1) -
                               static_cast<double>(out - 1) / (2.0 * s));
        }
    }
    return g;
}

ProjectedGrid projected_grid(const CcDescriptor& d) {
    ProjectedGrid grid;
    grid.axes[0] = projected_grid_axis(d, 0);
    grid.axes[1] = projected_grid_axis(d, 1);
    return grid;
}

std::vector<double> ProjectedGrid::tensor() const {
    const std::int64_t H = axes[0].output_size, W = axes[1].output_size;
    std::vector<double> t(static_cast<std::size_t>(2 * H * W));
    for (std::int64_t i = 0; i < H; ++i)
        for (std::int64_t j = 0; j < W; ++j) {
            t[(0 * H + i) * W + j] = axes[0].points[i];
            t[(1 * H + i) * W + j] = axes[1].points[j];
        }
    return t;
}

}  // namespace convcheck::reference::cc
