// The onednn plugin's fused post-ops (onednn_post_ops.hpp). oneDNN 2.6's "Primitive Attributes: Post-ops":
//   eltwise  append_eltwise(scale, alg, alpha, beta): dst = scale * eltwise(dst); the scale is 1 here
//   sum      append_sum(scale, zero_point): dst = scale * (dst_prev - zero_point) + dst, dst_prev being dst's
//            content when the primitive runs (the runner's dst holds it, ABI 1.6)
//   binary   append_binary(alg, src1_desc): dst = binary(dst, src1), src1 broadcast over the dims where its
//            size is 1; passed at execute as DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1
//   prelu    append_prelu(mask): dst = dst > 0 ? dst : weights * dst, the f32 weights passed at execute as
//            DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_WEIGHTS, their dims dst's where the mask has a bit
// Every convcheck eltwise algorithm to SQRT is a oneDNN 2.6 one with the same forward formula (dev_guide_eltwise;
// hardswish is 2.6's x * min(max(x + 3, 0), 6) / 6, alpha and beta unused), every binary one too. Of the later
// ones 2.6 has log, mish, pow (alpha x^beta) and soft_relu with alpha 1 alone (2.6's eltwise_soft_relu ignores
// alpha: log(1 + e^x)) or -1 (eltwise_logsigmoid, "logsigmoid(s) = soft_relu(s, -1)"); it has no hardsigmoid,
// and its hardswish takes no alpha or beta. The binary operand goes to oneDNN in its own data type.
#include "onednn_post_ops.hpp"

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_support.hpp"

namespace support = convcheck_plugin_support;
using dnnl::algorithm;
using dnnl::memory;

namespace convcheck_onednn {

namespace {

algorithm eltwise_algorithm(const convcheck_post_op& op) {
    switch (op.algorithm) {
        case CONVCHECK_ELTWISE_RELU: return algorithm::eltwise_relu;
        case CONVCHECK_ELTWISE_CLIP: return algorithm::eltwise_clip;
        case CONVCHECK_ELTWISE_LINEAR: return algorithm::eltwise_linear;
        case CONVCHECK_ELTWISE_ROUND: return algorithm::eltwise_round;
        case CONVCHECK_ELTWISE_TANH: return algorithm::eltwise_tanh;
        case CONVCHECK_ELTWISE_LOGISTIC: return algorithm::eltwise_logistic;
        case CONVCHECK_ELTWISE_SWISH: return algorithm::eltwise_swish;
        case CONVCHECK_ELTWISE_HARDSWISH: return algorithm::eltwise_hardswish;
        case CONVCHECK_ELTWISE_GELU_TANH: return algorithm::eltwise_gelu_tanh;
        case CONVCHECK_ELTWISE_GELU_ERF: return algorithm::eltwise_gelu_erf;
        case CONVCHECK_ELTWISE_ELU: return algorithm::eltwise_elu;
        case CONVCHECK_ELTWISE_EXP: return algorithm::eltwise_exp;
        case CONVCHECK_ELTWISE_SQUARE: return algorithm::eltwise_square;
        case CONVCHECK_ELTWISE_ABS: return algorithm::eltwise_abs;
        case CONVCHECK_ELTWISE_SQRT: return algorithm::eltwise_sqrt;
        case CONVCHECK_ELTWISE_LOG: return algorithm::eltwise_log;
        case CONVCHECK_ELTWISE_MISH: return algorithm::eltwise_mish;
        case CONVCHECK_ELTWISE_POW: return algorithm::eltwise_pow;
        case CONVCHECK_ELTWISE_SOFT_RELU:
            if (op.alpha == 1.0f) return algorithm::eltwise_soft_relu;
            if (op.alpha == -1.0f) return algorithm::eltwise_logsigmoid;
            return algorithm::undef;
        default: return algorithm::undef;
    }
}

// Why 2.6 has no eltwise post-op of op's formula, in its library's words.
std::string eltwise_missing(const convcheck_post_op& op) {
    switch (op.algorithm) {
        case CONVCHECK_ELTWISE_SOFT_RELU:
            return "oneDNN 2.6's eltwise_soft_relu ignores alpha (log(1 + e^x), alpha 1) and eltwise_logsigmoid is alpha "
                   "-1; it has no soft_relu with alpha " + std::to_string(op.alpha);
        case CONVCHECK_ELTWISE_HARDSIGMOID: return "oneDNN 2.6 has no eltwise_hardsigmoid";
        case CONVCHECK_ELTWISE_HARDSWISH_AB:
            return "oneDNN 2.6's eltwise_hardswish ignores alpha and beta (x * min(max(x + 3, 0), 6) / 6); it has no "
                   "hardswish with alpha and beta";
        default: return "oneDNN 2.6 has no eltwise algorithm " + std::to_string(op.algorithm);
    }
}

memory::data_type operand_data_type(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F16: return memory::data_type::f16;
        case CONVCHECK_BF16: return memory::data_type::bf16;
        case CONVCHECK_U8: return memory::data_type::u8;
        case CONVCHECK_S8: return memory::data_type::s8;
        case CONVCHECK_S32: return memory::data_type::s32;
        default: return memory::data_type::f32;
    }
}

algorithm binary_algorithm(int32_t a) {
    switch (a) {
        case CONVCHECK_BINARY_ADD: return algorithm::binary_add;
        case CONVCHECK_BINARY_MUL: return algorithm::binary_mul;
        case CONVCHECK_BINARY_MAX: return algorithm::binary_max;
        case CONVCHECK_BINARY_MIN: return algorithm::binary_min;
        case CONVCHECK_BINARY_SUB: return algorithm::binary_sub;
        case CONVCHECK_BINARY_DIV: return algorithm::binary_div;
        default: return algorithm::undef;
    }
}

// The operand (a prelu's weights) over dst's dims {N, O, spatial...}: size 1 where it is broadcast; dense in dst's
// data format, in its own data type (prelu's f32).
memory::desc operand_desc(const convcheck_conv_desc& d, const convcheck_post_op& op) {
    memory::dims dims{1, 1};
    for (int a = 0; a < d.rank; ++a) dims.push_back(1);
    if (op.operand_broadcast == CONVCHECK_OPERAND_PER_OC) dims[1] = d.out_channels;
    if (op.operand_broadcast == CONVCHECK_OPERAND_FULL) {
        dims[0] = d.batch;
        dims[1] = d.out_channels;
        for (int a = 0; a < d.rank; ++a) dims[2 + a] = support::output_size(d, a);
    }
    return memory::desc(dims, operand_data_type(support::operand_dtype_of(op)),
                        support::dense_strides(dims, support::activation_order(d)));
}

// append_prelu's mask: a bit for each dim of dst the weights span.
int prelu_mask(const convcheck_conv_desc& d, const convcheck_post_op& op) {
    if (op.operand_broadcast == CONVCHECK_OPERAND_PER_OC) return 1 << 1;
    if (op.operand_broadcast == CONVCHECK_OPERAND_FULL) return (1 << (d.rank + 2)) - 1;
    return 0;
}

}  // namespace

bool has_sum(const convcheck_post_ops& ops) {
    for (int64_t k = 0; k < ops.count; ++k)
        if (ops.ops[k].kind == CONVCHECK_POST_OP_SUM) return true;
    return false;
}

std::string post_ops_accepts(const convcheck_conv_desc& desc, const convcheck_post_ops& ops) {
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        if (op.kind == CONVCHECK_POST_OP_ELTWISE && eltwise_algorithm(op) == algorithm::undef) return eltwise_missing(op);
        if (op.kind == CONVCHECK_POST_OP_BINARY && binary_algorithm(op.algorithm) == algorithm::undef)
            return "oneDNN 2.6 has no binary algorithm " + std::to_string(op.algorithm);
    }
    // the adaptation's copies are of src, weights and dst alone: a full operand would keep the runner's dst shape,
    // and the copied dst would not hold dst's prior content
    const support::Adaptation a = support::plan_adaptation(
        desc, {desc.data_format, desc.filter_format, false, false, support::PadsRule::onednn});
    if (support::moves_src(desc, a) || support::moves_weights(desc, a) || support::moves_dst(desc, a))
        return "the onednn plugin moves this case's pads (outside oneDNN's rule: padding_l >= 0, padding_r + stride > 0) "
               "into a copy of the data, which it does not do for post-ops";
    return "";
}

dnnl::post_ops make_post_ops(const convcheck_conv_desc& desc, const convcheck_post_ops& ops) {
    dnnl::post_ops chain;
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        if (op.kind == CONVCHECK_POST_OP_ELTWISE)
            chain.append_eltwise(1.0f, eltwise_algorithm(op), op.alpha, op.beta);
        else if (op.kind == CONVCHECK_POST_OP_SUM)
            chain.append_sum(op.scale, op.zero_point);
        else if (op.kind == CONVCHECK_POST_OP_PRELU)
            chain.append_prelu(prelu_mask(desc, op));
        else
            chain.append_binary(binary_algorithm(op.algorithm), operand_desc(desc, op));
    }
    return chain;
}

void add_post_op_operands(const dnnl::engine& engine, const convcheck_conv_desc& desc, const convcheck_post_ops& ops,
                          const convcheck_conv_args& args, std::unordered_map<int, memory>& call) {
    for (int64_t k = 0; k < ops.count; ++k) {
        const int32_t kind = ops.ops[k].kind;
        if (kind != CONVCHECK_POST_OP_BINARY && kind != CONVCHECK_POST_OP_PRELU) continue;
        const void* operand = support::post_op_operand(args, k);
        if (operand == nullptr)
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT,
                                       "post_op_operands: op " + std::to_string(k) + " has no operand");
        const int arg = kind == CONVCHECK_POST_OP_PRELU ? DNNL_ARG_WEIGHTS : DNNL_ARG_SRC_1;
        call.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(k)) | arg,
                     memory(operand_desc(desc, ops.ops[k]), engine, const_cast<void*>(operand)));
    }
}

}  // namespace convcheck_onednn
