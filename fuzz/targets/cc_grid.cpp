// Fuzz target: the CC layer's projected grid and neighbour windows (reference/cc, seed 004 Eq. 2),
// exact against floating point.
//
// For a rational scale s = p/q, Eq. 2 is g_n = n/s + (in-1)/2 - (out-1)/(2s)
//   = (2nq + (in-1)p - (out-1)q) / (2p),
// so in integers: the default output size is ceil(p*in/q), the window's first neighbour is
// m_0 = ceil(g_n - k/2) = ceil((2nq + (in-1)p - (out-1)q - kp) / (2p)), and D = g_n - m.
// Properties:
//   1. the exact path (Rational) gives exactly these integers and rationals;
//   2. each double grid point is the exact point correctly rounded;
//   3. the same scale given as a REAL number (p/q rounded to double) gives the same output size
//      and the same windows, inside the ranges where its documented tolerance (kCcRealTolerance)
//      cannot blur two candidates (exact values are multiples of 1/(2p) apart).
#include <cmath>
#include <cstdint>
#include <string>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "fuzz_input.hpp"

namespace {

using convcheck::Rational;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {  // b > 0
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace convcheck;
    namespace cc = convcheck::reference::cc;
    fuzz::FuzzInput in(data, size);
    const bool small = in.flag();  // small ranges also check the real-scale path
    const std::int64_t p = in.integer(1, small ? 64 : 5000);
    const std::int64_t q = in.integer(1, small ? 64 : 5000);
    const std::int64_t input = in.integer(1, small ? 512 : 4096);
    const std::int64_t support = in.integer(1, 9);
    const bool explicit_out = in.flag();
    const std::int64_t expected_default = (p * input + q - 1) / q;  // ceil(p*in/q)
    const std::int64_t out = explicit_out ? in.integer(1, small ? 1024 : 4096) : expected_default;
    if (out > 20000) return 0;  // keep one run fast

    const std::string repro = "p/q=" + std::to_string(p) + "/" + std::to_string(q) + " in=" + std::to_string(input) +
                              " out=" + std::to_string(out) + " k=" + std::to_string(support);
    CcDescriptor d;
    d.input_size = {input, 1};
    d.output_size = {out, 1};
    d.scale = {CcScale::exact(Rational(p, q)), CcScale::exact(Rational(1))};
    d.support = {support, 1};
    try {
        validate(d);
    } catch (const ConvError&) {
        return 0;
    }
    if (cc_default_output_size(d.scale[0], input) != expected_default)
        fuzz::property_failed("cc_grid", "default output size " + std::to_string(cc_default_output_size(d.scale[0], input)) +
                                             " != ceil(p*in/q) = " + std::to_string(expected_default) + " for " + repro);
    const cc::GridAxis axis = cc::projected_grid_axis(d, 0);
    const cc::AxisWindow window = cc::neighbour_window(axis, support);
    if (!axis.exact || static_cast<std::int64_t>(axis.exact_points.size()) != out)
        fuzz::property_failed("cc_grid", "the exact grid is missing for " + repro);
    for (std::int64_t n = 0; n < out; ++n) {
        const std::int64_t numerator = 2 * n * q + (input - 1) * p - (out - 1) * q;
        const Rational g(numerator, 2 * p);
        if (!(axis.exact_points[n] == g))
            fuzz::property_failed("cc_grid", "g_" + std::to_string(n) + " differs from Eq. 2 in integers for " + repro);
        // IEEE division of two exactly representable integers is the exact quotient correctly rounded.
        const double nearest = static_cast<double>(numerator) / static_cast<double>(2 * p);
        if (axis.points[n] != nearest)
            fuzz::property_failed("cc_grid", "double g_" + std::to_string(n) + " is not the exact value rounded, " + repro);
        const std::int64_t first = ceil_div(numerator - support * p, 2 * p);
        if (window.first[n] != first)
            fuzz::property_failed("cc_grid", "window of output " + std::to_string(n) + " starts at " +
                                                 std::to_string(window.first[n]) + ", exactly " + std::to_string(first) +
                                                 ", " + repro);
        for (std::int64_t j = 0; j < support; ++j)
            if (!(window.exact_distance[n * support + j] == g - Rational(first + j)))
                fuzz::property_failed("cc_grid", "distance D = g - m wrong at output " + std::to_string(n) + ", " + repro);
    }

    if (!small) return 0;
    CcDescriptor r = d;
    r.scale[0] = CcScale::real(static_cast<double>(p) / static_cast<double>(q));
    if (!explicit_out && cc_default_output_size(r.scale[0], input) != expected_default)
        fuzz::property_failed("cc_grid", "a real scale gives default output size " +
                                             std::to_string(cc_default_output_size(r.scale[0], input)) + ", exactly " +
                                             std::to_string(expected_default) + ", " + repro);
    try {
        validate(r);
    } catch (const ConvError&) {
        return 0;
    }
    const cc::AxisWindow real_window = cc::neighbour_window(cc::projected_grid_axis(r, 0), support);
    for (std::int64_t n = 0; n < out; ++n)
        if (real_window.first[n] != window.first[n])
            fuzz::property_failed("cc_grid", "a real scale picks window " + std::to_string(real_window.first[n]) +
                                                 " at output " + std::to_string(n) + ", exactly " +
                                                 std::to_string(window.first[n]) + ", " + repro);
    return 0;
}
