#include "convcheck/reference/cc/internal_net.hpp"

#include <cmath>
#include <numbers>
#include <random>

namespace convcheck::reference::cc {

namespace {

double leaky_relu(double x, double slope) { return x >= 0.0 ? x : slope * x; }

// y = A x + b for A [rows][cols] row-major.
void affine(const std::vector<double>& A, const std::vector<double>& b, std::span<const double> x, std::span<double> y) {
    const std::size_t rows = b.size(), cols = x.size();
    for (std::size_t r = 0; r < rows; ++r) {
        double sum = b[r];
        for (std::size_t c = 0; c < cols; ++c) sum += A[r * cols + c] * x[c];
        y[r] = sum;
    }
}

}  // namespace

void InternalNet::evaluate(double dy, double dx, std::span<double> out) const {
    const double input[2] = {dy, dx};  // the distance pair, channel 0 vertical, channel 1 horizontal
    std::vector<double> a1(static_cast<std::size_t>(h1)), a2(static_cast<std::size_t>(h2));
    affine(W1, b1, input, a1);  // Conv h1 1x1
    for (double& v : a1) v = leaky_relu(v, leaky_relu_slope);
    affine(W2, b2, a1, a2);     // Conv h2 1x1
    for (double& v : a2) v = leaky_relu(v, leaky_relu_slope);
    affine(W3, b3, a2, out);    // Conv Cin*Cout 1x1, no activation after the last layer
}

std::vector<double> InternalNet::theta() const {
    std::vector<double> t;
    for (const auto* part : {&W1, &b1, &W2, &b2, &W3, &b3}) t.insert(t.end(), part->begin(), part->end());
    return t;
}

namespace {

InternalNet shaped(const CcDescriptor& d) {
    if (d.kernel != CcKernel::internal_net)
        throw ConvError("kernel", std::string(to_string(d.kernel)), "an Internal-Net needs kernel=net");
    InternalNet net;
    net.in_channels = d.in_channels;
    net.out_channels = d.out_channels;
    net.h1 = d.hidden_widths[0];
    net.h2 = d.hidden_widths[1];
    net.leaky_relu_slope = d.leaky_relu_slope;
    const std::int64_t c = d.in_channels * d.out_channels;
    net.W1.resize(net.h1 * 2);
    net.b1.resize(net.h1);
    net.W2.resize(net.h2 * net.h1);
    net.b2.resize(net.h2);
    net.W3.resize(c * net.h2);
    net.b3.resize(c);
    return net;
}

}  // namespace

InternalNet internal_net_from_theta(const CcDescriptor& d, std::span<const double> theta) {
    InternalNet net = shaped(d);
    if (static_cast<std::int64_t>(theta.size()) != d.theta_elements())
        throw ConvError("theta", std::to_string(theta.size()) + " values",
                        "must hold " + std::to_string(d.theta_elements()) +
                            " values: W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout]");
    std::size_t at = 0;
    for (auto* part : {&net.W1, &net.b1, &net.W2, &net.b2, &net.W3, &net.b3})
        for (double& v : *part) v = theta[at++];
    return net;
}

InternalNet initialise_internal_net(const CcDescriptor& d, std::uint64_t seed) {
    InternalNet net = shaped(d);
    std::mt19937_64 engine(seed);
    auto unit = [&] { return static_cast<double>(engine() >> 11) * 0x1.0p-53; };  // [0, 1)
    auto uniform = [&](std::vector<double>& v, double bound) {
        for (double& x : v) x = -bound + 2.0 * bound * unit();
    };
    uniform(net.W1, 1.0 / std::sqrt(2.0));
    uniform(net.b1, 1.0 / std::sqrt(2.0));
    uniform(net.W2, 1.0 / std::sqrt(static_cast<double>(net.h1)));
    uniform(net.b2, 1.0 / std::sqrt(static_cast<double>(net.h1)));
    uniform(net.W3, 1.0 / std::sqrt(static_cast<double>(net.h2)));
    // b3 ~ Normal(0, 1/(3 fan_in)), fan_in = Cin * k_h * k_w of the CC layer
    const double fan_in = static_cast<double>(d.in_channels * d.support[0] * d.support[1]);
    const double sigma = std::sqrt(1.0 / (3.0 * fan_in));
    for (double& x : net.b3) {
        const double u1 = 1.0 - unit(), u2 = unit();  // u1 in (0, 1]
        x = sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }
    return net;
}

}  // namespace convcheck::reference::cc
