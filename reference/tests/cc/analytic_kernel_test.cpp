// The analytic stand-ins for K_theta: values, support, partition of unity, separability.
#include <gtest/gtest.h>

#include <cmath>

#include "convcheck/reference/cc/continuous_kernel.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

TEST(AnalyticKernel, LinearIsTheTriangle) {
    EXPECT_EQ(analytic_kernel_1d(CcKernel::linear, 0, 0.0), 1.0);
    EXPECT_EQ(analytic_kernel_1d(CcKernel::linear, 0, 0.25), 0.75);
    EXPECT_EQ(analytic_kernel_1d(CcKernel::linear, 0, -0.25), 0.75);
    EXPECT_EQ(analytic_kernel_1d(CcKernel::linear, 0, 1.0), 0.0);
    EXPECT_EQ(analytic_kernel_1d(CcKernel::linear, 0, -1.5), 0.0);
}

TEST(AnalyticKernel, KeysCubicWithAMinusHalf) {
    // Keys (1981), a = -0.5: k(0) = 1, k(+-1) = k(+-2) = 0, k(1/2) = 9/16, k(3/2) = -1/16
    EXPECT_EQ(analytic_kernel_1d(CcKernel::cubic, 0, 0.0), 1.0);
    EXPECT_EQ(analytic_kernel_1d(CcKernel::cubic, 0, 1.0), 0.0);
    EXPECT_EQ(analytic_kernel_1d(CcKernel::cubic, 0, -2.0), 0.0);
    EXPECT_DOUBLE_EQ(analytic_kernel_1d(CcKernel::cubic, 0, 0.5), 9.0 / 16.0);
    EXPECT_DOUBLE_EQ(analytic_kernel_1d(CcKernel::cubic, 0, -1.5), -1.0 / 16.0);
    EXPECT_EQ(analytic_kernel_1d(CcKernel::cubic, 0, 2.5), 0.0);
}

TEST(AnalyticKernel, LinearAndCubicArePartitionsOfUnity) {
    // sum_m k(t - m) = 1 for every shift t: interpolation reproduces constants
    for (double t = -1.0; t <= 1.0; t += 1.0 / 64) {
        for (CcKernel kind : {CcKernel::linear, CcKernel::cubic}) {
            double sum = 0;
            for (int m = -3; m <= 3; ++m) sum += analytic_kernel_1d(kind, 0, t - m);
            EXPECT_NEAR(sum, 1.0, 1e-15) << to_string(kind) << " t=" << t;
        }
        // the cubic also reproduces linear functions: sum_m m k(t - m) = t
        double first_moment = 0;
        for (int m = -3; m <= 3; ++m) first_moment += m * analytic_kernel_1d(CcKernel::cubic, 0, t - m);
        EXPECT_NEAR(first_moment, t, 1e-14) << "t=" << t;
    }
}

TEST(AnalyticKernel, GaussianIsTheAbisFormula) {
    // exp(-(dy^2 + dx^2) / (2 sigma^2)), the same weight for every (cout, cin)
    const ContinuousKernel k(CcKernel::gaussian, 0.75, 2, 3);
    std::vector<double> w(6);
    k.evaluate(0.5, -1.25, w);
    const double expected = std::exp(-(0.25 + 1.5625) / (2 * 0.5625));
    for (double v : w) EXPECT_NEAR(v, expected, 1e-15);
}

TEST(AnalyticKernel, SeparableProduct) {
    const ContinuousKernel k(CcKernel::cubic, 0, 1, 1);
    std::vector<double> w(1);
    k.evaluate(0.5, 1.5, w);
    EXPECT_DOUBLE_EQ(w[0], (9.0 / 16.0) * (-1.0 / 16.0));
}

TEST(AnalyticKernel, InternalNetIsNotAnalytic) {
    EXPECT_THROW(analytic_kernel_1d(CcKernel::internal_net, 0, 0.0), ConvError);
    EXPECT_THROW(ContinuousKernel(CcKernel::internal_net, 0, 1, 1), ConvError);
}
