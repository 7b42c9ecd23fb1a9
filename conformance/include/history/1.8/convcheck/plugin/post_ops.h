/* convcheck plugin ABI, part of plugin.h (include that): 1.6, fused post-ops of the forward discrete
 * convolution (convcheck/plugin/conv.h). A float forward convolution whose descriptor's extension chain holds
 * one convcheck_post_ops: a list of operations applied, in order, to every output after the bias and before
 * the one rounding to dst's type, as oneDNN's post-ops attribute defines them (docs/post-ops.md):
 *   ELTWISE  dst = eltwise(dst)                      (convcheck_eltwise_algorithm, alpha, beta)
 *   SUM      dst = dst + scale * (dst_prev - zero_point)   dst_prev: dst's content when the call begins
 *   BINARY   dst = binary(dst, operand)              (convcheck_binary_algorithm, an operand of type
 *                                                     operand_dtype: f32 before 1.7)
 *   PRELU    dst = dst > 0 ? dst : weights * dst     (1.7; f32 weights, shaped like a binary operand)
 * The runner sends such a case only to a plugin built against 1.6 or later that claims every op of the
 * chain in plugin_info (post_op_kinds, eltwise_algorithms, binary_algorithms), and a case with PRELU, an
 * eltwise algorithm from SOFT_RELU on or an operand not F32 only to one of 1.7 or later; a plugin that claims
 * an op may still decline a case at query (a parameter, an operand's type, a combination it lacks), naming it.
 *
 * Buffers (convcheck_conv_args, 1.6):
 *   post_op_operands[k] is op k's operand when op k is BINARY (its values in operand_dtype) or PRELU (its
 *     weights, f32), else NULL; an array of `count` pointers, each to values of that type: PER_TENSOR one
 *     value, PER_OC one per output channel (indexed by the output
 *     channel oc in [0, out_channels), not by its index in its group), FULL one per dst element, dense in
 *     dst's data format ([N][O][x...] for NCX, [N][x...][O] for NXC; dst's strides do not apply).
 *     Runner-owned, read-only, valid during the execute call, like src.
 *   With a SUM in the chain, dst is an input as well as the output: it holds dst_prev when the call begins
 *     (in dst's dtype and layout), and the runner restores it before every execute of a plan. */
#ifndef CONVCHECK_PLUGIN_POST_OPS_H
#define CONVCHECK_PLUGIN_POST_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "convcheck/plugin/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one post-op is (convcheck_post_op.kind); plugin_info.post_op_kinds claims CONVCHECK_BIT(kind). */
typedef enum {
    CONVCHECK_POST_OP_ELTWISE = 0,
    CONVCHECK_POST_OP_SUM = 1,
    CONVCHECK_POST_OP_BINARY = 2,
    CONVCHECK_POST_OP_PRELU = 3 /* 1.7 */
} convcheck_post_op_kind;

/* The eltwise algorithms, x the value before the op (oneDNN's dev_guide_eltwise forward formulas):
 *   RELU x > 0 ? x : alpha x;  CLIP min(beta, max(alpha, x));  LINEAR alpha x + beta;  ROUND to the nearest
 *   integer, ties to even;  TANH;  LOGISTIC 1 / (1 + e^-x);  SWISH x / (1 + e^(-alpha x));
 *   HARDSWISH x min(max(x + 3, 0), 6) / 6;  GELU_TANH 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
 *   GELU_ERF 0.5 x (1 + erf(x / sqrt 2));  ELU x > 0 ? x : alpha (e^x - 1);  EXP e^x;  SQUARE x^2;  ABS |x|;
 *   SQRT sqrt(x).  1.7: SOFT_RELU (1 / alpha) log(1 + e^(alpha x)), alpha != 0;  LOG log_e x;
 *   HARDSIGMOID max(0, min(1, alpha x + beta));  HARDSWISH_AB x max(0, min(1, alpha x + beta)) (current
 *   oneDNN's hardswish; HARDSWISH is oneDNN 2.6's fixed form);  MISH x tanh(log(1 + e^x));  POW alpha x^beta.
 *   Parameters an algorithm does not take are 0. */
typedef enum {
    CONVCHECK_ELTWISE_RELU = 0,
    CONVCHECK_ELTWISE_CLIP = 1,
    CONVCHECK_ELTWISE_LINEAR = 2,
    CONVCHECK_ELTWISE_ROUND = 3,
    CONVCHECK_ELTWISE_TANH = 4,
    CONVCHECK_ELTWISE_LOGISTIC = 5,
    CONVCHECK_ELTWISE_SWISH = 6,
    CONVCHECK_ELTWISE_HARDSWISH = 7,
    CONVCHECK_ELTWISE_GELU_TANH = 8,
    CONVCHECK_ELTWISE_GELU_ERF = 9,
    CONVCHECK_ELTWISE_ELU = 10,
    CONVCHECK_ELTWISE_EXP = 11,
    CONVCHECK_ELTWISE_SQUARE = 12,
    CONVCHECK_ELTWISE_ABS = 13,
    CONVCHECK_ELTWISE_SQRT = 14,
    CONVCHECK_ELTWISE_SOFT_RELU = 15,    /* 1.7 */
    CONVCHECK_ELTWISE_LOG = 16,          /* 1.7 */
    CONVCHECK_ELTWISE_HARDSIGMOID = 17,  /* 1.7 */
    CONVCHECK_ELTWISE_HARDSWISH_AB = 18, /* 1.7 */
    CONVCHECK_ELTWISE_MISH = 19,         /* 1.7 */
    CONVCHECK_ELTWISE_POW = 20           /* 1.7 */
} convcheck_eltwise_algorithm;

/* The binary algorithms, dst op operand: ADD, MUL, MAX, MIN, SUB (dst - operand), DIV (dst / operand). */
typedef enum {
    CONVCHECK_BINARY_ADD = 0,
    CONVCHECK_BINARY_MUL = 1,
    CONVCHECK_BINARY_MAX = 2,
    CONVCHECK_BINARY_MIN = 3,
    CONVCHECK_BINARY_SUB = 4,
    CONVCHECK_BINARY_DIV = 5
} convcheck_binary_algorithm;

/* A binary operand's shape (see post_op_operands above). */
typedef enum {
    CONVCHECK_OPERAND_PER_TENSOR = 0,
    CONVCHECK_OPERAND_PER_OC = 1,
    CONVCHECK_OPERAND_FULL = 2
} convcheck_operand_broadcast;

/* One post-op. Fields a kind does not use are 0 (scale 1). */
typedef struct {
    size_t struct_size;
    int32_t kind;              /* convcheck_post_op_kind */
    int32_t algorithm;         /* ELTWISE: convcheck_eltwise_algorithm; BINARY: convcheck_binary_algorithm */
    float alpha, beta;         /* ELTWISE's parameters, finite */
    float scale;               /* SUM's scale, finite */
    int32_t zero_point;        /* SUM's zero point */
    int32_t operand_broadcast; /* BINARY, PRELU: convcheck_operand_broadcast */
    /* 1.7: BINARY's operand type, a convcheck_dtype: F32, F16, BF16, U8, S8 or S32 (each value exact in it; the
     * op reads it as that value). Default when struct_size does not cover it: F32. */
    int32_t operand_dtype;
} convcheck_post_op;

/* The chain: tag CONVCHECK_EXTENSION_POST_OPS. Runner-owned, read-only, valid as the descriptor that holds
 * it (ops too). count in [1, 32]; at most one SUM. */
typedef struct {
    convcheck_extension header; /* struct_size, tag, next */
    int64_t count;
    const convcheck_post_op* ops;
} convcheck_post_ops;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_POST_OPS_H */
