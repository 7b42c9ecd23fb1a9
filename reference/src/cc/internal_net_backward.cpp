// The chain rule through the Internal-Net K_theta for one distance pair (header).
#include "convcheck/reference/cc/internal_net_backward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::reference::cc {

namespace {

constexpr double kDoubleRoundoff = 0x1.0p-53;
constexpr double kDoubleUnderflow = 0x1.0p-1074;  // the smallest subnormal double: a product's absolute error

// y = A x + b and its magnitude |A| x_abs + |b|, for A [rows][cols] row-major (the forward's order:
// the bias first, then the products in column order, as InternalNet::evaluate).
void affine(const std::vector<double>& A, const std::vector<double>& b, std::span<const double> x,
            std::span<const double> x_abs, std::vector<double>& y, std::vector<double>& y_abs) {
    const std::size_t rows = b.size(), cols = x.size();
    y.assign(rows, 0.0);
    y_abs.assign(rows, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        double sum = b[r], magnitude = std::fabs(b[r]);
        for (std::size_t c = 0; c < cols; ++c) {
            sum += A[r * cols + c] * x[c];
            magnitude += std::fabs(A[r * cols + c]) * x_abs[c];
        }
        y[r] = sum;
        y_abs[r] = magnitude;
    }
}

// a = LeakyReLU(z) as the forward computes it (z >= 0 ? z : slope z); |a|'s magnitude |LeakyReLU'(z)| z_abs.
void activate(const std::vector<double>& z, const std::vector<double>& z_abs, double slope, std::vector<double>& a,
              std::vector<double>& a_abs) {
    a.resize(z.size());
    a_abs.resize(z.size());
    for (std::size_t i = 0; i < z.size(); ++i) {
        a[i] = z[i] >= 0.0 ? z[i] : slope * z[i];
        a_abs[i] = std::fabs(leaky_relu_derivative(z[i], slope)) * z_abs[i];
    }
}

// The reverse of one 1x1 convolution y = A x + b (A [rows][cols] at theta offset oA, b at ob) for the
// upstream gradient dy: dA += dy x^T, db += dy, and, when asked, dx = A^T dy; with magnitudes.
void affine_backward(const std::vector<double>& A, std::span<const double> dy, std::span<const double> dy_abs,
                     std::span<const double> x, std::span<const double> x_abs, std::size_t oA, std::size_t ob,
                     std::span<double> diff_theta, std::span<double> magnitude, std::vector<double>* dx,
                     std::vector<double>* dx_abs) {
    const std::size_t rows = dy.size(), cols = x.size();
    if (dx) {
        dx->assign(cols, 0.0);
        dx_abs->assign(cols, 0.0);
    }
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            diff_theta[oA + r * cols + c] += dy[r] * x[c];
            magnitude[oA + r * cols + c] += dy_abs[r] * x_abs[c];
            if (dx) {
                (*dx)[c] += A[r * cols + c] * dy[r];
                (*dx_abs)[c] += std::fabs(A[r * cols + c]) * dy_abs[r];
            }
        }
        diff_theta[ob + r] += dy[r];
        magnitude[ob + r] += dy_abs[r];
    }
}

// a = LeakyReLU(z) in reverse, in place: dz = LeakyReLU'(z) da (and |LeakyReLU'(z)| for the magnitude).
void leaky_relu_backward(const std::vector<double>& z, double slope, std::vector<double>& d, std::vector<double>& d_abs) {
    for (std::size_t i = 0; i < z.size(); ++i) {
        const double derivative = leaky_relu_derivative(z[i], slope);
        d[i] *= derivative;
        d_abs[i] *= std::fabs(derivative);
    }
}

}  // namespace

double leaky_relu_derivative(double z, double slope) { return z > 0.0 ? 1.0 : slope; }

InternalNetTrace trace_internal_net(const InternalNet& net, double dy, double dx) {
    InternalNetTrace t;
    t.input[0] = dy;  // channel 0 vertical, channel 1 horizontal, as the forward
    t.input[1] = dx;
    const double input_abs[2] = {std::fabs(dy), std::fabs(dx)};
    affine(net.W1, net.b1, t.input, input_abs, t.z1, t.z1_abs);  // Conv h1 1x1
    activate(t.z1, t.z1_abs, net.leaky_relu_slope, t.a1, t.a1_abs);
    affine(net.W2, net.b2, t.a1, t.a1_abs, t.z2, t.z2_abs);      // Conv h2 1x1
    activate(t.z2, t.z2_abs, net.leaky_relu_slope, t.a2, t.a2_abs);
    return t;
}

std::int64_t internal_net_forward_roundings(const InternalNet& net) {
    // z1: a product and two additions (3); a1: the slope product (4); z2: a product and h1 additions
    // (h1 + 5); a2 (h1 + 6); w: a product and h2 additions (h1 + h2 + 7); one spare.
    return net.h1 + net.h2 + 8;
}

std::int64_t internal_net_backward_roundings(const InternalNet& net) {
    // From g: W3^T g, a product and C = Cin*Cout additions, then LeakyReLU' (C + 2); dW2 = dz2 a1 (C + 3);
    // W2^T dz2 and LeakyReLU' (C + h2 + 4); dW1 = dz1 D (C + h2 + 5). From the forward's a2 (h1 + 6):
    // dW3 = g a2 (h1 + 7). Their sum bounds both paths; one spare.
    return net.in_channels * net.out_channels + net.h1 + net.h2 + 8;
}

void backward_internal_net(const InternalNet& net, const InternalNetTrace& t, std::span<const double> g,
                           std::span<const double> g_abs, std::span<double> diff_theta, std::span<double> magnitude) {
    const std::size_t h1 = static_cast<std::size_t>(net.h1), h2 = static_cast<std::size_t>(net.h2);
    const std::size_t C = static_cast<std::size_t>(net.in_channels * net.out_channels);
    const double slope = net.leaky_relu_slope;
    // offsets of W1, b1, W2, b2, W3, b3 in the theta order
    const std::size_t oW1 = 0, ob1 = oW1 + 2 * h1, oW2 = ob1 + h1, ob2 = oW2 + h2 * h1, oW3 = ob2 + h2, ob3 = oW3 + C * h2;

    // Layer 3, w = W3 a2 + b3 (no activation): dW3 = g a2^T, db3 = g, da2 = W3^T g.
    std::vector<double> dz2, dz2_abs, dz1, dz1_abs;
    affine_backward(net.W3, g, g_abs, t.a2, t.a2_abs, oW3, ob3, diff_theta, magnitude, &dz2, &dz2_abs);
    leaky_relu_backward(t.z2, slope, dz2, dz2_abs);  // a2 = LeakyReLU(z2): dz2 = LeakyReLU'(z2) da2
    // Layer 2, z2 = W2 a1 + b2: dW2 = dz2 a1^T, db2 = dz2, da1 = W2^T dz2.
    affine_backward(net.W2, dz2, dz2_abs, t.a1, t.a1_abs, oW2, ob2, diff_theta, magnitude, &dz1, &dz1_abs);
    leaky_relu_backward(t.z1, slope, dz1, dz1_abs);  // a1 = LeakyReLU(z1): dz1 = LeakyReLU'(z1) da1
    // Layer 1, z1 = W1 D + b1: dW1 = dz1 D^T, db1 = dz1 (D carries no gradient).
    const double input_abs[2] = {std::fabs(t.input[0]), std::fabs(t.input[1])};
    affine_backward(net.W1, dz1, dz1_abs, t.input, input_abs, oW1, ob1, diff_theta, magnitude, nullptr, nullptr);
}

double leaky_relu_margin(const InternalNet& net, const InternalNetTrace& t) {
    // |z1~ - z1| <= gamma_3 z1_abs + 2 eta (two products may underflow). Once every layer-1 branch is
    // decided, a1's magnitude is exact-pattern and |a1~ - a1| carries max(1, |slope|) of it plus the
    // slope product's eta; |z2~ - z2| <= gamma_{h1+5} z2_abs + sum |W2| e_a1 + h1 eta. Each bound is doubled,
    // which more than covers the rounding of its own computation.
    const double slope_bound = std::max(1.0, std::fabs(net.leaky_relu_slope));
    double margin = std::numeric_limits<double>::infinity();
    double carried = 0.0;  // the largest underflow error reaching an a1
    for (std::size_t i = 0; i < t.z1.size(); ++i) {
        const double e = 2.0 * (gamma(3, kDoubleRoundoff) * t.z1_abs[i] + 2.0 * kDoubleUnderflow);
        margin = std::min(margin, std::fabs(t.z1[i]) / e);
        carried = std::max(carried, slope_bound * 2.0 * kDoubleUnderflow + kDoubleUnderflow);
    }
    const std::size_t h1 = t.a1.size();
    for (std::size_t j = 0; j < t.z2.size(); ++j) {
        double w_abs = 0.0;
        for (std::size_t i = 0; i < h1; ++i) w_abs += std::fabs(net.W2[j * h1 + i]);
        const double e = 2.0 * (gamma(net.h1 + 5, kDoubleRoundoff) * t.z2_abs[j] + w_abs * carried + static_cast<double>(h1) * kDoubleUnderflow);
        margin = std::min(margin, std::fabs(t.z2[j]) / e);
    }
    return margin;
}

}  // namespace convcheck::reference::cc
