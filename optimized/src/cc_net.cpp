// The Internal-Net K_theta over many distances at once (seed 004, appendix A.1):
//   A1 = LeakyReLU(W1 D + b1),  A2 = LeakyReLU(W2 A1 + b2),  K = W3 A2 + b3
// with D [2 x count] the distance pairs: three GEMMs in double (Eigen). (Its reverse, the CC backward's
// polyphase method's, is cc_backward_reverse.inl.) Compiled with -mavx2 -mfma, like gemm.cpp; these two
// are the only units that instantiate Eigen.
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

}  // namespace convcheck::optimized::detail
