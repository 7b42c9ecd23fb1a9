// CC block 1: the projected grid of Eq. 2, checked against the paper's own numbers.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

GridAxis axis_of(const std::string& text, int axis = 0) { return projected_grid_axis(parse_cc_descriptor(text), axis); }

}  // namespace

TEST(ProjectedGrid, Figure4OutputSizesAndGrid) {
    // Fig. 4.b: a 4x4 input resized by 0.6 and 1.4 gives a 3x6 output (intrinsic 2.4 x 5.6)
    const CcDescriptor d = parse_cc_descriptor("cin=1,cout=1,in=4,scale=3/5x7/5");
    ASSERT_EQ(d.output_size, (std::array<std::int64_t, 2>{3, 6}));
    const ProjectedGrid g = projected_grid(d);
    // s = 3/5: g_n = 5n/3 + 3/2 - 5/3 = 5n/3 - 1/6
    EXPECT_EQ(g.axes[0].exact_points, (std::vector<Rational>{Rational(-1, 6), Rational(3, 2), Rational(19, 6)}));
    // s = 7/5: g_n = 5n/7 + 3/2 - 25/14 = 5n/7 - 2/7; symmetric about the input centre 3/2
    ASSERT_EQ(g.axes[1].exact_points.size(), 6u);
    EXPECT_EQ(g.axes[1].exact_points[0], Rational(-2, 7));
    EXPECT_EQ(g.axes[1].exact_points[5], Rational(23, 7));
    for (int n = 0; n < 6; ++n) EXPECT_EQ(g.axes[1].exact_points[n] + g.axes[1].exact_points[5 - n], Rational(3));
    // the same with real scales
    const CcDescriptor r = parse_cc_descriptor("cin=1,cout=1,in=4,scale=0.6x1.4");
    ASSERT_EQ(r.output_size, (std::array<std::int64_t, 2>{3, 6}));
    const ProjectedGrid gr = projected_grid(r);
    for (int n = 0; n < 3; ++n) EXPECT_NEAR(gr.axes[0].points[n], g.axes[0].points[n], 1e-12);
    for (int n = 0; n < 6; ++n) EXPECT_NEAR(gr.axes[1].points[n], g.axes[1].points[n], 1e-12);
}

TEST(ProjectedGrid, InverseIntegerScalesFallOnTheDocumentedLocations) {
    // Sec. 4: "scale-factor of 1/2 produces locations 0.5, 2.5, 4.5 etc., whereas scale factor of
    // 1/3 produces locations 1, 4, 7 etc."
    EXPECT_EQ(axis_of("cin=1,cout=1,in=8,scale=1/2").exact_points,
              (std::vector<Rational>{Rational(1, 2), Rational(5, 2), Rational(9, 2), Rational(13, 2)}));
    EXPECT_EQ(axis_of("cin=1,cout=1,in=9,scale=1/3").exact_points,
              (std::vector<Rational>{Rational(1), Rational(4), Rational(7)}));
    // and the Sec. 3.1 relation for out = s * in: g_n = n/s + (1/s - 1)/2
    const GridAxis up = axis_of("cin=1,cout=1,in=3,scale=2");
    for (std::int64_t n = 0; n < 6; ++n) EXPECT_EQ(up.exact_points[n], Rational(n, 2) + Rational(1, 4) - Rational(1, 2));
}

TEST(ProjectedGrid, ScaleOneIsTheIdentityGrid) {
    const GridAxis g = axis_of("cin=1,cout=1,in=7,scale=1");
    for (std::int64_t n = 0; n < 7; ++n) EXPECT_EQ(g.exact_points[n], Rational(n));
}

TEST(ProjectedGrid, ExplicitOutputSizeKeepsTheScale) {
    // out = 7 with s = 1/2 on in = 10: g_n = 2n + 9/2 - 6 = 2n - 3/2
    const GridAxis g = axis_of("cin=1,cout=1,in=10,scale=1/2,out=7");
    for (std::int64_t n = 0; n < 7; ++n) EXPECT_EQ(g.exact_points[n], Rational(2 * n) - Rational(3, 2));
}

TEST(ProjectedGrid, TensorIsTwoByHByW) {
    const ProjectedGrid g = projected_grid(parse_cc_descriptor("cin=1,cout=1,in=4x6,scale=1/2x1/3"));
    const std::vector<double> t = g.tensor();
    ASSERT_EQ(t.size(), 2u * 2 * 2);
    // channel 0: the vertical coordinate, constant along a row; channel 1: the horizontal one
    EXPECT_EQ(t[0], 0.5);
    EXPECT_EQ(t[1], 0.5);
    EXPECT_EQ(t[2], 2.5);
    EXPECT_EQ(t[4], 1.0);
    EXPECT_EQ(t[5], 4.0);
    EXPECT_EQ(t[6], 1.0);
}

RC_GTEST_PROP(ProjectedGrid, RationalScaleIsPeriodicWithPeriodNumerator, ()) {
    // Sec. 5: "for rational-numbers scale-factors (s = k/l) the grid is periodic, with a period
    // equals the numerator k": g_{n+p} = g_n + q for s = p/q in lowest terms
    const std::int64_t p = *rc::gen::inRange<std::int64_t>(1, 12), q = *rc::gen::inRange<std::int64_t>(1, 12);
    const std::int64_t in = *rc::gen::inRange<std::int64_t>(1, 40);
    CcDescriptor d;
    d.input_size = {in, 1};
    d.scale[0] = CcScale::exact(Rational(p, q));
    d.output_size = {cc_default_output_size(d.scale[0], in) + *rc::gen::inRange<std::int64_t>(0, 12), 1};
    validate(d);
    RC_LOG() << to_string(d);
    const GridAxis g = projected_grid_axis(d, 0);
    const Rational s(p, q);
    for (std::int64_t n = 0; n + s.numerator() < d.output_size[0]; ++n)
        RC_ASSERT(g.exact_points[n + s.numerator()] == g.exact_points[n] + Rational(s.denominator()));
    // consecutive points are exactly 1/s apart
    for (std::int64_t n = 0; n + 1 < d.output_size[0]; ++n)
        RC_ASSERT(g.exact_points[n + 1] - g.exact_points[n] == Rational(1) / s);
    // and no shorter period exists: for 0 < j < p, g_{n+j} - g_n is not a whole number of pixels
    for (std::int64_t j = 1; j < s.numerator() && j < d.output_size[0]; ++j)
        RC_ASSERT(!(g.exact_points[j] - g.exact_points[0]).is_integer());
}

RC_GTEST_PROP(ProjectedGrid, RealScaleAgreesWithTheExactGrid, ()) {
    const std::int64_t p = *rc::gen::inRange<std::int64_t>(1, 50), q = *rc::gen::inRange<std::int64_t>(1, 50);
    const std::int64_t in = *rc::gen::inRange<std::int64_t>(1, 60);
    CcDescriptor exact, real;
    exact.input_size = real.input_size = {in, 1};
    exact.scale[0] = CcScale::exact(Rational(p, q));
    real.scale[0] = CcScale::real(static_cast<double>(p) / static_cast<double>(q));
    exact.output_size[0] = cc_default_output_size(exact.scale[0], in);
    real.output_size[0] = cc_default_output_size(real.scale[0], in);
    RC_LOG() << to_string(exact) << " vs " << to_string(real);
    RC_ASSERT(exact.output_size[0] == real.output_size[0]);
    const GridAxis ge = projected_grid_axis(exact, 0), gr = projected_grid_axis(real, 0);
    for (std::size_t n = 0; n < ge.points.size(); ++n)
        RC_ASSERT(std::fabs(ge.points[n] - gr.points[n]) <= 1e-12 * std::max(1.0, std::fabs(ge.points[n])));
}
