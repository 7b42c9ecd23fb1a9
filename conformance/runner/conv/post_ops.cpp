// Discrete convolution's fused post-ops in the runner (docs/post-ops.md): whether a plugin claims a chain
// (ABI 1.6; prelu, the eltwise algorithms from soft_relu on and operands not f32: ABI 1.7), the operands and
// the prior dst drawn from the case's seed, and the accuracy bound carried through the chain.
//
// The bound. The backend's accumulated value y^ is within E0 = error_bound(M, n) of the exact y* (the
// convolution's own contract, accuracy.hpp, before the rounding to dst). Each op k maps the exact value
// v(k-1) to v(k) = f(v(k-1)) and the backend's value within E(k-1) of it to within
//     E(k) = spread of f over [a, b] = [v(k-1) - E(k-1), v(k-1) + E(k-1)]  +  A(k)
// where the spread is the image's distance from f(v(k-1)) for a monotone f (relu with alpha >= 0, clip,
// linear, round, tanh, logistic, elu with alpha >= 0, exp, sqrt, soft_relu, log, hardsigmoid; pow on each
// side of 0), and L * E(k-1) with the op's Lipschitz constant L otherwise (swish 1.1, gelu 1.13, hardswish
// 1.5, relu and elu max(1, |alpha|), abs 1, square from the interval, binary: add, sub, max, min 1, mul |b|,
// div 1/|b|, sum 1, prelu max(1, |w|); hardswish_ab and mish on the interval [a, b], lipschitz() below). A(k)
// is the op's own allowance in the precision it runs in (u: the declared accumulation type's unit roundoff):
// 0 for the exact ops (relu with alpha 0, clip, round, abs, max, min), u|r| per rounding for the others (r: the
// result's magnitude bound |v(k)| + spread), and for the transcendental ones WebNN's ULP budgets (tanh 16,
// logistic 34, swish 35, hardswish 4, gelu 18, elu 18, exp 32, soft_relu 18 (softplus), hardsigmoid 2,
// WebNN has none for log, pow and mish: log and pow take exp's 32, mish tanh's and softplus's and one
// product's, 35) of ulp(r) <= 2u|r|; hardsigmoid and hardswish_ab are rational, and get linear's roundings
// (alpha x and + beta: u|alpha| |x| + u|alpha x + beta|, which the clamp to [0, 1] does not grow), times |x|
// and one more rounding for hardswish_ab's product. WebNN's hardSigmoid 2 and hardSwish 4 ULP of the result
// would not cover alpha x + beta's cancellation near 0. The output's bound is then the rounding to dst of a
// value within E(last): u_out |v(last)| + (1 + u_out) E(last) + eta_out (output_error_bound).
// Where an interval [a, b] reaches past the edge of an op's domain (log, sqrt, pow with a fractional or
// negative exponent at 0 or below) the result is not determined there, and bound mode declines the case,
// naming the op and the output; where the whole interval lies outside, the result is NaN and so must be the
// backend's.
#include <algorithm>
#include <cmath>
#include <random>

#include "convcheck/abi/abi_post_ops.hpp"
#include "convcheck/core/rounding_error.hpp"
#include "convcheck/reference/post_ops.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

// What of op needs ABI 1.7 (prelu, the eltwise algorithms from soft_relu on, an operand not f32); "" if none.
std::string needs_abi_1_7(const PostOp& op) {
    if (op.kind == PostOpKind::prelu) return "the prelu post-op";
    if (op.kind == PostOpKind::eltwise && op.eltwise >= EltwiseAlgorithm::soft_relu)
        return "the eltwise post-op " + std::string(to_string(op.eltwise));
    if (op.kind == PostOpKind::binary && op.operand_type != OperandType::f32)
        return "a binary operand of type " + std::string(to_string(op.operand_type));
    return "";
}

std::string post_ops_unclaimed(const PluginInfo& info, const ConvDescriptor& d) {
    if (d.post_ops.empty()) return "";
    const std::string abi = "the plugin was built against ABI " + std::to_string(info.abi_major) + "." +
                            std::to_string(info.abi_minor);
    if (info.abi_major == 1 && info.abi_minor < 6) return abi + ", which has no post-ops (fused post-ops: ABI 1.6)";
    for (const PostOp& op : d.post_ops) {
        if (info.abi_major == 1 && info.abi_minor < 7)
            if (const std::string what = needs_abi_1_7(op); !what.empty()) return abi + ", which has no " + what + " (ABI 1.7)";
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
    // in [0.5, 2]; an operand of an integer type: integers in [-4, 4] (u8 [0, 4]; a divisor's magnitude 1 to 4),
    // of f16 or bf16: the f32 value rounded to that type
    auto integer = [&](bool divisor, bool is_unsigned) {
        std::uniform_int_distribution<int> pick(divisor || is_unsigned ? 1 : -4, 4);
        const int v = pick(rng);
        return double(divisor && !is_unsigned && (rng() & 1) ? -v : v);
    };
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
        const bool divisor = op.kind == PostOpKind::binary && op.binary == BinaryAlgorithm::div;
        for (double& v : operand) {
            switch (op.operand_type) {
                case OperandType::f32: v = value(divisor); break;
                case OperandType::f16: v = round_to(DataType::f16, value(divisor)); break;
                case OperandType::bf16: v = round_to(DataType::bf16, value(divisor)); break;
                case OperandType::u8: v = integer(divisor, true); break;
                case OperandType::s8: case OperandType::s32: v = integer(divisor, false); break;
            }
            if (divisor && v == 0.0) v = 1.0;  // a divisor rounded to 0 (never for these ranges)
        }
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
        case EltwiseAlgorithm::elu: case EltwiseAlgorithm::exp: case EltwiseAlgorithm::soft_relu:
        case EltwiseAlgorithm::log: case EltwiseAlgorithm::mish: case EltwiseAlgorithm::pow: return true;
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
        case EltwiseAlgorithm::soft_relu: return 18;  // WebNN's softplus
        case EltwiseAlgorithm::log: case EltwiseAlgorithm::pow: return 32;  // none in WebNN: exp's
        case EltwiseAlgorithm::mish: return 35;  // none in WebNN: softplus 18 + tanh 16 + one product
        default: return 0;
    }
}

bool monotone(const PostOp& op) {
    switch (op.eltwise) {
        case EltwiseAlgorithm::relu: case EltwiseAlgorithm::elu: return op.alpha >= 0.0f;
        case EltwiseAlgorithm::clip: case EltwiseAlgorithm::linear: case EltwiseAlgorithm::round:
        case EltwiseAlgorithm::tanh: case EltwiseAlgorithm::logistic: case EltwiseAlgorithm::exp:
        case EltwiseAlgorithm::sqrt: case EltwiseAlgorithm::soft_relu: case EltwiseAlgorithm::log:
        case EltwiseAlgorithm::hardsigmoid: return true;
        default: return false;
    }
}

}  // namespace

// Whether [a, b] reaches past the edge of op's domain (a value there has no determined result): sqrt and log
// below 0 (log's edge 0 itself: -inf), pow with a fractional exponent below 0, with a negative one at 0.
bool outside_domain(const PostOp& op, double a, double b) {
    if (op.kind != PostOpKind::eltwise) return false;
    switch (op.eltwise) {
        case EltwiseAlgorithm::sqrt: return a < 0.0;
        case EltwiseAlgorithm::log: return a <= 0.0;
        case EltwiseAlgorithm::pow: {
            const bool integral = std::nearbyint(double(op.beta)) == double(op.beta);
            return (!integral && a < 0.0) || (op.beta < 0.0f && a <= 0.0 && b >= 0.0);
        }
        default: return false;
    }
}

// The Lipschitz constant of the eltwise ops judged by one, sup |f'| over [a, b]:
//   hardswish_ab  f = x h(x), h = max(0, min(1, alpha x + beta)): f' = 0 where alpha x + beta <= 0, 1 where it is
//                 >= 1, 2 alpha x + beta between: linear there, so its largest magnitude is at an end of [a, b] cut
//                 to that region (alpha 0: f = x clamp(beta, 0, 1), f' that constant).
//   mish          f' = tanh(sp(x)) + x sech^2(sp(x)) / (1 + e^-x), sp(x) = log(1 + e^x); sup over the reals 1.0885
//                 (at x = 1.49), |f''| <= 0.65 everywhere (both found numerically on [-20, 20] in steps of 1e-3;
//                 f' tends to 1 and 0 beyond), so sup over [a, b] <= max(|f'(a)|, |f'(b)|) + 0.65 (b - a), and
//                 never above 1.0885.
//   soft_relu, log, hardsigmoid and pow are judged by their image (monotone); their constants, for the record:
//                 soft_relu 1 / (1 + e^(-alpha x)) < 1, log 1 / a, hardsigmoid |alpha|, pow |alpha beta| x^(beta - 1).
double lipschitz(const PostOp& op, double a, double b) {
    switch (op.eltwise) {
        case EltwiseAlgorithm::hardswish_ab: {
            const double alpha = op.alpha, beta = op.beta;
            if (alpha == 0.0) return std::clamp(beta, 0.0, 1.0);
            double lo = -beta / alpha, hi = (1.0 - beta) / alpha;  // where alpha x + beta is 0 and 1
            double l = 0.0;
            if ((alpha > 0 && b >= hi) || (alpha < 0 && a <= hi)) l = 1.0;  // reaches the region f = x
            if (lo > hi) std::swap(lo, hi);
            const double c = std::max(a, lo), e = std::min(b, hi);
            if (c <= e) l = std::max({l, std::fabs(2 * alpha * c + beta), std::fabs(2 * alpha * e + beta)});
            return l;
        }
        case EltwiseAlgorithm::mish: {
            auto slope = [](double x) {
                const double sp = x > 700.0 ? x : std::log1p(std::exp(x)), t = std::tanh(sp);
                return t + x * (1.0 - t * t) / (1.0 + std::exp(-x));
            };
            return std::min(1.0885, std::max(std::fabs(slope(a)), std::fabs(slope(b))) + 0.65 * (b - a));
        }
        default: return std::numeric_limits<double>::infinity();
    }
}


// How far f can move the values within e of v (the spread above).
double eltwise_spread(const PostOp& op, double v, double e) {
    if (e == 0.0) return 0.0;
    const double a = v - e, b = v + e, fv = reference::eltwise(op, v);
    if (outside_domain(op, a, b)) return std::numeric_limits<double>::infinity();
    auto image = [&](double t) { return std::fabs(reference::eltwise(op, t) - fv); };
    if (monotone(op)) return std::max(image(a), image(b));
    switch (op.eltwise) {
        case EltwiseAlgorithm::pow:  // monotone on each side of 0 (x^beta), so the image's ends are a, b and 0
            return std::max({image(a), image(b), a < 0.0 && b > 0.0 ? image(0.0) : 0.0});
        case EltwiseAlgorithm::hardswish_ab: case EltwiseAlgorithm::mish: return lipschitz(op, a, b) * e;
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


std::string post_ops_not_exact(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                               std::span<const double> y) {
    auto exact = [&](double x) { return c.accumulation_is_f64 || round_to(c.accumulation_dtype, x) == x; };
    for (const PostOp& op : d.post_ops)
        if (op.kind == PostOpKind::eltwise && transcendental(op.eltwise))
            return "exact mode: the post-op " + to_string(op) + " has no exact result in floating point (bound mode judges it)";
    std::vector<double> steps;
    for (std::size_t i = 0; i < y.size(); ++i) {
        reference::apply_post_ops(d, data, static_cast<std::int64_t>(i), y[i], &steps);
        for (std::size_t k = 0; k < steps.size(); ++k) {
            const PostOp& op = d.post_ops[k];
            const double x = k == 0 ? y[i] : steps[k - 1];
            const bool inner = op.kind == PostOpKind::eltwise && (op.eltwise == EltwiseAlgorithm::hardsigmoid ||
                                                                  op.eltwise == EltwiseAlgorithm::hardswish_ab);
            if (inner && !(exact(double(op.alpha) * x) && exact(double(op.alpha) * x + double(op.beta))))
                return "exact mode: in post-op " + to_string(op) + " output " + std::to_string(i) +
                       "'s alpha x + beta is not exact in the accumulation type " +
                       std::string(to_string(c.accumulation_dtype));
            if (!exact(steps[k]))
                return "exact mode: after post-op " + to_string(d.post_ops[k]) + " output " + std::to_string(i) +
                       " is " + std::to_string(steps[k]) + ", not exact in the accumulation type " +
                       std::string(to_string(c.accumulation_dtype));
        }
    }
    return "";
}

double carry_post_op_bound(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                           std::int64_t at, double& v, double e, std::string* undetermined, std::size_t first,
                           std::size_t end) {
    const double u = accuracy::accumulation_roundoff(c);
    const double tiny = c.accumulation_is_f64 ? 0x1p-1074 : std::ldexp(1.0, -149);  // one ulp of the subnormals
    const auto i = static_cast<std::size_t>(at);
    for (std::size_t k = first; k < std::min(end, d.post_ops.size()); ++k) {
        const PostOp& op = d.post_ops[k];
        double spread = e, own = 0.0, next = v;
        switch (op.kind) {
            case PostOpKind::eltwise: {
                next = reference::eltwise(op, v);
                if (outside_domain(op, v - e, v + e) && !outside_domain(op, v + e, v + e) && undetermined &&
                    undetermined->empty())
                    *undetermined = "bound mode: before post-op " + to_string(op) + " output " + std::to_string(i) +
                                    " is " + std::to_string(v) + ", within its error bound " + std::to_string(e) +
                                    " of the edge of the op's domain, where the result is not determined";
                // wholly outside the domain: the result is NaN, and no error of the backend's moves it
                spread = outside_domain(op, v + e, v + e) && e > 0.0 ? 0.0 : eltwise_spread(op, v, e);
                const double r = std::fabs(next) + spread;
                const bool exact_op = op.eltwise == EltwiseAlgorithm::clip || op.eltwise == EltwiseAlgorithm::round ||
                                      op.eltwise == EltwiseAlgorithm::abs ||
                                      (op.eltwise == EltwiseAlgorithm::relu && op.alpha == 0.0f);
                if (transcendental(op.eltwise))
                    own = ulp_budget(op.eltwise) * (2.0 * u * r + tiny) +
                          (op.eltwise == EltwiseAlgorithm::elu ? 2.0 * u * std::fabs(double(op.alpha)) : 0.0) +
                          (op.eltwise == EltwiseAlgorithm::soft_relu ? u * (std::fabs(v) + e) : 0.0);  // alpha x
                else if (op.eltwise == EltwiseAlgorithm::linear)
                    own = u * std::fabs(double(op.alpha)) * (std::fabs(v) + e) + u * r + 2 * tiny;
                else if (op.eltwise == EltwiseAlgorithm::hardsigmoid || op.eltwise == EltwiseAlgorithm::hardswish_ab) {
                    const double x = std::fabs(v) + e;
                    const double inner = u * std::fabs(double(op.alpha)) * x +
                                         u * (std::fabs(double(op.alpha) * v + double(op.beta)) + std::fabs(double(op.alpha)) * e) +
                                         2 * tiny;
                    own = op.eltwise == EltwiseAlgorithm::hardsigmoid ? inner : x * inner + u * r + tiny;
                }
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
            case PostOpKind::prelu: {  // x > 0 ? x : w x: Lipschitz max(1, |w|), one rounding where x < 0
                const double w = reference::operand_at(d, op, data.operands[k], at);
                next = reference::prelu(v, w);
                spread = (v - e > 0.0 ? 1.0 : v + e < 0.0 ? std::fabs(w) : std::max(1.0, std::fabs(w))) * e;
                if (v - e <= 0.0) own = u * (std::fabs(next) + spread) + tiny;
                break;
            }
        }
        v = next;
        e = spread + own;
    }
    return e;
}

namespace {

// Whether d's chain ends in an op whose zero's sign probe mode judges: relu with alpha 0, a clip with a bound of 0.
bool ends_in_zero_maker(const ConvDescriptor& d) {
    if (d.post_ops.empty() || d.post_ops.back().kind != PostOpKind::eltwise) return false;
    const PostOp& last = d.post_ops.back();
    return (last.eltwise == EltwiseAlgorithm::relu && last.alpha == 0.0f) ||
           (last.eltwise == EltwiseAlgorithm::clip && (last.alpha == 0.0f || last.beta == 0.0f));
}

}  // namespace

std::vector<double> post_op_bounds(const ConvDescriptor& d, const accuracy::Contract& c,
                                   const reference::PostOpData& data, std::span<const double> y,
                                   std::span<const double> magnitude, std::span<const std::int64_t> terms,
                                   std::string* undetermined, double dst_scale, std::vector<char>* zero_judged) {
    const accuracy::BoundScale scale = accuracy::bound_scale(c, magnitude, terms);
    std::vector<double> bounds(y.size());
    // where the sign of a zero is judged, the chain is carried in two steps: to the last op, then through it
    const bool zeros = zero_judged != nullptr && ends_in_zero_maker(d);
    if (zero_judged) zero_judged->assign(y.size(), 0);
    const std::size_t last = d.post_ops.size() - 1;
    for (std::size_t i = 0; i < y.size(); ++i) {
        const auto at = static_cast<std::int64_t>(i);
        double v = y[i];
        // E0: the convolution's accumulated error (error_bound of an exact value 0: its M and n terms alone)
        const double e0 = accuracy::error_bound(c, 0.0, scale.magnitude(magnitude[i]), scale.terms(terms[i]));
        double e = e0;
        if (zeros) {
            e = carry_post_op_bound(d, c, data, at, v, e, undetermined, 0, last);
            const PostOp& op = d.post_ops[last];  // relu (alpha 0) or a clip at 0: v before it, within e
            (*zero_judged)[i] = op.eltwise == EltwiseAlgorithm::relu
                                    ? v + e < 0.0
                                    : (op.alpha == 0.0f && v + e < 0.0) || (op.beta == 0.0f && v - e > 0.0);
            e = carry_post_op_bound(d, c, data, at, v, e, undetermined, last);
        } else {
            e = carry_post_op_bound(d, c, data, at, v, e, undetermined);
        }
        if (dst_scale != 1.0) {  // v / dst_scale: 1 / dst_scale and the product each round once (scales.hpp)
            e = (e + convcheck::gamma(2, accuracy::accumulation_roundoff(c)) * (std::fabs(v) + e)) / dst_scale;
            v /= dst_scale;
        }
        bounds[i] = accuracy::output_error_bound(c, v, e);
    }
    return bounds;
}

// Probe mode (docs/post-ops.md, "NaN and signed zero"): the ops whose NaN no declaration names and whose
// definition does not fix it either: hardsigmoid, hardswish and hardswish_ab clamp inside (max(0, min(1, .)),
// min(max(x + 3, 0), 6)), and pow's x^0 is 1 for a NaN x in C (pow) and IEEE 754-2019 (pown) but NaN where
// it is computed as e^(beta log x).
std::string post_ops_not_probed(const ConvDescriptor& d) {
    for (const PostOp& op : d.post_ops) {
        if (op.kind != PostOpKind::eltwise) continue;
        const EltwiseAlgorithm a = op.eltwise;
        if (a == EltwiseAlgorithm::hardsigmoid || a == EltwiseAlgorithm::hardswish || a == EltwiseAlgorithm::hardswish_ab)
            return "probe mode: the post-op " + to_string(op) + " clamps inside, and no declaration names what " +
                   "that clamp makes of a NaN (post_op_nan declares relu, clip, max and min)";
        if (a == EltwiseAlgorithm::pow && op.beta == 0.0f)
            return "probe mode: the post-op " + to_string(op) + " computes NaN^0, which is 1 in C's pow and NaN " +
                   "as e^(0 log NaN)";
    }
    return "";
}

void probe_post_ops(const ConvDescriptor& d, const accuracy::Contract& c, const reference::PostOpData& data,
                    std::span<double> with_nan, std::span<double> want, std::span<double> bounds) {
    std::vector<double> steps;
    for (std::size_t i = 0; i < with_nan.size(); ++i) {
        if (!std::isnan(with_nan[i])) {  // the NaN does not reach it: the chain's result without the NaN
            with_nan[i] = want[i];
            continue;
        }
        const auto at = static_cast<std::int64_t>(i);
        with_nan[i] = reference::apply_post_ops(d, data, at, with_nan[i], &steps, c.post_op_nan);
        if (std::isnan(with_nan[i])) continue;
        // the policy made a number of the NaN at op k: exact there, carried through the rest of the chain
        std::size_t k = 0;
        while (std::isnan(steps[k])) ++k;
        double v = steps[k];
        const double e = carry_post_op_bound(d, c, data, at, v, 0.0, nullptr, k + 1);
        want[i] = v;
        bounds[i] = accuracy::output_error_bound(c, v, e);
    }
}

}  // namespace convcheck::runner::detail
