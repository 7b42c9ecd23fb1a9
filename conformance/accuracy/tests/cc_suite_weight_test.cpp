// The CC accuracy contract's weight term (reference/cc/weight_error.hpp) on the cc suite's own layers
// (cc_suite_layers.hpp): deltaW of every weight, and the weight term of every output, are
// positive and finite, so that the bound the runner applies to each layer of the suite is meaningful.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference_tests/weight_walk.hpp"
#include "convcheck/accuracy/cc_suite_layers.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck {
namespace {

using namespace reference::cc;
using cctest::as_float;
using cctest::float_theta;
using cctest::for_each_weight;
using cctest::kernel_of;

constexpr double kF32 = 0x1.0p-24;

TEST(CcWeightError, PositiveAndFiniteOnTheCcSuite) {
    for (const CcSuiteLayer& layer : kCcSuiteLayers) {
        const CcDescriptor d = parse_cc_descriptor(layer.descriptor);
        const std::uint64_t seed = 7;
        const std::vector<float> theta = float_theta(d, seed);
        const ContinuousKernel kernel = kernel_of(d, theta);
        std::vector<double> dW(static_cast<std::size_t>(d.in_channels * d.out_channels));
        for_each_weight(d, kF32, [&](auto oh, auto ow, double dy, double dx, double ey, double ex, auto, auto) {
            kernel.evaluation_error(dy, dx, ey, ex, kF32, underflow_error(kF32), dW);
            for (double v : dW)
                ASSERT_TRUE(v > 0.0 && std::isfinite(v))
                    << "deltaW = " << v << " at output (" << oh << ", " << ow << "), D = (" << dy << ", " << dx
                    << ") " << cctest::reproducer(d, seed);
        });
        const std::vector<float> src = as_float(cctest::uniform(d.src_elements(), seed));
        const std::vector<double> E = cc_weight_error(d, src.data(), theta.empty() ? nullptr : theta.data(), kF32);
        ASSERT_EQ(static_cast<std::int64_t>(E.size()), d.dst_elements());
        for (double v : E) ASSERT_TRUE(v > 0.0 && std::isfinite(v)) << "weight_error = " << v << " " << cctest::reproducer(d, seed);
    }
}

}  // namespace
}  // namespace convcheck
