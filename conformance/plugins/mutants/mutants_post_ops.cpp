// The mutants plugin's fused post-ops on a float convolution (ABI 1.6/1.7, convcheck/plugin/post_ops.h): the chain
// applied in order, in double, to each output after the bias and before the one rounding to dst's type, as oneDNN's
// post-ops attribute defines it:
//   eltwise  relu x > 0 ? x : alpha x;  clip min(beta, max(alpha, x)), NaN kept;  linear alpha x + beta
//   sum      x + scale (dst_prev - zero_point), dst_prev dst's value when the call begins
//   binary   x op b: add, mul, max, min (std::max(x, b): NaN kept), sub (x - b), div (x / b); b one value, the output channel's (oc, across
//            groups) or the output's own (dense in dst's data format), read exactly in its operand type
// Each po_* mutant is one marked deviation (the ones in the store itself, po_before_bias and
// po_sum_reads_written_dst, are in mutants_conv.cpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "convcheck/core/dtype.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "mutants_impl.hpp"

namespace convcheck::mutants {

namespace {

using namespace convcheck_plugin_support;

bool integer_operand(int32_t t) { return t == CONVCHECK_U8 || t == CONVCHECK_S8 || t == CONVCHECK_S32; }

}  // namespace

std::string float_post_ops_unsupported(const convcheck_conv_desc&, const convcheck_post_ops& ops) {
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        const bool eltwise = is_relu_clip_or_linear(op);
        const int32_t t = operand_dtype_of(op);
        const bool binary = op.kind == CONVCHECK_POST_OP_BINARY && op.algorithm >= CONVCHECK_BINARY_ADD &&
                            op.algorithm <= CONVCHECK_BINARY_DIV &&
                            (t == CONVCHECK_F32 || t == CONVCHECK_F16 || t == CONVCHECK_BF16 || integer_operand(t));
        if (!eltwise && !binary && op.kind != CONVCHECK_POST_OP_SUM)
            return "the mutants plugin's float post-ops are relu, clip, linear, sum and binary add, mul, max, min, sub, "
                   "div (op " + std::to_string(k) + " is none of them)";
    }
    return "";
}

bool PostOpChain::has_sum() const {
    for (int64_t k = 0; ops != nullptr && k < ops->count; ++k)
        if (ops->ops[k].kind == CONVCHECK_POST_OP_SUM) return true;
    return false;
}

double PostOpChain::operand(int64_t k, long long n, long long oc, long long x) const {
    const convcheck_post_op& op = ops->ops[k];
    long long i = 0;  // PER_TENSOR
    if (op.operand_broadcast == CONVCHECK_OPERAND_PER_OC) i = m == Mutant::po_operand_by_group_channel ? oc % OCg : oc;
    if (op.operand_broadcast == CONVCHECK_OPERAND_FULL) i = nxc ? (n * out_spatial + x) * O + oc : (n * O + oc) * out_spatial + x;
    const int32_t t = operand_dtype_of(op);
    if (integer_operand(t)) return double(load_integer(operands[k], t, i));
    return load_as_double(operands[k], static_cast<DataType>(t), i);
}

double PostOpChain::apply(double v, double prior, long long n, long long oc, long long x) const {
    for (int64_t i = 0; ops != nullptr && i < ops->count; ++i) {
        int64_t k = i;
        if (m == Mutant::po_order_swapped && ops->count >= 2 && i < 2) k = 1 - i;  // ops 0 and 1 swapped
        const convcheck_post_op& op = ops->ops[k];
        const double alpha = op.alpha, beta = op.beta;
        if (op.kind == CONVCHECK_POST_OP_SUM) {
            v += double(op.scale) * (prior - double(op.zero_point));
        } else if (op.kind == CONVCHECK_POST_OP_ELTWISE) {
            // a NaN propagates through relu and clip (backends.json declares nothing for the mutants: the default)
            if (op.algorithm == CONVCHECK_ELTWISE_RELU) {
                if (m == Mutant::po_relu_nan_to_zero && std::isnan(v)) v = 0.0;  // MAXPS(x, 0) returns the 0
                else if (m == Mutant::po_relu_plus_zero && alpha == 0.0) v = std::max(v, 0.0);  // NaN kept, -x -> +0
                else v = v > 0 ? v : alpha * v;
            } else if (op.algorithm == CONVCHECK_ELTWISE_LINEAR) {
                v = alpha * v + beta;
            } else if (!std::isnan(v)) {  // CLIP
                const double hi = m == Mutant::po_clip_upper_ulp_low ? double(std::nextafter(op.beta, -INFINITY)) : beta;
                v = std::min(hi, std::max(alpha, v));
            } else if (m == Mutant::po_clip_nan_to_bound) {
                v = alpha;  // MAXPS(x, alpha) returns alpha, MINPS(alpha, beta) alpha
            }
        } else {  // BINARY
            const double b = operand(k, n, oc, x);
            switch (op.algorithm) {
                case CONVCHECK_BINARY_ADD: v = v + b; break;
                case CONVCHECK_BINARY_MUL: v = v * b; break;
                case CONVCHECK_BINARY_MAX: v = std::max(v, b); break;
                case CONVCHECK_BINARY_MIN: v = std::min(v, b); break;
                case CONVCHECK_BINARY_SUB: v = v - b; break;
                default: v = v / b; break;  // DIV
            }
        }
    }
    return v;
}

}  // namespace convcheck::mutants
