// Fused post-ops of the forward convolution: a chain applied, in order, to each output after the bias and
// before the one rounding to dst's type (oneDNN's primitive attributes, "Post-ops"; SPEC-NOTES §8).
//
// oneDNN's definitions (dev_guide_attributes_post_ops, dev_guide_eltwise), which convcheck follows:
//   eltwise: dst[:] = eltwise_op(dst[:])   ("the eltwise post-op replaces dst with eltwise(dst)")
//   sum:     dst[:] = dst[:] + scale * (dst_prev[:] - zero_point)   ("accumulates the result with the
//            previous dst value": dst is then an input too; dst_prev is dst's content before the call)
//   binary:  dst[:] = binary_op(dst[:], src1[:])   (src1 broadcast by its mask: one value, one per output
//            channel, or one per dst element; src1 stored in its own data type, f32 s8 u8 s32 bf16 f16)
//   prelu:   dst[:] = prelu(dst[:], weights[:])   (dev_guide_prelu: "dst = src if src > 0, src * weights
//            otherwise"; the f32 weights broadcast by the mask like src1)
// The eltwise algorithms, x the value before the op (oneDNN's dev_guide_eltwise, forward formulas):
//   relu      x > 0 ? x : alpha * x              clip      min(beta, max(alpha, x))
//   linear    alpha * x + beta                   round     nearest integer, ties to even
//   tanh      tanh(x)                            logistic  1 / (1 + e^-x)
//   swish     x / (1 + e^(-alpha * x))           hardswish x * min(max(x + 3, 0), 6) / 6
//   gelu_tanh 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//   gelu_erf  0.5 x (1 + erf(x / sqrt(2)))       elu       x > 0 ? x : alpha * (e^x - 1)
//   exp       e^x      square x^2      abs |x|      sqrt sqrt(x)
//   soft_relu (1 / alpha) log(1 + e^(alpha x))   log       log_e x
//   hardsigmoid  max(0, min(1, alpha x + beta))  mish      x tanh(log_e(1 + e^x))
//   hardswish_ab x max(0, min(1, alpha x + beta))   (current oneDNN's hardswish; `hardswish` is 2.6's fixed form)
//   pow       alpha x^beta
// Canonical text (the descriptor's po= key): the ops joined by '+', each its name then ':'-separated
// parameters: relu[:alpha] clip:alpha:beta linear:alpha[:beta] swish[:alpha] elu[:alpha] soft_relu[:alpha]
// hardsigmoid:alpha:beta hardswish_ab:alpha:beta pow:alpha:beta, the others bare; sum[:scale[:zero_point]];
// add|mul|max|min|sub|div:per_tensor|per_oc|full[:dtype] (dtype f32 by default, or s8 u8 s32 bf16 f16);
// prelu:per_tensor|per_oc|full. Omitted trailing parameters take their defaults (relu 0, linear beta 0,
// swish 1, elu 1, soft_relu 1, sum 1:0, operand f32), and print omits them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace convcheck {

struct ConvDescriptor;

enum class PostOpKind : int { eltwise = 0, sum = 1, binary = 2, prelu = 3 };
enum class EltwiseAlgorithm : int {
    relu, clip, linear, round, tanh, logistic, swish, hardswish, gelu_tanh, gelu_erf, elu, exp, square, abs, sqrt,
    soft_relu, log, hardsigmoid, hardswish_ab, mish, pow
};
enum class BinaryAlgorithm : int { add, mul, max, min, sub, div };
// The binary operand's shape: one value, one per output channel (o), or dst's full shape.
enum class OperandBroadcast : int { per_tensor, per_oc, full };
// The data type a binary operand is stored in (its values are exact in it); the values are the ABI's
// convcheck_dtype values.
enum class OperandType : int { f32 = 0, f16 = 1, bf16 = 2, u8 = 4, s8 = 5, s32 = 6 };

struct PostOp {
    PostOpKind kind = PostOpKind::eltwise;
    EltwiseAlgorithm eltwise = EltwiseAlgorithm::relu;  // kind eltwise
    BinaryAlgorithm binary = BinaryAlgorithm::add;      // kind binary
    OperandBroadcast broadcast = OperandBroadcast::per_tensor;  // kinds binary and prelu
    OperandType operand_type = OperandType::f32;                // kind binary (prelu's weights are f32)
    float alpha = 0.0f, beta = 0.0f;  // eltwise parameters (relu's slope, clip's bounds, linear's a, b, ...)
    float scale = 1.0f;               // sum
    std::int32_t zero_point = 0;      // sum
    bool operator==(const PostOp& other) const;
};

std::string_view to_string(EltwiseAlgorithm a);
std::string_view to_string(BinaryAlgorithm a);
std::string_view to_string(OperandBroadcast b);
std::string_view to_string(OperandType t);
// Bytes of one operand value of type t.
int size_of(OperandType t);
// Whether kind k reads an operand (binary's src1, prelu's weights).
bool has_operand(PostOpKind k);
// One op's canonical text ("relu", "clip:0:6", "sum:0.5", "add:per_oc"), and the chain's ('+'-joined).
std::string to_string(const PostOp& op);
std::string post_ops_text(const std::vector<PostOp>& ops);
// Parses the chain's text; throws ConvError naming "po", the op and the rule.
std::vector<PostOp> parse_post_ops(std::string_view text);

// Throws ConvError for the first rule the chain breaks: post-ops on the forward pass only; at most 32 ops
// (oneDNN's limit); at most one sum (dst holds one prior value); every parameter finite; clip's
// alpha <= beta; soft_relu's alpha not 0 (it divides by alpha); parameters only where the algorithm takes
// them (0 elsewhere).
void validate_post_ops(const ConvDescriptor& d);

// Elements of a binary op's operand or a prelu's weights for descriptor d: 1, out_channels, or dst's elements
// (0 for the other kinds).
std::int64_t operand_elements(const ConvDescriptor& d, const PostOp& op);
bool has_sum(const std::vector<PostOp>& ops);

}  // namespace convcheck
