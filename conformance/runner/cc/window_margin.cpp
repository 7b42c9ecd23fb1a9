#include "convcheck/runner/cc_window_margin.hpp"

#include <cmath>
#include <cstdio>

#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::runner {

namespace {

// Whether the kernel can weigh a neighbour at distance k/2 on axis a (the one a window edge moves).
bool edge_neighbour_weighs(const CcDescriptor& d, int a) {
    const double half = 0.5 * static_cast<double>(d.support[a]);
    switch (d.kernel) {
        case CcKernel::linear: return half < 1.0;
        case CcKernel::cubic: return half < 2.0;
        default: return true;  // the Internal-Net and the Gaussian are non-zero everywhere
    }
}

}  // namespace

std::string ambiguous_real_scale_window(const CcDescriptor& d, accuracy::Mode mode) {
    const double u_f32 = std::ldexp(1.0, -24);
    for (int a = 0; a < 2; ++a) {
        if (d.scale[a].is_rational()) continue;
        if (mode != accuracy::Mode::probe && !edge_neighbour_weighs(d, a)) continue;
        const reference::cc::GridAxis g = reference::cc::projected_grid_axis(d, a);
        for (std::int64_t n = 0; n < g.output_size; ++n) {
            // as window_edge_margin: the distance from g_n - k/2 to the nearest integer
            const double x = g.points[n] - 0.5 * static_cast<double>(d.support[a]);
            const double edge = std::round(x), margin = std::fabs(x - edge);
            const double error = reference::cc::distance_error_bound(n, static_cast<std::int64_t>(edge), d.scale[a].value,
                                                                     d.input_size[a], d.output_size[a], u_f32);
            if (margin > error) continue;
            char why[320];
            std::snprintf(why, sizeof(why),
                          "real scale %s on axis %s puts grid point %lld within %.3g of a window edge "
                          "(g - k/2 = %.17g, an f32 grid may be off by %.3g): a backend may pick either window, "
                          "which changes the %s-mode verdict; give the scale as an exact fraction p/q to decide it",
                          d.scale[a].to_string().c_str(), a == 0 ? "h" : "w", static_cast<long long>(n), margin, x,
                          error, accuracy::to_string(mode));
            return why;
        }
    }
    return "";
}

}  // namespace convcheck::runner
