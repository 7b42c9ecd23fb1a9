#include "convcheck/reference/post_ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace convcheck::reference {

// clip of a number: min(beta, max(alpha, x)) (oneDNN's dev_guide_eltwise); relu of a number: x > 0 ? x : alpha x
namespace {
double clip_number(double x, double alpha, double beta) { return std::min(beta, std::max(alpha, x)); }
}  // namespace

// IEEE 754-2019 §9.6: "minimum(x, y) is x if x < y, y if y < x, and a quiet NaN if either operand is a NaN"
// (maximum alike): clip = minimum(beta, maximum(alpha, x)) keeps the NaN.
double clip_propagate(double x, double alpha, double beta) { return std::isnan(x) ? x : clip_number(x, alpha, beta); }
// Intel SDM, MAXPS: "If only one value is a NaN (SNaN or QNaN) for this instruction, the second operand (source
// operand) ... is written to the result": MAXPS(x, alpha) is alpha, and MINPS(alpha, beta) alpha.
double clip_to_lower_bound(double x, double alpha, double beta) {
    return std::isnan(x) ? alpha : clip_number(x, alpha, beta);
}
// The same instructions the other way round: MINPS(x, beta) is beta, MAXPS(beta, alpha) beta.
double clip_to_upper_bound(double x, double alpha, double beta) {
    return std::isnan(x) ? beta : clip_number(x, alpha, beta);
}
// oneDNN: "relu: d = s if s > 0, alpha s otherwise": NaN > 0 is false (IEEE 754-2019 §5.11: unordered), and
// alpha NaN is NaN (§6.2: "every operation involving one or two input NaNs ... shall deliver a quiet NaN").
double relu_propagate(double x, double alpha) { return x > 0 ? x : alpha * x; }
// relu with alpha 0 as MAXPS(x, 0) (the clamp to [0, +inf] of XNNPACK, Arm NN's max(0, x)): the NaN becomes 0; a
// relu with a slope is the formula (measured so on oneDNN and Arm NN: their leaky relu keeps the NaN).
double relu_to_zero(double x, double alpha) { return std::isnan(x) && alpha == 0.0 ? 0.0 : relu_propagate(x, alpha); }
// relu with alpha 0 as MAXPS(x, 0) of a number x <= 0: the +0 it was handed, where the formula's 0 x is -0 for a
// negative x (IEEE 754-2019 §6.3); a relu with a slope is the formula.
double relu_plus_zero(double r, double alpha) { return alpha == 0.0 && r == 0.0 ? 0.0 : r; }
// IEEE 754-2019 §9.6 maximum / minimum: "a quiet NaN if either operand is a NaN".
double maximum(double x, double b) { return std::isnan(x) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::max(x, b); }
double minimum(double x, double b) { return std::isnan(x) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::min(x, b); }
// IEEE 754-2019 §9.6 maximumNumber / minimumNumber (C fmax / fmin): "if exactly one operand is a NaN, the result
// is the other operand".
double maximum_number(double x, double b) { return std::isnan(x) ? b : std::isnan(b) ? x : std::max(x, b); }
double minimum_number(double x, double b) { return std::isnan(x) ? b : std::isnan(b) ? x : std::min(x, b); }

double eltwise(const PostOp& op, double x, const PostOpNanPolicy& nan) {
    const double alpha = op.alpha, beta = op.beta;
    switch (op.eltwise) {
        case EltwiseAlgorithm::relu: {
            const double r = nan.relu == ReluNan::to_zero ? relu_to_zero(x, alpha) : relu_propagate(x, alpha);
            return nan.relu_zero == ReluZero::plus_zero ? relu_plus_zero(r, alpha) : r;
        }
        case EltwiseAlgorithm::clip:
            switch (nan.clip) {
                case ClipNan::propagate: return clip_propagate(x, alpha, beta);
                case ClipNan::to_lower_bound: return clip_to_lower_bound(x, alpha, beta);
                case ClipNan::to_upper_bound: return clip_to_upper_bound(x, alpha, beta);
            }
            return x;
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
        // soft_relu: d = (1 / alpha) log_e(1 + e^(alpha s)); log1p(exp(t)) is that log, and for t past exp's range
        // log(1 + e^t) = t + log1p(e^-t), which is t to double's precision
        case EltwiseAlgorithm::soft_relu: {
            const double t = alpha * x;
            return (t > 700.0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t))) / alpha;
        }
        case EltwiseAlgorithm::log: return std::log(x);  // d = log_e s (NaN for s < 0, -inf at 0)
        case EltwiseAlgorithm::hardsigmoid: return std::max(0.0, std::min(1.0, alpha * x + beta));
        case EltwiseAlgorithm::hardswish_ab: return x * std::max(0.0, std::min(1.0, alpha * x + beta));
        case EltwiseAlgorithm::mish: {  // d = s tanh(log_e(1 + e^s))
            const double softplus = x > 700.0 ? x : std::log1p(std::exp(x));
            return x * std::tanh(softplus);
        }
        case EltwiseAlgorithm::pow: return alpha * std::pow(x, beta);  // d = alpha s^beta
    }
    return x;
}

double prelu(double x, double weight) { return x > 0 ? x : x * weight; }

double binary(BinaryAlgorithm a, double x, double y, const PostOpNanPolicy& nan) {
    switch (a) {
        case BinaryAlgorithm::add: return x + y;
        case BinaryAlgorithm::mul: return x * y;
        case BinaryAlgorithm::max: return nan.max == MinMaxNan::number ? maximum_number(x, y) : maximum(x, y);
        case BinaryAlgorithm::min: return nan.min == MinMaxNan::number ? minimum_number(x, y) : minimum(x, y);
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
                      std::vector<double>* steps, const PostOpNanPolicy& nan) {
    if (steps) steps->clear();
    for (std::size_t k = 0; k < d.post_ops.size(); ++k) {
        const PostOp& op = d.post_ops[k];
        switch (op.kind) {
            case PostOpKind::eltwise: x = eltwise(op, x, nan); break;
            case PostOpKind::sum:
                x = x + double(op.scale) * (data.prior_dst[static_cast<std::size_t>(ncx)] - double(op.zero_point));
                break;
            case PostOpKind::binary: x = binary(op.binary, x, operand_at(d, op, data.operands[k], ncx), nan); break;
            case PostOpKind::prelu: x = prelu(x, operand_at(d, op, data.operands[k], ncx)); break;
        }
        if (steps) steps->push_back(x);
    }
    return x;
}

void apply_post_ops(const ConvDescriptor& d, const PostOpData& data, std::span<double> dst_ncx,
                    const PostOpNanPolicy& nan) {
    if (d.post_ops.empty()) return;
    for (std::size_t i = 0; i < dst_ncx.size(); ++i)
        dst_ncx[i] = apply_post_ops(d, data, static_cast<std::int64_t>(i), dst_ncx[i], nullptr, nan);
}

double load_operand(const void* buffer, OperandType t, std::int64_t i) {
    switch (t) {
        case OperandType::f32: return load_as_double(buffer, DataType::f32, i);
        case OperandType::f16: return load_as_double(buffer, DataType::f16, i);
        case OperandType::bf16: return load_as_double(buffer, DataType::bf16, i);
        case OperandType::u8: return static_cast<const std::uint8_t*>(buffer)[i];
        case OperandType::s8: return static_cast<const std::int8_t*>(buffer)[i];
        case OperandType::s32: return static_cast<const std::int32_t*>(buffer)[i];
    }
    return 0.0;
}

void store_operand(void* buffer, OperandType t, std::int64_t i, double v) {
    switch (t) {
        case OperandType::f32: store_from_double(buffer, DataType::f32, i, v); return;
        case OperandType::f16: store_from_double(buffer, DataType::f16, i, v); return;
        case OperandType::bf16: store_from_double(buffer, DataType::bf16, i, v); return;
        case OperandType::u8: static_cast<std::uint8_t*>(buffer)[i] = static_cast<std::uint8_t>(v); return;
        case OperandType::s8: static_cast<std::int8_t*>(buffer)[i] = static_cast<std::int8_t>(v); return;
        case OperandType::s32: static_cast<std::int32_t*>(buffer)[i] = static_cast<std::int32_t>(v); return;
    }
}

std::vector<double> operand_to_canonical(const ConvDescriptor& d, const PostOp& op, const void* buffer) {
    const std::int64_t n = operand_elements(d, op);
    std::vector<double> out(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        out[i] = load_operand(buffer, op.operand_type, op.broadcast == OperandBroadcast::full ? operand_offset(d, op, i) : i);
    return out;
}

void canonical_to_operand(const ConvDescriptor& d, const PostOp& op, std::span<const double> operand, void* buffer) {
    const std::int64_t n = operand_elements(d, op);
    for (std::int64_t i = 0; i < n; ++i)
        store_operand(buffer, op.operand_type, op.broadcast == OperandBroadcast::full ? operand_offset(d, op, i) : i,
                      operand[i]);
}

}  // namespace convcheck::reference
