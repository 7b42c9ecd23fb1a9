// With an analytic kernel and an exact scale with s * in an integer, the interior of the CC output
// equals the classic resizers with half-pixel centres (align_corners = false):
//   src = (dst + 1/2) / s - 1/2                 (Sec. 3.1: "g_n = n/s + 1/2 (1/s - 1)")
//   bilinear:  (1 - l) I[x0] + l I[x0 + 1],                   x0 = floor(src), l = src - x0
//   bicubic:   sum_{i=-1..2} k_Keys(src - (x0 + i)) I[x0 + i], a = -0.5 (MATLAB imresize upscaling)
// The interior is where every tap lies inside the input; at the border the resizers clamp while
// CC reads zeros. The resizers below are written from the textbook formula, not from the CC code.
#include <gtest/gtest.h>

#include <cmath>

#include "convcheck/reference_tests/cc_fixtures.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

double keys(double t) {
    const double a = -0.5, x = std::fabs(t);
    if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
    if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0;
}

struct Taps {
    std::int64_t first;          // the first input index read
    std::vector<double> weight;  // one per consecutive input index
};

Taps bilinear_taps(double src) {
    const double x0 = std::floor(src), l = src - x0;
    return {static_cast<std::int64_t>(x0), {1 - l, l}};
}

Taps bicubic_taps(double src) {
    const double x0 = std::floor(src);
    Taps t{static_cast<std::int64_t>(x0) - 1, {}};
    for (int i = -1; i <= 2; ++i) t.weight.push_back(keys(src - (x0 + i)));
    return t;
}

// Compares CC with the resizer on every interior output; returns how many were compared.
int compare_interior(const std::string& text, Taps (*taps_of)(double), std::uint64_t seed) {
    const CcDescriptor d = parse_cc_descriptor(text);
    const std::string repro = cctest::reproducer(d, seed);
    const auto image = cctest::uniform(d.src_elements(), seed);
    const ConvResult cc = cc_four_blocks(d, image, cctest::kernel_for(d, 0), {});
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    int compared = 0;
    for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow) {
            const double sh = d.scale[0].value, sw = d.scale[1].value;
            const Taps th = taps_of((static_cast<double>(oh) + 0.5) / sh - 0.5);
            const Taps tw = taps_of((static_cast<double>(ow) + 0.5) / sw - 0.5);
            const std::int64_t nh = static_cast<std::int64_t>(th.weight.size()), nw = static_cast<std::int64_t>(tw.weight.size());
            if (th.first < 0 || th.first + nh > H || tw.first < 0 || tw.first + nw > W) continue;  // border
            double expected = 0;
            for (std::int64_t i = 0; i < nh; ++i)
                for (std::int64_t j = 0; j < nw; ++j)
                    expected += th.weight[i] * tw.weight[j] * image[(th.first + i) * W + tw.first + j];
            EXPECT_NEAR(cc.dst[oh * OW + ow], expected, 1e-13) << "output (" << oh << ", " << ow << "); " << repro;
            ++compared;
        }
    return compared;
}

}  // namespace

TEST(Resize, LinearKernelIsBilinearInTheInterior) {
    EXPECT_GT(compare_interior("cin=1,cout=1,in=6x5,scale=3/2x2,kernel=linear", bilinear_taps, 1), 40);   // up
    EXPECT_GT(compare_interior("cin=1,cout=1,in=9x12,scale=2/3x3/4,kernel=linear", bilinear_taps, 2), 20);  // down
    EXPECT_GT(compare_interior("cin=1,cout=1,in=7x10,scale=3x7/5,kernel=linear", bilinear_taps, 3), 100);
    EXPECT_GT(compare_interior("cin=1,cout=1,in=8,scale=1,kernel=linear", bilinear_taps, 4), 40);         // identity
}

TEST(Resize, KeysCubicKernelIsBicubicInTheInterior) {
    EXPECT_GT(compare_interior("cin=1,cout=1,in=8x6,scale=2x5/3,kernel=cubic", bicubic_taps, 5), 40);
    EXPECT_GT(compare_interior("cin=1,cout=1,in=9,scale=7/3,kernel=cubic", bicubic_taps, 6), 200);
}

TEST(Resize, LinearKernelReproducesAffineImagesEverywhereInside) {
    // a second, resizer-free check: bilinear interpolation is exact on affine images, so CC with
    // the triangle kernel returns a + b*g_h + c*g_w at every interior grid point
    const CcDescriptor d = parse_cc_descriptor("cin=1,cout=1,in=10x9,scale=5/4x2/3,kernel=linear");
    std::vector<double> image(90);
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 9; ++j) image[i * 9 + j] = 0.5 + 2.0 * i - 3.0 * j;
    const ConvResult cc = cc_four_blocks(d, image, cctest::kernel_for(d, 0), {});
    const ProjectedGrid g = projected_grid(d);
    for (std::int64_t oh = 0; oh < d.output_size[0]; ++oh)
        for (std::int64_t ow = 0; ow < d.output_size[1]; ++ow) {
            const double gh = g.axes[0].points[oh], gw = g.axes[1].points[ow];
            if (gh < 0 || gh > 9 || gw < 0 || gw > 8) continue;
            EXPECT_NEAR(cc.dst[oh * d.output_size[1] + ow], 0.5 + 2.0 * gh - 3.0 * gw, 1e-12) << oh << "," << ow;
        }
}
