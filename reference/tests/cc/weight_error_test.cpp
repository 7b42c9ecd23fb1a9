// The CC accuracy contract's weight term (weight_error.hpp): deltaW bounds an honest f32
// evaluation of every weight (positive and finite on the cc suite's layers:
// conformance/accuracy/tests/cc_suite_weight_test.cpp, where the suite lives).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/cc/weight_error.hpp"
#include "convcheck/reference_tests/float_cc.hpp"
#include "convcheck/reference_tests/weight_walk.hpp"

namespace convcheck {
namespace {

using namespace reference::cc;

constexpr double kF32 = 0x1.0p-24;

using cctest::as_float;
using cctest::float_theta;
using cctest::for_each_weight;
using cctest::kernel_of;

// For every weight: what an honest f32 backend computes (float grid point, float distance fy/fx, K_theta
// in float: got), the reference's K(D) (exact) and its deltaW at unit roundoff u. Calls
// f(oh, ow, fy, fx, dy, dx, ey, ex, exact, dW, got).
template <class F>
void for_each_float_weight(const CcDescriptor& d, const ContinuousKernel& kernel, const std::vector<float>& theta,
                           double u, F f) {
    const std::size_t C = static_cast<std::size_t>(d.in_channels * d.out_channels);
    std::vector<double> exact(C), dW(C);
    std::vector<float> got;
    for_each_weight(d, u, [&](auto oh, auto ow, double dy, double dx, double ey, double ex, auto mh, auto mw) {
        const float fy = cctest::float_grid_point(d, 0, oh) - static_cast<float>(mh);
        const float fx = cctest::float_grid_point(d, 1, ow) - static_cast<float>(mw);
        kernel.evaluate(dy, dx, exact);
        kernel.evaluation_error(dy, dx, ey, ex, u, underflow_error(kF32), dW);
        cctest::float_kernel(d, theta, fy, fx, got);
        f(oh, ow, fy, fx, dy, dx, ey, ex, exact, dW, got);
    });
}

// Every weight an honest f32 backend computes (float grid, float distance, float K) is within
// deltaW of the reference's K(D).
RC_GTEST_PROP(CcWeightError, BoundsAnHonestFloatEvaluationOfEveryWeight, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const std::vector<float> theta = float_theta(d, seed);
    const ContinuousKernel kernel = kernel_of(d, theta);
    const double u = kF32 + 0x1.0p-53;  // the f32 backend, and the reference's own double evaluation
    for_each_float_weight(d, kernel, theta, u, [&](auto oh, auto ow, float fy, float fx, double dy, double dx, double ey,
                                                  double ex, const auto& exact, const auto& dW, const auto& got) {
        RC_ASSERT(std::fabs(fy - dy) <= ey);
        RC_ASSERT(std::fabs(fx - dx) <= ex);
        for (std::size_t c = 0; c < exact.size(); ++c)
            if (!(std::fabs(static_cast<double>(got[c]) - exact[c]) <= dW[c]))
                RC_FAIL("weight " + std::to_string(c) + " at output (" + std::to_string(oh) + ", " + std::to_string(ow) +
                        "): f32 " + std::to_string(got[c]) + ", exact " + std::to_string(exact[c]) + ", deltaW " +
                        std::to_string(dW[c]) + " " + cctest::reproducer(d, seed));
    });
}

// The same with large, cancelling nets: hidden layers scaled up by 10^0..10^3 and b3 chosen so that
// every weight is nearly zero at the distance (0, 0).
RC_GTEST_PROP(CcWeightError, BoundsAnHonestFloatEvaluationOfCancellingNets, ()) {
    CcDescriptor d = *cctest::small_cc_descriptor();
    if (d.kernel != CcKernel::internal_net) d.kernel = CcKernel::internal_net, d.kernel_parameter = 0.0;
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    InternalNet net = initialise_internal_net(d, seed);
    const double scale1 = std::pow(10.0, *rc::gen::inRange(0, 4)), scale2 = std::pow(10.0, *rc::gen::inRange(0, 4));
    for (auto* part : {&net.W1, &net.b1}) for (double& v : *part) v = static_cast<float>(v * scale1);
    for (auto* part : {&net.W2, &net.b2}) for (double& v : *part) v = static_cast<float>(v * scale2);
    std::vector<double> at_zero(static_cast<std::size_t>(d.in_channels * d.out_channels));
    net.evaluate(0.0, 0.0, at_zero);
    for (std::size_t c = 0; c < at_zero.size(); ++c) net.b3[c] = static_cast<float>(net.b3[c] - at_zero[c]);
    const std::vector<float> theta = as_float(net.theta());
    const ContinuousKernel kernel = kernel_of(d, theta);
    const double u = kF32 + 0x1.0p-53;
    for_each_float_weight(d, kernel, theta, u, [&](auto, auto, float, float, double, double, double, double,
                                                  const auto& exact, const auto& dW, const auto& got) {
        for (std::size_t c = 0; c < exact.size(); ++c)
            if (!(std::fabs(static_cast<double>(got[c]) - exact[c]) <= dW[c]))
                RC_FAIL("weight " + std::to_string(c) + ": f32 " + std::to_string(got[c]) + ", exact " +
                        std::to_string(exact[c]) + ", deltaW " + std::to_string(dW[c]) + " scales " +
                        std::to_string(scale1) + ", " + std::to_string(scale2) + " " + cctest::reproducer(d, seed));
    });
}

// A weight that is a small difference of large terms: the f32 error is large relative to the
// weight, and deltaW says so (while u |W| would not).
TEST(CcWeightError, CoversCancellationInsideTheInternalNet) {
    CcDescriptor d = parse_cc_descriptor("cc:n=1,cin=1,cout=1,in=6x6,scale=1,support=3x3,kernel=net,hidden=1x1");
    InternalNet net = initialise_internal_net(d, 1);
    net.W1 = {0.001f, 0.002f}, net.b1 = {1000.0f};      // a1 ~ 1000
    net.W2 = {1.0f}, net.b2 = {0.0f};                    // a2 ~ 1000
    net.W3 = {static_cast<float>(1.001)}, net.b3 = {-1000.0f};  // w ~ 1: 1001 - 1000
    const ContinuousKernel kernel(net);
    const std::vector<float> theta = as_float(net.theta());
    double worst_relative = 0.0;
    const double u = kF32 + 0x1.0p-53;
    for_each_float_weight(d, kernel, theta, u, [&](auto, auto, float, float, double, double, double, double,
                                                  const auto& exact, const auto& dW, const auto& got) {
        const double err = std::fabs(got[0] - exact[0]);
        EXPECT_LE(err, dW[0]) << cctest::reproducer(d, 1);
        worst_relative = std::max(worst_relative, err / std::fabs(exact[0]));
    });
    EXPECT_GT(worst_relative, 100.0 * kF32) << "the case should show cancellation " << cctest::reproducer(d, 1);
}

}  // namespace
}  // namespace convcheck
