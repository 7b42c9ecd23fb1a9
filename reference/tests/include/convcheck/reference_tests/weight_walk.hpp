// Test helpers for the CC weight term (weight_error.hpp): f32 theta and the reference kernel on exactly
// those values, and a walk over every weight of a layer with its distances and their error bounds.
// Used by reference/tests/cc/weight_error_test.cpp and conformance/accuracy/tests/cc_suite_weight_test.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/continuous_kernel.hpp"
#include "convcheck/reference/cc/internal_net.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::cctest {

inline std::vector<float> as_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

// theta in f32 (the ABI's), and the reference kernel on exactly those values.
inline std::vector<float> float_theta(const CcDescriptor& d, std::uint64_t seed) {
    return d.kernel == CcKernel::internal_net ? as_float(reference::cc::initialise_internal_net(d, seed).theta())
                                              : std::vector<float>{};
}
inline reference::cc::ContinuousKernel kernel_of(const CcDescriptor& d, const std::vector<float>& theta) {
    return reference::cc::ContinuousKernel::for_descriptor(d, std::vector<double>(theta.begin(), theta.end()));
}

// Calls f(oh, ow, jh, jw, dy, dx, ey, ex, m_h, m_w) for every neighbour of every output.
template <class F>
void for_each_weight(const CcDescriptor& d, double u, F f) {
    using namespace reference::cc;
    AxisWindow w[2];
    double s[2];
    for (int a = 0; a < 2; ++a) {
        w[a] = neighbour_window(projected_grid_axis(d, a), d.support[a]);
        s[a] = d.scale[a].is_rational() ? d.scale[a].rational().to_double() : d.scale[a].value;
    }
    for (std::int64_t oh = 0; oh < d.output_size[0]; ++oh)
        for (std::int64_t ow = 0; ow < d.output_size[1]; ++ow)
            for (std::int64_t jh = 0; jh < d.support[0]; ++jh)
                for (std::int64_t jw = 0; jw < d.support[1]; ++jw) {
                    const std::int64_t mh = w[0].first[oh] + jh, mw = w[1].first[ow] + jw;
                    const double ey = distance_error_bound(oh, mh, s[0], d.input_size[0], d.output_size[0], u);
                    const double ex = distance_error_bound(ow, mw, s[1], d.input_size[1], d.output_size[1], u);
                    f(oh, ow, w[0].distance[oh * d.support[0] + jh], w[1].distance[ow * d.support[1] + jw], ey, ex, mh, mw);
                }
}

}  // namespace convcheck::cctest
