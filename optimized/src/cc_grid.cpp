// The projected grid of the CC layer per axis (cc_grid.hpp):
//   g_n = n / s + (in - 1) / 2 - (out - 1) / (2 s),   window  g_n - k/2 <= m < g_n + k/2.
#include "cc_grid.hpp"

#include <algorithm>

#include "convcheck/core/rational.hpp"

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

AxisWindows axis_windows(const CcDescriptor& d, int axis) {
    AxisWindows w;
    w.in = d.input_size[axis];
    w.out = d.output_size[axis];
    w.support = d.support[axis];
    const CcScale& scale = d.scale[axis];
    w.exact = scale.is_rational();
    if (w.exact) {
        w.p = scale.numerator;
        w.q = scale.denominator;
    }
    const Rational half_support(w.support, 2);
    for (i64 n = 0; n < w.out; ++n) {
        if (w.exact) {
            // g_n = n/s + (in-1)/2 - (out-1)/(2s), exactly; the window g - k/2 <= m < g + k/2
            const Rational s = scale.rational();
            const Rational g = Rational(n) / s + Rational(w.in - 1, 2) - Rational(w.out - 1) / (Rational(2) * s);
            const i64 first = (g - half_support).ceil();
            w.first.push_back(first);
            for (i64 j = 0; j < w.support; ++j) w.distance.push_back((g - Rational(first + j)).to_double());
        } else {
            const double s = scale.value;
            const double g = static_cast<double>(n) / s + 0.5 * static_cast<double>(w.in - 1) -
                             static_cast<double>(w.out - 1) / (2.0 * s);
            const i64 first = cc_ceil(g - 0.5 * static_cast<double>(w.support));
            w.first.push_back(first);
            for (i64 j = 0; j < w.support; ++j) w.distance.push_back(g - static_cast<double>(first + j));
        }
    }
    return w;
}

i64 phase_count(const AxisWindows& w) { return std::min(w.p, w.out); }

}  // namespace convcheck::optimized::detail
