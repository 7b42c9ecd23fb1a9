// The CC backward by hand: the Internal-Net's chain rule on the net of InternalNet.ComputesTheLayersByHand,
// LeakyReLU'(0) = slope at the kinks (PyTorch's choice) with an undecided margin there, and a layer
// that is the identity (linear kernel, scale 1) whose input gradient is diff_dst itself, and the ABI buffers entry.
#include <gtest/gtest.h>

#include <functional>

#include "convcheck/reference_tests/backward_fixtures.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

// Cin = 1, Cout = 2, h1 = 2, h2 = 1, slope 0.1; theta: W1[2][2], b1[2], W2[1][2], b2[1], W3[2][1], b3[2]
const CcDescriptor kNet = parse_cc_descriptor("cin=1,cout=2,in=4,hidden=2x1,slope=0.1");
const std::vector<double> kTheta{1, 0, 0, -1, 0, 0.5, 2, 3, -1, 4, -2, 0.25, 1};

std::vector<double> backward_at(double dy, double dx, const std::vector<double>& g, double* margin) {
    const InternalNet net = internal_net_from_theta(kNet, kTheta);
    const InternalNetTrace t = trace_internal_net(net, dy, dx);
    std::vector<double> diff(kTheta.size(), 0.0), magnitude(kTheta.size(), 0.0);
    const std::vector<double> g_abs{std::fabs(g[0]), std::fabs(g[1])};
    backward_internal_net(net, t, g, g_abs, diff, magnitude);
    *margin = leaky_relu_margin(net, t);
    for (std::size_t i = 0; i < diff.size(); ++i) EXPECT_GE(magnitude[i], std::fabs(diff[i])) << i;
    return diff;
}

void expect_theta(const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << "diff_theta[" << i << "]";
}

}  // namespace

TEST(CcBackwardByHand, InternalNetChainRule) {
    // D = (0.5, 1): z1 = (0.5, -0.5), a1 = (0.5, -0.05); z2 = 1 - 0.15 - 1 = -0.15, a2 = -0.015.
    // g = dL/dw = (1, 0): dW3 = g a2 = (-0.015, 0), db3 = (1, 0); da2 = W3^T g = 4, dz2 = 0.1 * 4 = 0.4;
    // dW2 = dz2 a1 = (0.2, -0.02), db2 = 0.4; da1 = W2^T dz2 = (0.8, 1.2), dz1 = (0.8, 0.12);
    // dW1 = dz1 D^T = ((0.4, 0.8), (0.06, 0.12)), db1 = (0.8, 0.12).
    double margin = 0.0;
    expect_theta(backward_at(0.5, 1.0, {1.0, 0.0}, &margin),
                 {0.4, 0.8, 0.06, 0.12, 0.8, 0.12, 0.2, -0.02, 0.4, -0.015, 0.0, 1.0, 0.0});
    EXPECT_GT(margin, 1.0) << "no pre-activation is near 0 here";
    // g = (0, 1): dW3 = (0, -0.015), db3 = (0, 1); da2 = -2, dz2 = -0.2; dW2 = (-0.1, 0.01), db2 = -0.2;
    // da1 = (-0.4, -0.6), dz1 = (-0.4, -0.06); dW1 = ((-0.2, -0.4), (-0.03, -0.06)), db1 = (-0.4, -0.06).
    expect_theta(backward_at(0.5, 1.0, {0.0, 1.0}, &margin),
                 {-0.2, -0.4, -0.03, -0.06, -0.4, -0.06, -0.1, 0.01, -0.2, 0.0, -0.015, 0.0, 1.0});
}

TEST(CcBackwardByHand, KinksTakeTheSlopeAndAreUndecided) {
    // D = (0.5, 0.5): z1 = (0.5, 0) -- on the kink; a1 = (0.5, 0); z2 = 1 + 0 - 1 = 0 -- on the kink; a2 = 0.
    // LeakyReLU'(0) = slope = 0.1 (PyTorch): dz2 = 0.1 * 4 = 0.4, da1 = (0.8, 1.2), dz1 = (0.8, 0.1 * 1.2).
    double margin = 1.0;
    expect_theta(backward_at(0.5, 0.5, {1.0, 0.0}, &margin),
                 {0.4, 0.4, 0.06, 0.06, 0.8, 0.12, 0.2, 0.0, 0.4, 0.0, 0.0, 1.0, 0.0});
    EXPECT_LE(margin, 1.0) << "a pre-activation exactly on 0 is undecided";
    EXPECT_EQ(leaky_relu_derivative(0.0, 0.1), 0.1);
    EXPECT_EQ(leaky_relu_derivative(0x1.0p-1074, 0.1), 1.0);
}

TEST(CcBackwardByHand, IdentityLayerPassesTheGradientThrough) {
    // linear kernel, scale 1, support 2: g_n = n, neighbours n - 1 and n at D = 1 and 0, weights 0 and 1
    const CcDescriptor d = parse_cc_descriptor("n=2,cin=1,cout=1,in=3x4,scale=1,support=2,kernel=linear,bias=1");
    const std::vector<double> src = cctest::uniform(d.src_elements(), 1), dY = cctest::uniform(d.dst_elements(), 2);
    const CcBackward r = cc_backward(d, src, ContinuousKernel(CcKernel::linear, 0.0, 1, 1), dY);
    EXPECT_EQ(r.diff_src, dY);
    EXPECT_TRUE(r.diff_theta.empty());
    double sum = 0.0;
    for (double v : dY) sum += v;
    ASSERT_EQ(r.diff_bias.size(), 1u);
    EXPECT_DOUBLE_EQ(r.diff_bias[0], sum);
}

TEST(CcBackwardByHand, AbiBuffersWidenExactlyAndRefuseMissingOnes) {
    const CcDescriptor d = parse_cc_descriptor("n=2,cin=2,cout=3,in=5x6,scale=2/3x0.7071,kernel=net,hidden=4x3,bias=1");
    auto floats = [](std::int64_t count, std::uint64_t seed) {
        std::vector<float> v;
        for (double x : cctest::uniform(count, seed)) v.push_back(static_cast<float>(x));
        return v;
    };
    const std::vector<float> src = floats(d.src_elements(), 1), theta = floats(d.theta_elements(), 2),
                             dY = floats(d.dst_elements(), 3);
    const CcBackward from_buffers = cc_backward(d, src.data(), theta.data(), dY.data());
    const std::vector<double> src64(src.begin(), src.end()), theta64(theta.begin(), theta.end()), dY64(dY.begin(), dY.end());
    const CcBackward from_doubles = cc_backward(d, src64, ContinuousKernel::for_descriptor(d, theta64), dY64);
    EXPECT_EQ(from_buffers.diff_src, from_doubles.diff_src);
    EXPECT_EQ(from_buffers.diff_theta, from_doubles.diff_theta);
    EXPECT_EQ(from_buffers.diff_bias, from_doubles.diff_bias);
    for (const auto& [what, call] : std::vector<std::pair<std::string, std::function<void()>>>{
             {"src", [&] { cc_backward(d, nullptr, theta.data(), dY.data()); }},
             {"theta", [&] { cc_backward(d, src.data(), nullptr, dY.data()); }},
             {"diff_dst", [&] { cc_backward(d, src.data(), theta.data(), nullptr); }},
         }) {
        try {
            call();
            ADD_FAILURE() << "a NULL " << what << " was accepted";
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), what) << e.what();
        }
    }
    EXPECT_THROW(cc_backward(d, src64, ContinuousKernel::for_descriptor(d, theta64), std::vector<double>(3)), ConvError);
}
