// The onednn plugin's fused post-ops (onednn_post_ops.hpp). oneDNN 2.6's "Primitive Attributes: Post-ops":
//   eltwise  append_eltwise(scale, alg, alpha, beta): dst = scale * eltwise(dst); the scale is 1 here
//   sum      append_sum(scale, zero_point): dst = scale * (dst_prev - zero_point) + dst, dst_prev being dst's
//            content when the primitive runs (the runner's dst holds it, ABI 1.6)
//   binary   append_binary(alg, src1_desc): dst = binary(dst, src1), src1 broadcast over the dims where its
//            size is 1; passed at execute as DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1
// Every convcheck eltwise algorithm is a oneDNN 2.6 one with the same forward formula (dev_guide_eltwise;
// hardswish is 2.6's x * min(max(x + 3, 0), 6) / 6, alpha and beta unused), every binary one too.
#include "onednn_post_ops.hpp"

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_support.hpp"

namespace support = convcheck_plugin_support;
using dnnl::algorithm;
using dnnl::memory;

namespace convcheck_onednn {

namespace {

algorithm eltwise_algorithm(int32_t a) {
    switch (a) {
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
        default: return algorithm::undef;
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

// The operand over dst's dims {N, O, spatial...}: size 1 where it is broadcast; dense in dst's data format.
memory::desc operand_desc(const convcheck_conv_desc& d, const convcheck_post_op& op) {
    memory::dims dims{1, 1};
    for (int a = 0; a < d.rank; ++a) dims.push_back(1);
    if (op.operand_broadcast == CONVCHECK_OPERAND_PER_OC) dims[1] = d.out_channels;
    if (op.operand_broadcast == CONVCHECK_OPERAND_FULL) {
        dims[0] = d.batch;
        dims[1] = d.out_channels;
        for (int a = 0; a < d.rank; ++a) dims[2 + a] = support::output_size(d, a);
    }
    return memory::desc(dims, memory::data_type::f32, support::dense_strides(dims, support::activation_order(d)));
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
        if (op.kind == CONVCHECK_POST_OP_ELTWISE && eltwise_algorithm(op.algorithm) == algorithm::undef)
            return "oneDNN 2.6 has no eltwise algorithm " + std::to_string(op.algorithm);
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
            chain.append_eltwise(1.0f, eltwise_algorithm(op.algorithm), op.alpha, op.beta);
        else if (op.kind == CONVCHECK_POST_OP_SUM)
            chain.append_sum(op.scale, op.zero_point);
        else
            chain.append_binary(binary_algorithm(op.algorithm), operand_desc(desc, op));
    }
    return chain;
}

void add_post_op_operands(const dnnl::engine& engine, const convcheck_conv_desc& desc, const convcheck_post_ops& ops,
                          const convcheck_conv_args& args, std::unordered_map<int, memory>& call) {
    for (int64_t k = 0; k < ops.count; ++k) {
        if (ops.ops[k].kind != CONVCHECK_POST_OP_BINARY) continue;
        const float* operand = support::post_op_operand(args, k);
        if (operand == nullptr)
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT,
                                       "post_op_operands: binary op " + std::to_string(k) + " has no operand");
        call.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(k)) | DNNL_ARG_SRC_1,
                     memory(operand_desc(desc, ops.ops[k]), engine, const_cast<float*>(operand)));
    }
}

}  // namespace convcheck_onednn
