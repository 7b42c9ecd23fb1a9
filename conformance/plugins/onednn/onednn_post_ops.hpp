// The onednn plugin's fused post-ops (ABI 1.6, convcheck/plugin/post_ops.h): the chain as oneDNN 2.6's
// dnnl::post_ops attribute, and the binary operands' memory (onednn_post_ops.cpp).
#pragma once

#include <dnnl.hpp>
#include <string>
#include <unordered_map>

#include "convcheck/plugin.h"

namespace convcheck_onednn {

// "" when the plugin hands this chain to oneDNN (oneDNN itself then accepts or refuses the primitive at
// query), else why not.
std::string post_ops_accepts(const convcheck_conv_desc& desc, const convcheck_post_ops& ops);

// The chain, in order: append_eltwise(1, alg, alpha, beta), append_sum(scale, zero_point), append_binary(alg,
// the operand's memory descriptor over dst's dims, in its data type), append_prelu(mask).
dnnl::post_ops make_post_ops(const convcheck_conv_desc& desc, const convcheck_post_ops& ops);

// Each binary op k's operand (the runner's buffer, described exactly) as DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) |
// DNNL_ARG_SRC_1 in `call`, each prelu's weights as DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_WEIGHTS.
void add_post_op_operands(const dnnl::engine& engine, const convcheck_conv_desc& desc, const convcheck_post_ops& ops,
                          const convcheck_conv_args& args, std::unordered_map<int, dnnl::memory>& call);

bool has_sum(const convcheck_post_ops& ops);

}  // namespace convcheck_onednn
