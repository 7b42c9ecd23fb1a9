// The libtorch plugin's fused post-ops and per-tensor dtypes (libtorch_post_ops.hpp).
//
// Post-ops. ATen fuses none into at::convolution: a framework runs conv, then each op on its result. The
// plugin does exactly that, each op the ATen op of the same formula on the result's dtype, in order:
//   relu        at::relu (alpha 0), at::leaky_relu(x, alpha)     clip    at::clamp(x, alpha, beta)
//   linear      at::add(at::mul(x, alpha), beta) (two roundings) round   at::round (half to even)
//   abs, square at::abs, at::square
//   sum         at::add(x, at::sub(dst_prev, zero_point), scale)  (x + scale (dst_prev - zero_point))
//   binary      at::add, mul, maximum, minimum, sub, div with the operand as a tensor of its own dtype (per
//               tensor [1], per channel [1, O, 1...], full: dst's dims over dst's layout); ATen promotes an f32
//               result with an f16, bf16 or integer operand to f32, so the op reads the operand's value
//   prelu       at::where(x > 0, x, x * w), w shaped like a binary operand
// In f32 this is the contract: the accumulated f32 value, then each op rounded to f32 (docs/accuracy.md, "Fused
// post-ops", counts those roundings in the accumulation type, f32). In bf16 it is not: at::convolution returns
// bf16 (ATen computes in the input's dtype), so every op reads the bf16-rounded result and rounds to bf16 again,
// while the contract rounds once, after the chain. Those extra roundings change nothing only for the ops that
// commute with a monotone rounding: relu (alpha 0), clip, abs, max and min; a bf16 chain of those runs, any
// other is declined (the contract has no intermediate rounding to declare).
//
// NaN and signed zero: at::clamp and at::relu keep a NaN (the reference's clip gives alpha) and keep -0; no runner
// mode sends NaN into a post-op chain (probe and stress decline post-op cases), and -0 compares equal to 0.
//
// Mixed dtypes. at::convolution takes one dtype for input, weight and bias ("Input type (CPUBFloat16Type) and
// bias type (torch.FloatTensor) should be the same", "expected scalar type Float but found BFloat16") and returns
// it; torch.autocast on CPU runs conv2d in bf16 with a bf16 result. ATen 1.13 has no bf16 -> f32 convolution
// (nor out_dtype): converting a bf16 result to f32 would be a bf16 convolution, not the f32-dst one. So every
// mix is declined.
#include "libtorch_post_ops.hpp"

#include <ATen/ops/abs.h>
#include <ATen/ops/add.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/div.h>
#include <ATen/ops/gt.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/minimum.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/round.h>
#include <ATen/ops/square.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/where.h>

#include "libtorch_tensors.hpp"

namespace convcheck_libtorch {

const uint32_t kPostOpKinds = CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE) | CONVCHECK_BIT(CONVCHECK_POST_OP_SUM) |
                              CONVCHECK_BIT(CONVCHECK_POST_OP_BINARY) | CONVCHECK_BIT(CONVCHECK_POST_OP_PRELU);
const uint32_t kEltwiseAlgorithms = CONVCHECK_BIT(CONVCHECK_ELTWISE_RELU) | CONVCHECK_BIT(CONVCHECK_ELTWISE_CLIP) |
                                    CONVCHECK_BIT(CONVCHECK_ELTWISE_LINEAR) | CONVCHECK_BIT(CONVCHECK_ELTWISE_ROUND) |
                                    CONVCHECK_BIT(CONVCHECK_ELTWISE_ABS) | CONVCHECK_BIT(CONVCHECK_ELTWISE_SQUARE);
const uint32_t kBinaryAlgorithms = (1u << (CONVCHECK_BINARY_DIV + 1)) - 1;

namespace {

// Whether op commutes with a monotone rounding to dst's type (so ATen's rounding between ops changes nothing).
bool commutes_with_rounding(const convcheck_post_op& op) {
    if (op.kind == CONVCHECK_POST_OP_ELTWISE)
        return (op.algorithm == CONVCHECK_ELTWISE_RELU && op.alpha == 0.0f) || op.algorithm == CONVCHECK_ELTWISE_CLIP ||
               op.algorithm == CONVCHECK_ELTWISE_ABS;
    return op.kind == CONVCHECK_POST_OP_BINARY &&
           (op.algorithm == CONVCHECK_BINARY_MAX || op.algorithm == CONVCHECK_BINARY_MIN);
}

std::string op_name(const convcheck_post_op& op) {
    static const char* eltwise[] = {"relu", "clip", "linear", "round", "tanh", "logistic", "swish", "hardswish",
                                    "gelu_tanh", "gelu_erf", "elu", "exp", "square", "abs", "sqrt", "soft_relu",
                                    "log", "hardsigmoid", "hardswish_ab", "mish", "pow"};
    static const char* binary[] = {"add", "mul", "max", "min", "sub", "div"};
    switch (op.kind) {
        case CONVCHECK_POST_OP_ELTWISE:
            return op.algorithm >= 0 && op.algorithm <= CONVCHECK_ELTWISE_POW ? eltwise[op.algorithm] : "eltwise";
        case CONVCHECK_POST_OP_SUM: return "sum";
        case CONVCHECK_POST_OP_BINARY:
            return op.algorithm >= 0 && op.algorithm <= CONVCHECK_BINARY_DIV ? binary[op.algorithm] : "binary";
        case CONVCHECK_POST_OP_PRELU: return "prelu";
    }
    return "post-op";
}

at::ScalarType operand_type(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F16: return at::kHalf;
        case CONVCHECK_BF16: return at::kBFloat16;
        case CONVCHECK_U8: return at::kByte;
        case CONVCHECK_S8: return at::kChar;
        case CONVCHECK_S32: return at::kInt;
        default: return at::kFloat;
    }
}

// A binary operand or prelu's weights as a tensor that broadcasts against dst (dims dst_dims, logical order).
at::Tensor operand(const convcheck_conv_desc& d, const convcheck_post_op& op, const void* data,
                   const std::vector<int64_t>& dst_dims) {
    const at::ScalarType type = op.kind == CONVCHECK_POST_OP_PRELU ? at::kFloat : operand_type(support::operand_dtype_of(op));
    switch (op.operand_broadcast) {
        case CONVCHECK_OPERAND_PER_TENSOR: return over(data, {1}, {0}, type);
        case CONVCHECK_OPERAND_PER_OC: {
            std::vector<int64_t> dims(dst_dims.size(), 1);
            dims[1] = dst_dims[1];
            return over(data, {dst_dims[1]}, {0}, type).view(dims);
        }
        default: return over(data, dst_dims, support::activation_order(d), type);
    }
}

}  // namespace

std::string post_ops_accepts(const convcheck_conv_desc& d, const convcheck_post_ops& ops) {
    const support::TensorDtypes t = support::tensor_dtypes(d);
    if (t.dst == CONVCHECK_F32) return "";
    for (int64_t k = 0; k < ops.count; ++k)
        if (!commutes_with_rounding(ops.ops[k]))
            return "post-op " + std::to_string(k) + " (" + op_name(ops.ops[k]) + ") on " + support::dtype_name(t.dst) +
                   ": at::convolution returns " + support::dtype_name(t.dst) + " and ATen runs each op after it on that "
                   "rounded result, rounding again, while the post-ops contract rounds once after the chain; only relu, "
                   "clip, abs, max and min, which commute with that rounding, run in " + support::dtype_name(t.dst);
    return "";
}

at::Tensor apply_post_ops(const convcheck_conv_desc& d, const convcheck_post_ops& ops, const convcheck_conv_args& args,
                          const std::vector<int64_t>& dst_dims, at::Tensor y) {
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        switch (op.kind) {
            case CONVCHECK_POST_OP_ELTWISE:
                switch (op.algorithm) {
                    case CONVCHECK_ELTWISE_RELU: y = op.alpha == 0.0f ? at::relu(y) : at::leaky_relu(y, op.alpha); break;
                    case CONVCHECK_ELTWISE_CLIP: y = at::clamp(y, op.alpha, op.beta); break;
                    case CONVCHECK_ELTWISE_LINEAR: y = at::add(at::mul(y, op.alpha), op.beta); break;
                    case CONVCHECK_ELTWISE_ROUND: y = at::round(y); break;
                    case CONVCHECK_ELTWISE_ABS: y = at::abs(y); break;
                    case CONVCHECK_ELTWISE_SQUARE: y = at::square(y); break;
                    default: throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "eltwise post-op " + op_name(op) + " is not claimed");
                }
                break;
            case CONVCHECK_POST_OP_SUM: {
                // dst_prev: the runner's dst as the call began (dense, in d's layout and dst's dtype)
                const at::Tensor prior = over(args.dst, dst_dims, support::activation_order(d), y.scalar_type());
                y = at::add(y, at::sub(prior, op.zero_point), op.scale);
                break;
            }
            case CONVCHECK_POST_OP_BINARY: {
                const at::Tensor b = operand(d, op, support::post_op_operand(args, k), dst_dims);
                switch (op.algorithm) {
                    case CONVCHECK_BINARY_ADD: y = at::add(y, b); break;
                    case CONVCHECK_BINARY_MUL: y = at::mul(y, b); break;
                    case CONVCHECK_BINARY_MAX: y = at::maximum(y, b); break;
                    case CONVCHECK_BINARY_MIN: y = at::minimum(y, b); break;
                    case CONVCHECK_BINARY_SUB: y = at::sub(y, b); break;
                    case CONVCHECK_BINARY_DIV: y = at::div(y, b); break;
                    default: throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "binary post-op " + op_name(op) + " is not claimed");
                }
                break;
            }
            case CONVCHECK_POST_OP_PRELU: {
                const at::Tensor w = operand(d, op, support::post_op_operand(args, k), dst_dims);
                y = at::where(at::gt(y, 0), y, at::mul(y, w));
                break;
            }
            default: throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "post-op kind " + std::to_string(op.kind) + " is not claimed");
        }
    }
    return y;
}

std::string mixed_dtypes_missing(const convcheck_conv_desc& d) {
    const support::TensorDtypes t = support::tensor_dtypes(d);
    if (t.src == t.weights && t.src == t.bias && t.src == t.dst) return "";
    return std::string("ATen 1.13's at::convolution takes one dtype for input, weight and bias and returns it (\"Input "
                       "type (CPUBFloat16Type) and bias type (torch.FloatTensor) should be the same\", \"expected scalar "
                       "type Float but found BFloat16\"); torch.autocast on CPU runs conv in bf16 with a bf16 result: "
                       "there is no convolution of src ") +
           support::dtype_name(t.src) + ", weights " + support::dtype_name(t.weights) + ", bias " +
           support::dtype_name(t.bias) + ", dst " + support::dtype_name(t.dst) + " in it";
}

}  // namespace convcheck_libtorch
