// Paper, Sec. 4 and Fig. 6: "We used a simple gaussian kernel, and applied it repeatedly to an input
// image (white cross), using either a sequence of standard conv-layers or a sequence of CC-layers,
// all with stride=1 or scale=1, respectively. We chose an even-sized 4x4 kernel. It can be seen that
// standard conv-layer shifts the result by half a pixel per iteration ... In contrast, CC-based
// convolutions remain centered."
//
// Measured here with the centroid of the image after each layer. The discrete conv keeps the size
// with pads 1 (begin) and 2 (end), PyTorch's 'same' split; its 4 taps sample the Gaussian at
// -1.5, -0.5, 0.5, 1.5. CC at scale 1 with support 4 uses the Gaussian at the true distances.
#include <gtest/gtest.h>

#include <cmath>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/convolution.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

constexpr std::int64_t kSize = 41, kCentre = 20;
constexpr double kSigma = 0.5;
constexpr int kLayers = 8;

std::vector<double> white_cross() {
    std::vector<double> image(kSize * kSize, 0.0);
    for (std::int64_t t = -3; t <= 3; ++t) {
        image[(kCentre + t) * kSize + kCentre] = 1.0;
        image[kCentre * kSize + kCentre + t] = 1.0;
    }
    return image;
}

std::array<double, 2> centroid(const std::vector<double>& image) {
    double total = 0, h = 0, w = 0;
    for (std::int64_t i = 0; i < kSize; ++i)
        for (std::int64_t j = 0; j < kSize; ++j) {
            const double v = image[i * kSize + j];
            total += v;
            h += v * static_cast<double>(i);
            w += v * static_cast<double>(j);
        }
    return {h / total, w / total};
}

double gaussian(double t) { return std::exp(-t * t / (2 * kSigma * kSigma)); }

}  // namespace

TEST(Misalignment, EvenKernelDriftsHalfAPixelPerLayerAsConvButNotAsCC) {
    const ConvDescriptor conv = parse_descriptor("c=1,o=1,in=41x41,k=4x4,s=1,pb=1x1,pe=2x2");
    ASSERT_EQ(conv.output_size(0), kSize);
    std::vector<double> taps(16);
    for (int jh = 0; jh < 4; ++jh)
        for (int jw = 0; jw < 4; ++jw) taps[jh * 4 + jw] = gaussian(jh - 1.5) * gaussian(jw - 1.5);

    const CcDescriptor cc = parse_cc_descriptor("cin=1,cout=1,in=41x41,scale=1,support=4,kernel=gaussian,sigma=0.5");
    ASSERT_EQ(cc.output_size, (std::array<std::int64_t, 2>{kSize, kSize}));
    const ContinuousKernel kernel(CcKernel::gaussian, kSigma, 1, 1);

    // CC's window at scale 1 holds m = n-2 .. n+1 (distances 2, 1, 0, -1): the only asymmetry is the
    // tap at distance 2, which moves the centroid by 2 G(2) / (G(-1) + G(0) + G(1) + G(2)) per layer.
    const double cc_step = 2 * gaussian(2) / (gaussian(-1) + gaussian(0) + gaussian(1) + gaussian(2));

    std::vector<double> by_conv = white_cross(), by_cc = white_cross();
    const auto start = centroid(by_conv);
    ASSERT_EQ(start[0], kCentre);
    for (int layer = 1; layer <= kLayers; ++layer) {
        by_conv = reference::convolution_summation(conv, by_conv, taps, {}).dst;
        by_cc = cc_four_blocks(cc, by_cc, kernel, {}).dst;
        const auto c_conv = centroid(by_conv), c_cc = centroid(by_cc);
        for (int a = 0; a < 2; ++a) {
            const double conv_drift = c_conv[a] - kCentre, cc_drift = c_cc[a] - kCentre;
            // discrete: exactly half a pixel per layer (towards the begin, as the extra pad is at the end)
            EXPECT_NEAR(conv_drift, -0.5 * layer, 1e-9) << "layer " << layer << " axis " << a;
            // CC: centred, up to the truncation of the Gaussian at the window edge
            EXPECT_NEAR(cc_drift, cc_step * layer, 1e-9) << "layer " << layer << " axis " << a;
            EXPECT_LT(std::fabs(cc_drift), 0.001 * layer) << "layer " << layer << " axis " << a;
        }
    }
    RecordProperty("conv_drift_after_8_layers", std::to_string(centroid(by_conv)[0] - kCentre));
    RecordProperty("cc_drift_after_8_layers", std::to_string(centroid(by_cc)[0] - kCentre));
}
