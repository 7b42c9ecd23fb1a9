// Test helpers for the CC reference: seeded data, a one-line reproducer, and a RapidCheck generator
// of small valid CC descriptors (exact and real scales, every kernel kind).
#pragma once

#include <rapidcheck.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/internal_net.hpp"

namespace convcheck::cctest {

// Uniform reals in [-1, 1) from a seed (the reproducer names the seed).
inline std::vector<double> uniform(std::int64_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double& x : v) x = static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0;
    return v;
}

inline std::string reproducer(const CcDescriptor& d, std::uint64_t seed) {
    return "reproduce: " + to_string(d) + " seed=" + std::to_string(seed);
}

// The kernel that d describes; an Internal-Net is initialised from `seed`.
inline reference::cc::ContinuousKernel kernel_for(const CcDescriptor& d, std::uint64_t seed) {
    if (d.kernel == CcKernel::internal_net) return reference::cc::ContinuousKernel(reference::cc::initialise_internal_net(d, seed));
    return reference::cc::ContinuousKernel(d.kernel, d.kernel_parameter, d.in_channels, d.out_channels);
}

// Allowed difference between two double evaluations of the same sum of `terms` products:
// gamma_n(2^-53) * sum|x*w| on each side (the accuracy contract with u = unit roundoff of double).
inline double double_bound(double magnitude, std::int64_t terms) {
    const double u = 0x1.0p-53, n = static_cast<double>(terms + 1);
    return 2.0 * (n * u / (1.0 - n * u)) * magnitude;
}

inline rc::Gen<CcScale> small_scale(bool allow_real) {
    auto exact = rc::gen::map(rc::gen::pair(rc::gen::inRange<std::int64_t>(1, 13), rc::gen::inRange<std::int64_t>(1, 13)),
                              [](auto pq) { return CcScale::exact(Rational(pq.first, pq.second)); });
    if (!allow_real) return exact;
    auto real = rc::gen::map(rc::gen::inRange(1, 3001), [](int v) { return CcScale::real(0.2 + v / 1000.0); });
    return rc::gen::oneOf(exact, real);
}

inline rc::Gen<CcDescriptor> small_cc_descriptor(bool allow_real = true) {
    return rc::gen::exec([allow_real] {
        CcDescriptor d;
        d.batch = *rc::gen::inRange<std::int64_t>(1, 3);
        d.in_channels = *rc::gen::inRange<std::int64_t>(1, 4);
        d.out_channels = *rc::gen::inRange<std::int64_t>(1, 4);
        d.kernel = *rc::gen::element(CcKernel::internal_net, CcKernel::linear, CcKernel::cubic, CcKernel::gaussian);
        if (d.kernel == CcKernel::gaussian) d.kernel_parameter = *rc::gen::inRange(2, 20) / 10.0;
        d.hidden_widths = {*rc::gen::inRange<std::int64_t>(1, 9), *rc::gen::inRange<std::int64_t>(1, 9)};
        d.leaky_relu_slope = *rc::gen::inRange(0, 30) / 100.0;
        d.has_bias = *rc::gen::arbitrary<bool>();
        for (int a = 0; a < 2; ++a) {
            d.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 12);
            d.scale[a] = *small_scale(allow_real);
            d.support[a] = *rc::gen::inRange<std::int64_t>(1, 6);
            // mostly the default ceil(s * in) (kept small), sometimes an explicit size
            const std::int64_t natural = cc_default_output_size(d.scale[a], d.input_size[a]);
            const bool explicit_out = natural > 40 || *rc::gen::inRange(0, 4) == 0;
            d.output_size[a] = explicit_out ? *rc::gen::inRange<std::int64_t>(1, 25) : natural;
        }
        validate(d);
        return d;
    });
}

}  // namespace convcheck::cctest
