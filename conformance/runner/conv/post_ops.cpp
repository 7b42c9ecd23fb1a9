// Discrete convolution's fused post-ops in the runner (docs/post-ops.md): whether a plugin claims a chain
// (ABI 1.6), the operands and the prior dst drawn from the case's seed, and the accuracy bound carried
// through the chain.
//
// The bound. The backend's accumulated value y^ is within E0 = error_bound(M, n) of the exact y* (the
// convolution's own contract, accuracy.hpp, before the rounding to dst). Each op k maps the exact value
// v(k-1) to v(k) = f(v(k-1)) and the backend's value within E(k-1) of it to within
//     E(k) = spread of f over [v(k-1) - E(k-1), v(k-1) + E(k-1)]  +  A(k)
// where the spread is the image's distance from f(v(k-1)) for a monotone f (relu with alpha >= 0, clip,
// linear, round, tanh, logistic, elu with alpha >= 0, exp, sqrt), and L * E(k-1) with the op's Lipschitz
// constant L otherwise (swish 1.1, gelu 1.13, hardswish 1.5, relu and elu max(1, |alpha|), abs 1, square
// from the interval, binary: add, sub, max, min 1, mul |b|, div 1/|b|, sum 1). A(k) is the op's own
// allowance in the precision it runs in (u: the declared accumulation type's unit roundoff): 0 for the exact
// ops (relu with alpha 0, clip, round, abs, max, min), u|r| per rounding for the others (r: the result's
// magnitude bound |v(k)| + spread), and for the transcendental ones WebNN's ULP budgets (tanh 16, logistic 34,
// swish 35, hardswish 4, gelu 18, elu 18, exp 32) of ulp(r) <= 2u|r|. The output's bound is then the rounding
// to dst of a value within E(last): u_out |v(last)| + (1 + u_out) E(last) + eta_out (output_error_bound).
#include <cmath>
#include <random>

#include "convcheck/abi/abi_post_ops.hpp"
#include "convcheck/reference/post_ops.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

std::string post_ops_unclaimed(const PluginInfo& info, const ConvDescriptor& d) {
    if (d.post_ops.empty()) return "";
    if (info.abi_major == 1 && info.abi_minor < 6)
        return "the plugin was built against ABI " + std::to_string(info.abi_major) + "." +
               std::to_string(info.abi_minor) + ", which has no post-ops (fused post-ops: ABI 1.6)";
    for (const PostOp& op : d.post_ops) {
        const auto kind = static_cast<int>(op.kind);
        if (!(info.post_op_kinds & CONVCHECK_BIT(kind)))
            return "the plugin does not claim the post-op kind of " + to_string(op) + " (plugin_info.post_op_kinds)";
        if (op.kind == PostOpKind::eltwise && !(info.eltwise_algorithms & CONVCHECK_BIT(static_cast<int>(op.eltwise))))
            return "the plugin does not claim the eltwise post-op " + std::string(to_string(op.eltwise)) +
                   " (plugin_info.eltwise_algorithms)";
        if (op.kind == PostOpKind::binary && !(info.binary_algorithms & CONVCHECK_BIT(static_cast<int>(op.binary))))
            return "the plugin does not claim the binary post-op " + std::string(to_string(op.binary)) +
                   " (plugin_info.binary_algorithms)";
    }
    return "";
}

reference::PostOpData make_post_op_data(const ConvDescriptor& d, accuracy::Mode mode, std::uint64_t seed) {
    reference::PostOpData data;
    if (d.post_ops.empty()) return data;
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 0x6f7073ull);  // "pos": apart from the tensors' fills
    const bool exact = mode == accuracy::Mode::exact;
    // exact mode: small integers (a divisor +-1, +-2); bound mode: f32 values in [-1, 1], a divisor's magnitude
    // in [0.5, 2]
    auto value = [&](bool divisor) {
        if (exact) {
            std::uniform_int_distribution<int> pick(divisor ? 0 : -3, divisor ? 3 : 3);
            const int v = pick(rng);
            return divisor ? double(v < 2 ? -(v + 1) : v - 1) : double(v);
        }
        std::uniform_real_distribution<double> u(divisor ? 0.5 : -1.0, divisor ? 2.0 : 1.0);
        const double v = double(static_cast<float>(u(rng)));
        return divisor && (rng() & 1) ? -v : v;
    };
    for (const PostOp& op : d.post_ops) {
        std::vector<double> operand(static_cast<std::size_t>(operand_elements(d, op)));
        for (double& v : operand) v = value(op.kind == PostOpKind::binary && op.binary == BinaryAlgorithm::div);
        data.operands.push_back(std::move(operand));
    }
    if (has_sum(d.post_ops)) {
        data.prior_dst.resize(static_cast<std::size_t>(d.dst_elements()));
        for (double& v : data.prior_dst) v = round_to(d.dst_dtype(), exact ? double(int(rng() % 9) - 4) : value(false));
    }
    return data;
}

namespace {

bool transcendental(EltwiseAlgorithm a) {
    switch (a) {
        case EltwiseAlgorithm::tanh: case EltwiseAlgorithm::logistic: case EltwiseAlgorithm::swish:
        case EltwiseAlgorithm::hardswish: case EltwiseAlgorithm::gelu_tanh: case EltwiseAlgorithm::gelu_erf:
        case EltwiseAlgorithm::elu: case EltwiseAlgorithm::exp: return true;
        default: return false;
    }
}

// WebNN's per-op ULP budgets (SPEC-NOTES §8); swish is logistic's and one product's.
double ulp_budget(EltwiseAlgorithm a) {
    switch (a) {
        case EltwiseAlgorithm::tanh: return 16;
        case EltwiseAlgorithm::logistic: return 34;
        case EltwiseAlgorithm::swish: return 35;
        case EltwiseAlgorithm::hardswish: return 4;
        case EltwiseAlgorithm::gelu_tanh: case EltwiseAlgorithm::gelu_erf: return 18;
        case EltwiseAlgorithm::elu: return 18;
        case EltwiseAlgorithm::exp: return 32;
        default: return 0;
    }
}

bool monotone(const PostOp& op) {
    switch (op.eltwise) {
        case EltwiseAlgorithm::relu: case EltwiseAlgorithm::elu: return op.alpha >= 0.0f;
        case EltwiseAlgorithm::clip: case EltwiseAlgorithm::linear: case EltwiseAlgorithm::round:
        case EltwiseAlgorithm::tanh: case EltwiseAlgorithm::logistic: case EltwiseAlgorithm::exp:
        case EltwiseAlgorithm::sqrt: return true;
        default: return false;
    }
}

// How far f can move the values within e of v (the spread above).
double eltwise_spread(const PostOp& op, double v, double e) {
    if (e == 0.0) return 0.0;
    const double a = v - e, b = v + e, fv = reference::eltwise(op, v);
    if (op.eltwise == EltwiseAlgorithm::sqrt && a < 0.0) return std::numeric_limits<double>::infinity();
    if (monotone(op)) return std::max(std::fabs(reference::eltwise(op, a) - fv), std::fabs(reference::eltwise(op, b) - fv));
    switch (op.eltwise) {
        case EltwiseAlgorithm::square: {
            double s = std::max(std::fabs(a * a - fv), std::fabs(b * b - fv));
            return a <= 0.0 && b >= 0.0 ? std::max(s, fv) : s;
        }
        case EltwiseAlgorithm::abs: return e;
        case EltwiseAlgorithm::swish: return 1.1 * e;
        case EltwiseAlgorithm::gelu_tanh: case EltwiseAlgorithm::gelu_erf: return 1.13 * e;
        case EltwiseAlgorithm::hardswish: return 1.5 * e;
        default: return std::max(1.0, std::fabs(double(op.alpha))) * e;  // relu, elu with alpha < 0
    }
}

}  // namespace

std::string post_ops_not_exact(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                               std::span<const double> y) {
    for (const PostOp& op : d.post_ops)
        if (op.kind == PostOpKind::eltwise && transcendental(op.eltwise))
            return "exact mode: the post-op " + to_string(op) + " has no exact result in floating point (bound mode judges it)";
    std::vector<double> steps;
    for (std::size_t i = 0; i < y.size(); ++i) {
        reference::apply_post_ops(d, data, static_cast<std::int64_t>(i), y[i], &steps);
        for (std::size_t k = 0; k < steps.size(); ++k)
            if (!c.accumulation_is_f64 && round_to(c.accumulation_dtype, steps[k]) != steps[k])
                return "exact mode: after post-op " + to_string(d.post_ops[k]) + " output " + std::to_string(i) +
                       " is " + std::to_string(steps[k]) + ", not exact in the accumulation type " +
                       std::string(to_string(c.accumulation_dtype));
    }
    return "";
}

double carry_post_op_bound(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                           std::int64_t at, double& v, double e) {
    const double u = accuracy::accumulation_roundoff(c);
    const double tiny = c.accumulation_is_f64 ? 0x1p-1074 : std::ldexp(1.0, -149);  // one ulp of the subnormals
    const auto i = static_cast<std::size_t>(at);
    for (std::size_t k = 0; k < d.post_ops.size(); ++k) {
        const PostOp& op = d.post_ops[k];
        double spread = e, own = 0.0, next = v;
        switch (op.kind) {
            case PostOpKind::eltwise: {
                next = reference::eltwise(op, v);
                spread = eltwise_spread(op, v, e);
                const double r = std::fabs(next) + spread;
                const bool exact_op = op.eltwise == EltwiseAlgorithm::clip || op.eltwise == EltwiseAlgorithm::round ||
                                      op.eltwise == EltwiseAlgorithm::abs ||
                                      (op.eltwise == EltwiseAlgorithm::relu && op.alpha == 0.0f);
                if (transcendental(op.eltwise))
                    own = ulp_budget(op.eltwise) * (2.0 * u * r + tiny) +
                          (op.eltwise == EltwiseAlgorithm::elu ? 2.0 * u * std::fabs(double(op.alpha)) : 0.0);
                else if (op.eltwise == EltwiseAlgorithm::linear)
                    own = u * std::fabs(double(op.alpha)) * (std::fabs(v) + e) + u * r + 2 * tiny;
                else if (!exact_op)
                    own = u * r + tiny;
                break;
            }
            case PostOpKind::sum: {
                const double p = data.prior_dst[i] - double(op.zero_point);
                next = v + double(op.scale) * p;
                own = 2.0 * u * std::fabs(double(op.scale)) * (std::fabs(data.prior_dst[i]) + std::fabs(double(op.zero_point))) +
                      u * (std::fabs(next) + e) + 3 * tiny;
                break;
            }
            case PostOpKind::binary: {
                const double b = reference::operand_at(d, op, data.operands[k], at);
                next = reference::binary(op.binary, v, b);
                if (op.binary == BinaryAlgorithm::mul) spread = std::fabs(b) * e;
                if (op.binary == BinaryAlgorithm::div) spread = e / std::fabs(b);
                if (op.binary != BinaryAlgorithm::max && op.binary != BinaryAlgorithm::min)
                    own = u * (std::fabs(next) + spread) + tiny;
                break;
            }
        }
        v = next;
        e = spread + own;
    }
    return e;
}

std::vector<double> post_op_bounds(const ConvDescriptor& d, const accuracy::Contract& c,
                                   const reference::PostOpData& data, std::span<const double> y,
                                   std::span<const double> magnitude, std::span<const std::int64_t> terms) {
    const accuracy::BoundScale scale = accuracy::bound_scale(c, magnitude, terms);
    std::vector<double> bounds(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        double v = y[i];
        // E0: the convolution's accumulated error (error_bound of an exact value 0: its M and n terms alone)
        const double e0 = accuracy::error_bound(c, 0.0, scale.magnitude(magnitude[i]), scale.terms(terms[i]));
        const double e = carry_post_op_bound(d, c, data, static_cast<std::int64_t>(i), v, e0);
        bounds[i] = accuracy::output_error_bound(c, v, e);
    }
    return bounds;
}

}  // namespace convcheck::runner::detail
