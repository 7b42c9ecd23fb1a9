#include "convcheck/reference/post_ops.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace convcheck::reference {

double eltwise(const PostOp& op, double x) {
    const double alpha = op.alpha, beta = op.beta;
    switch (op.eltwise) {
        case EltwiseAlgorithm::relu: return x > 0 ? x : alpha * x;
        case EltwiseAlgorithm::clip: return std::min(beta, std::max(alpha, x));
        case EltwiseAlgorithm::linear: return alpha * x + beta;
        case EltwiseAlgorithm::round: return std::nearbyint(x);  // the default mode: to nearest, ties to even
        case EltwiseAlgorithm::tanh: return std::tanh(x);
        case EltwiseAlgorithm::logistic: return 1.0 / (1.0 + std::exp(-x));
        case EltwiseAlgorithm::swish: return x / (1.0 + std::exp(-alpha * x));
        case EltwiseAlgorithm::hardswish: return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
        case EltwiseAlgorithm::gelu_tanh: {
            const double k = std::sqrt(2.0 / std::numbers::pi);
            return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
        }
        case EltwiseAlgorithm::gelu_erf: return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
        case EltwiseAlgorithm::elu: return x > 0 ? x : alpha * (std::exp(x) - 1.0);
        case EltwiseAlgorithm::exp: return std::exp(x);
        case EltwiseAlgorithm::square: return x * x;
        case EltwiseAlgorithm::abs: return std::fabs(x);
        case EltwiseAlgorithm::sqrt: return std::sqrt(x);
    }
    return x;
}

double binary(BinaryAlgorithm a, double x, double y) {
    switch (a) {
        case BinaryAlgorithm::add: return x + y;
        case BinaryAlgorithm::mul: return x * y;
        case BinaryAlgorithm::max: return std::max(x, y);
        case BinaryAlgorithm::min: return std::min(x, y);
        case BinaryAlgorithm::sub: return x - y;
        case BinaryAlgorithm::div: return x / y;
    }
    return x;
}

namespace {
std::int64_t spatial_elements(const ConvDescriptor& d) {
    std::int64_t s = 1;
    for (int a = 0; a < d.rank; ++a) s *= d.output_size(a);
    return s;
}
}  // namespace

std::int64_t operand_offset(const ConvDescriptor& d, const PostOp& op, std::int64_t ncx) {
    const std::int64_t spatial = spatial_elements(d);
    const std::int64_t channel = (ncx / spatial) % d.out_channels;  // the output channel, not its group's
    switch (op.broadcast) {
        case OperandBroadcast::per_tensor: return 0;
        case OperandBroadcast::per_oc: return channel;
        case OperandBroadcast::full:
            if (d.data_format == DataFormat::ncx) return ncx;
            return ((ncx / (spatial * d.out_channels)) * spatial + ncx % spatial) * d.out_channels + channel;
    }
    return 0;
}

double operand_at(const ConvDescriptor& d, const PostOp& op, std::span<const double> operand, std::int64_t ncx) {
    const std::int64_t spatial = spatial_elements(d);
    switch (op.broadcast) {
        case OperandBroadcast::per_tensor: return operand[0];
        case OperandBroadcast::per_oc: return operand[static_cast<std::size_t>((ncx / spatial) % d.out_channels)];
        case OperandBroadcast::full: return operand[static_cast<std::size_t>(ncx)];
    }
    return 0.0;
}

double apply_post_ops(const ConvDescriptor& d, const PostOpData& data, std::int64_t ncx, double x,
                      std::vector<double>* steps) {
    if (steps) steps->clear();
    for (std::size_t k = 0; k < d.post_ops.size(); ++k) {
        const PostOp& op = d.post_ops[k];
        switch (op.kind) {
            case PostOpKind::eltwise: x = eltwise(op, x); break;
            case PostOpKind::sum:
                x = x + double(op.scale) * (data.prior_dst[static_cast<std::size_t>(ncx)] - double(op.zero_point));
                break;
            case PostOpKind::binary: x = binary(op.binary, x, operand_at(d, op, data.operands[k], ncx)); break;
        }
        if (steps) steps->push_back(x);
    }
    return x;
}

void apply_post_ops(const ConvDescriptor& d, const PostOpData& data, std::span<double> dst_ncx) {
    if (d.post_ops.empty()) return;
    for (std::size_t i = 0; i < dst_ncx.size(); ++i)
        dst_ncx[i] = apply_post_ops(d, data, static_cast<std::int64_t>(i), dst_ncx[i]);
}

std::vector<double> operand_to_canonical(const ConvDescriptor& d, const PostOp& op, const float* buffer) {
    const std::int64_t n = operand_elements(d, op);
    std::vector<double> out(static_cast<std::size_t>(n));
    if (op.broadcast != OperandBroadcast::full) {
        for (std::int64_t i = 0; i < n; ++i) out[i] = buffer[i];
        return out;
    }
    for (std::int64_t i = 0; i < n; ++i) out[i] = buffer[operand_offset(d, op, i)];
    return out;
}

void canonical_to_operand(const ConvDescriptor& d, const PostOp& op, std::span<const double> operand, float* buffer) {
    const std::int64_t n = operand_elements(d, op);
    for (std::int64_t i = 0; i < n; ++i)
        buffer[op.broadcast == OperandBroadcast::full ? operand_offset(d, op, i) : i] = static_cast<float>(operand[i]);
}

}  // namespace convcheck::reference
