// CC block 2: the neighbour window g - k/2 <= m < g + k/2, zero padding, and the tensors N and D.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/cc/neighbours.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

AxisWindow window_of(const std::string& text, int axis = 0) {
    const CcDescriptor d = parse_cc_descriptor(text);
    return neighbour_window(projected_grid_axis(d, axis), d.support[axis]);
}

}  // namespace

TEST(Neighbours, PaperExampleHalfScaleSupportTwo) {
    // Sec. 3.2: "for s = 1/2 and a kernel with support of 2x2, we get
    // D[n] = {(-1/2,-1/2), (-1/2,1/2), (1/2,-1/2), (1/2,1/2)} for all n"
    const CcDescriptor d = parse_cc_descriptor("cin=1,cout=1,in=8x6,scale=1/2,support=2");
    const ProjectedGrid g = projected_grid(d);
    const Neighbours nb = extract_neighbours(d, g, std::vector<double>(48, 1.0));
    ASSERT_EQ(nb.count, 4);
    const std::int64_t OH = 4, OW = 3;
    for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow)
            for (std::int64_t k = 0; k < 4; ++k) {
                const double dy = nb.distances[((k * 2 + 0) * OH + oh) * OW + ow];
                const double dx = nb.distances[((k * 2 + 1) * OH + oh) * OW + ow];
                // k = j_h * k_w + j_w; m = m_0 + j, so D = g - m decreases with j
                EXPECT_EQ(dy, k / 2 == 0 ? 0.5 : -0.5) << "k=" << k << " at " << oh << "," << ow;
                EXPECT_EQ(dx, k % 2 == 0 ? 0.5 : -0.5) << "k=" << k << " at " << oh << "," << ow;
            }
}

TEST(Neighbours, WindowIsHalfOpenOnTheRight) {
    // s = 1/3 on in = 9: g = 1, 4, 7. Support 3: [g - 3/2, g + 3/2) -> g-1, g, g+1.
    const AxisWindow odd = window_of("cin=1,cout=1,in=9,scale=1/3,support=3");
    EXPECT_EQ(odd.first, (std::vector<std::int64_t>{0, 3, 6}));
    EXPECT_EQ(odd.distance, (std::vector<double>{1, 0, -1, 1, 0, -1, 1, 0, -1}));
    // support 2 on an integer grid point: [g - 1, g + 1) holds g - 1 (on the edge) and g, not g + 1
    const AxisWindow even = window_of("cin=1,cout=1,in=9,scale=1/3,support=2");
    EXPECT_EQ(even.first, (std::vector<std::int64_t>{0, 3, 6}));
    EXPECT_EQ(even.distance, (std::vector<double>{1, 0, 1, 0, 1, 0}));
    // support 4 at scale 1: [n - 2, n + 2) -> n-2 .. n+1, distances 2, 1, 0, -1
    const AxisWindow four = window_of("cin=1,cout=1,in=3,scale=1,support=4");
    EXPECT_EQ(four.first, (std::vector<std::int64_t>{-2, -1, 0}));
    EXPECT_EQ(std::vector<double>(four.distance.begin(), four.distance.begin() + 4), (std::vector<double>{2, 1, 0, -1}));
}

TEST(Neighbours, Figure4Windows) {
    // s = 3/5 on in = 4: g = -1/6, 3/2, 19/6; support 3 -> [g - 3/2, g + 3/2)
    const AxisWindow w = window_of("cin=1,cout=1,in=4,scale=3/5,support=3");
    EXPECT_EQ(w.first, (std::vector<std::int64_t>{-1, 0, 2}));  // ceil(-5/3), ceil(0), ceil(5/3)
    EXPECT_EQ(w.exact_distance[0], Rational(5, 6));              // g_0 - (-1)
    EXPECT_EQ(w.exact_distance[3], Rational(3, 2));              // g_1 - 0: exactly on the left edge, included
    EXPECT_EQ(w.exact_distance[5], Rational(-1, 2));             // g_1 - 2; g_1 - 3 = -3/2 is excluded
}

TEST(Neighbours, OutsideTheInputReadsZero) {
    // in = 2x2 with values 1..4, s = 1, support 3: the window of (0,0) is rows/cols -1..1
    const CcDescriptor d = parse_cc_descriptor("cin=1,cout=1,in=2,scale=1,support=3");
    const Neighbours nb = extract_neighbours(d, projected_grid(d), std::vector<double>{1, 2, 3, 4});
    const std::int64_t OH = 2, OW = 2;
    std::vector<double> at00;
    std::vector<int> inside00;
    for (std::int64_t k = 0; k < 9; ++k) {
        at00.push_back(nb.values[(k * OH + 0) * OW + 0]);
        inside00.push_back(nb.inside[(k * OH + 0) * OW + 0]);
    }
    EXPECT_EQ(at00, (std::vector<double>{0, 0, 0, 0, 1, 2, 0, 3, 4}));
    EXPECT_EQ(inside00, (std::vector<int>{0, 0, 0, 0, 1, 1, 0, 1, 1}));
}

TEST(Neighbours, TensorLayoutIsNOneCinKHW) {
    // N = 2, Cin = 3: values[n][0][c][k][oh][ow] = src[n][c][m_h][m_w]
    const CcDescriptor d = parse_cc_descriptor("n=2,cin=3,cout=1,in=3x4,scale=1,support=1");
    std::vector<double> src(2 * 3 * 3 * 4);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i);
    const Neighbours nb = extract_neighbours(d, projected_grid(d), src);
    EXPECT_EQ(nb.values, src);  // support 1 at scale 1: each output's only neighbour is its own pixel
    EXPECT_EQ(nb.distances, std::vector<double>(2 * 3 * 4, 0.0));
}

RC_GTEST_PROP(Neighbours, WindowHoldsExactlyTheIntegersOfTheSupport, ()) {
    const CcDescriptor d = *convcheck::cctest::small_cc_descriptor(false);
    RC_LOG() << to_string(d);
    for (int a = 0; a < 2; ++a) {
        const GridAxis g = projected_grid_axis(d, a);
        const AxisWindow w = neighbour_window(g, d.support[a]);
        const Rational half(d.support[a], 2);
        for (std::int64_t n = 0; n < d.output_size[a]; ++n) {
            // m_0 - 1 is left of the window, m_0 + k - 1 is in it, m_0 + k is out
            RC_ASSERT(Rational(w.first[n]) >= g.exact_points[n] - half);
            RC_ASSERT(Rational(w.first[n] - 1) < g.exact_points[n] - half);
            RC_ASSERT(Rational(w.first[n] + d.support[a]) >= g.exact_points[n] + half);
        }
    }
}

RC_GTEST_PROP(Neighbours, RealScaleWindowsAgreeWithExactOnes, ()) {
    // a real scale p/q (in double) picks the same neighbours as the exact p/q; the tolerance of
    // cc_ceil makes this hold also where the exact grid point lies ON a window edge
    const std::int64_t p = *rc::gen::inRange<std::int64_t>(1, 30), q = *rc::gen::inRange<std::int64_t>(1, 30);
    CcDescriptor exact;
    exact.input_size = {*rc::gen::inRange<std::int64_t>(1, 50), 1};
    exact.support = {*rc::gen::inRange<std::int64_t>(1, 7), 1};
    exact.scale[0] = CcScale::exact(Rational(p, q));
    exact.output_size[0] = cc_default_output_size(exact.scale[0], exact.input_size[0]);
    CcDescriptor real = exact;
    real.scale[0] = CcScale::real(static_cast<double>(p) / static_cast<double>(q));
    RC_LOG() << to_string(exact) << " vs " << to_string(real);
    const AxisWindow we = neighbour_window(projected_grid_axis(exact, 0), exact.support[0]);
    const AxisWindow wr = neighbour_window(projected_grid_axis(real, 0), real.support[0]);
    RC_ASSERT(we.first == wr.first);
    for (std::size_t i = 0; i < we.distance.size(); ++i) RC_ASSERT(std::fabs(we.distance[i] - wr.distance[i]) <= 1e-12);
}

TEST(Neighbours, PlainCeilWithoutToleranceWouldPickAnotherWindow) {
    // why the tolerance exists: where the exact g - k/2 is an integer, the double grid point can
    // land just above it, and a plain ceil would then step one pixel right. Such cases exist among
    // small scales p/q (found > 0), and cc_ceil picks the exact window in every one of them.
    int found = 0;
    for (std::int64_t p = 1; p < 30; ++p)
        for (std::int64_t q = 1; q < 30; ++q)
            for (std::int64_t in = 1; in < 30; ++in) {
                CcDescriptor e;
                e.input_size = {in, 1};
                e.support = {2, 1};
                e.scale[0] = CcScale::exact(Rational(p, q));
                e.output_size[0] = cc_default_output_size(e.scale[0], in);
                CcDescriptor r = e;
                r.scale[0] = CcScale::real(static_cast<double>(p) / static_cast<double>(q));
                const GridAxis ge = projected_grid_axis(e, 0), gr = projected_grid_axis(r, 0);
                for (std::size_t n = 0; n < ge.points.size(); ++n) {
                    const std::int64_t exact_first = (ge.exact_points[n] - Rational(1)).ceil();
                    if (static_cast<std::int64_t>(std::ceil(gr.points[n] - 1.0)) != exact_first) ++found;
                    EXPECT_EQ(cc_ceil(gr.points[n] - 1.0), exact_first) << to_string(r) << " n=" << n;
                }
            }
    EXPECT_GT(found, 0) << "no case where plain ceil on the double grid differs from the exact window";
}

TEST(Neighbours, WindowEdgeMargin) {
    // s = 1/2, support 2: g - 1 = -0.5, 1.5, ...: half a pixel from every edge
    EXPECT_EQ(window_edge_margin(parse_cc_descriptor("cin=1,cout=1,in=8,scale=1/2,support=2")), 0.5);
    // s = 1/3, support 2: g - 1 = 0, 3, 6: exactly on an edge
    EXPECT_EQ(window_edge_margin(parse_cc_descriptor("cin=1,cout=1,in=9,scale=1/3,support=2")), 0.0);
    // Fig. 4, s = 3/5 on in = 4, support 3x3: g - 3/2 = -5/3, 0, 5/3 -> on an edge (g_1)
    EXPECT_EQ(window_edge_margin(parse_cc_descriptor("cin=1,cout=1,in=4x1,scale=3/5x1,support=3")), 0.0);
    // support 2 on the same axis (w: in 1, s 1, support 1, g - 1/2 = -1/2): g - 1 = -7/6, 1/2, 13/6 -> 1/6
    EXPECT_NEAR(window_edge_margin(parse_cc_descriptor("cin=1,cout=1,in=4x1,scale=3/5x1,support=2x1")), 1.0 / 6, 1e-15);
    // a real scale near 1/2: the margin shrinks with the distance of the grid from the edges
    const double m = window_edge_margin(parse_cc_descriptor("cin=1,cout=1,in=8,scale=0.5000001,out=4,support=2"));
    EXPECT_GT(m, 0.49);
    EXPECT_LT(m, 0.5);
}
