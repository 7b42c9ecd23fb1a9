// The Internal-Net K_theta over many distances at once (seed 004, appendix A.1):
//   A1 = LeakyReLU(W1 D + b1),  A2 = LeakyReLU(W2 A1 + b2),  K = W3 A2 + b3
// with D [2 x count] the distance pairs: three GEMMs in double (Eigen); and its reverse (the CC
// backward's polyphase method). Compiled with -mavx2 -mfma, like gemm.cpp; these two are the only
// units that instantiate Eigen.
#include <Eigen/Core>

#include "cc_kernel.hpp"

namespace convcheck::optimized::detail {

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;                     // column-major
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;  // theta's order

}  // namespace

void evaluate_internal_net(const CcKernelParams& p, const double* pairs, std::int64_t count, double* out) {
    const Eigen::Map<const RowMajor> W1(p.W1.data(), p.h1, 2), W2(p.W2.data(), p.h2, p.h1),
        W3(p.W3.data(), p.in_channels * p.out_channels, p.h2);
    const Eigen::Map<const Eigen::VectorXd> b1(p.b1.data(), p.h1), b2(p.b2.data(), p.h2),
        b3(p.b3.data(), p.in_channels * p.out_channels);
    const Eigen::Map<const Matrix> D(pairs, 2, count);
    const auto leaky = [s = p.slope](double v) { return v >= 0.0 ? v : s * v; };
    Matrix A1 = (W1 * D).colwise() + b1;
    A1 = A1.unaryExpr(leaky);
    Matrix A2 = (W2 * A1).colwise() + b2;
    A2 = A2.unaryExpr(leaky);
    Eigen::Map<Matrix> K(out, p.in_channels * p.out_channels, count);
    K.noalias() = W3 * A2;
    K.colwise() += b3;
}

void backward_internal_net(const CcKernelParams& p, const double* pairs, std::int64_t count, const double* g,
                           double* diff_theta) {
    const std::int64_t h1 = p.h1, h2 = p.h2, C = p.in_channels * p.out_channels;
    const Eigen::Map<const RowMajor> W1(p.W1.data(), h1, 2), W2(p.W2.data(), h2, h1), W3(p.W3.data(), C, h2);
    const Eigen::Map<const Eigen::VectorXd> b1(p.b1.data(), h1), b2(p.b2.data(), h2);
    const Eigen::Map<const Matrix> D(pairs, 2, count), G(g, C, count);
    const double slope = p.slope;
    const auto leaky = [slope](double v) { return v >= 0.0 ? v : slope * v; };
    const auto derivative = [slope](double z) { return z > 0.0 ? 1.0 : slope; };  // the reference's convention
    const Matrix Z1 = (W1 * D).colwise() + b1, A1 = Z1.unaryExpr(leaky);
    const Matrix Z2 = (W2 * A1).colwise() + b2, A2 = Z2.unaryExpr(leaky);
    double* at = diff_theta;
    const auto add = [&](const auto& m, Eigen::Index rows, Eigen::Index cols) {  // row-major, the ABI's order
        Eigen::Map<RowMajor>(at, rows, cols).noalias() += m;  // no temporary (one would page-fault per call)
        at += rows * cols;
    };
    const Matrix dZ2 = (W3.transpose() * G).cwiseProduct(Z2.unaryExpr(derivative));
    const Matrix dZ1 = (W2.transpose() * dZ2).cwiseProduct(Z1.unaryExpr(derivative));
    add(dZ1 * D.transpose(), h1, 2);
    add(dZ1.rowwise().sum(), h1, 1);
    add(dZ2 * A1.transpose(), h2, h1);
    add(dZ2.rowwise().sum(), h2, 1);
    add(G * A2.transpose(), C, h2);
    // db3: G's rows summed, pair by pair (G.rowwise().sum() walks G's rows across columns 8 KiB apart)
    for (std::int64_t pair = 0; pair < count; ++pair)
        for (std::int64_t c = 0; c < C; ++c) at[c] += g[pair * C + c];
}

}  // namespace convcheck::optimized::detail
