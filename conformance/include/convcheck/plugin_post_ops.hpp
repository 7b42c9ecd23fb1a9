// For plugins on plugin_support.hpp that take fused post-ops (ABI 1.6, convcheck/plugin/post_ops.h): the
// extension of a descriptor, an execute's operand of op k, and add_post_ops, which lets add_conv's gate pass a
// forward, one-dtype float case whose chain is the post-ops extension alone, once the plugin accepts its ops.
#pragma once

#include <string>
#include <vector>

#include "convcheck/plugin_support.hpp"

namespace convcheck_plugin_support {

// The post-ops extension when it is the whole of the descriptor's chain; NULL otherwise.
inline const convcheck_post_ops* post_ops_of(const convcheck_conv_desc& d) {
    const convcheck_extension* e = extensions(d);
    if (e == nullptr || e->tag != CONVCHECK_EXTENSION_POST_OPS || e->next != nullptr ||
        e->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_post_ops, ops))
        return nullptr;
    return reinterpret_cast<const convcheck_post_ops*>(e);
}

// Op k's operand (a binary op's values in its operand_dtype, a prelu's f32 weights), or NULL when the args do
// not carry one.
inline const void* post_op_operand(const convcheck_conv_args& args, int64_t k) {
    if (args.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_args, post_op_operands) || args.post_op_operands == nullptr)
        return nullptr;
    return args.post_op_operands[k];
}

// A copy of a post-ops extension (or of none) for a plan, which may outlive the runner's descriptor: get() is the
// copy, with no further chain, or NULL.
class PostOpsCopy {
public:
    explicit PostOpsCopy(const convcheck_post_ops* given) {
        if (given == nullptr) return;
        list_.assign(given->ops, given->ops + given->count);
        copy_ = *given;
        copy_.header.next = nullptr;
        copy_.ops = list_.data();
        present_ = true;
    }
    PostOpsCopy(const PostOpsCopy&) = delete;
    PostOpsCopy& operator=(const PostOpsCopy&) = delete;
    const convcheck_post_ops* get() const { return present_ ? &copy_ : nullptr; }

private:
    std::vector<convcheck_post_op> list_;
    convcheck_post_ops copy_{};
    bool present_ = false;
};

// A binary op's operand type (ABI 1.7; F32 when struct_size does not cover it, and for other kinds).
inline int32_t operand_dtype_of(const convcheck_post_op& op) {
    if (op.kind != CONVCHECK_POST_OP_BINARY || op.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_post_op, operand_dtype))
        return CONVCHECK_F32;
    return op.operand_dtype;
}

// Whether op is the eltwise relu, clip or linear: the ops a plugin applying the chain in double after its own
// convolution computes exactly as the reference does (mutants, optimized).
inline bool is_relu_clip_or_linear(const convcheck_post_op& op) {
    return op.kind == CONVCHECK_POST_OP_ELTWISE &&
           (op.algorithm == CONVCHECK_ELTWISE_RELU || op.algorithm == CONVCHECK_ELTWISE_CLIP ||
            op.algorithm == CONVCHECK_ELTWISE_LINEAR);
}

// "" when the plugin runs this chain on this descriptor, else why not (in its library's words).
using PostOpsAccepts = std::string (*)(const convcheck_conv_desc& desc, const convcheck_post_ops& ops);
template <typename Tag>
inline PostOpsAccepts post_ops_accepts = nullptr;
template <typename Tag>
bool post_ops_gate_for(const convcheck_conv_desc& desc, std::string* why) {
    const convcheck_post_ops* ops = post_ops_of(desc);
    if (ops == nullptr) return false;
    convcheck_conv_desc plain = desc;
    plain.next = nullptr;
    *why = beyond_forward_one_dtype(plain, takes_mixed_dtypes<Tag>);
    const bool mixed = plain.dtype == CONVCHECK_DTYPE_MIXED && takes_mixed_dtypes<Tag>;
    if (why->empty() && !mixed && (plain.dtype < CONVCHECK_F32 || plain.dtype > CONVCHECK_BF16))
        *why = "post-ops are taken on f32, f16 and bf16 convolutions";
    if (why->empty()) *why = post_ops_accepts<Tag>(desc, *ops);
    return true;
}
// Call after add_conv<Prepare>: its entries then take post-op cases that `accepts` accepts.
template <PrepareFn Prepare>
void add_post_ops(PostOpsAccepts accepts) {
    post_ops_accepts<PrepareTag<Prepare>> = accepts;
    post_ops_gate<PrepareTag<Prepare>> = post_ops_gate_for<PrepareTag<Prepare>>;
}

}  // namespace convcheck_plugin_support
