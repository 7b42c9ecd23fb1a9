// A descriptor's post-op chain <-> the ABI's post-ops extension (abi_post_ops.hpp). The core's enums and the
// ABI's share their values (post_ops.hpp, plugin/post_ops.h): a new algorithm is appended to both.
#include "convcheck/abi/abi_post_ops.hpp"

namespace convcheck::runner {

convcheck_post_op to_abi(const PostOp& op) {
    convcheck_post_op a{};
    a.struct_size = sizeof(a);
    a.kind = static_cast<int32_t>(op.kind);
    a.scale = 1.0f;
    switch (op.kind) {
        case PostOpKind::eltwise:
            a.algorithm = static_cast<int32_t>(op.eltwise);
            a.alpha = op.alpha;
            a.beta = op.beta;
            break;
        case PostOpKind::sum:
            a.scale = op.scale;
            a.zero_point = op.zero_point;
            break;
        case PostOpKind::binary:
            a.algorithm = static_cast<int32_t>(op.binary);
            a.operand_broadcast = static_cast<int32_t>(op.broadcast);
            a.operand_dtype = static_cast<int32_t>(op.operand_type);  // OperandType's values are convcheck_dtype's
            break;
        case PostOpKind::prelu: a.operand_broadcast = static_cast<int32_t>(op.broadcast); break;
    }
    return a;
}

void attach_post_ops(const ConvDescriptor& d, convcheck_conv_desc& desc, AbiPostOps& holder) {
    if (d.post_ops.empty()) return;
    holder.ops.clear();
    for (const PostOp& op : d.post_ops) holder.ops.push_back(to_abi(op));
    convcheck_post_ops& e = holder.extension;
    e.header.struct_size = sizeof(e);
    e.header.tag = CONVCHECK_EXTENSION_POST_OPS;
    e.header.next = desc.next;
    e.count = static_cast<int64_t>(holder.ops.size());
    e.ops = holder.ops.data();
    desc.next = &e.header;
}

std::vector<PostOp> post_ops_from_abi(const convcheck_conv_desc& desc) {
    std::vector<PostOp> ops;
    if (desc.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next)) return ops;
    for (const convcheck_extension* x = desc.next; x != nullptr; x = x->next) {
        if (x->tag == CONVCHECK_EXTENSION_SCALES) continue;  // 1.7: read by scales_from_abi
        if (x->tag != CONVCHECK_EXTENSION_POST_OPS)
            throw ConvError("next", "tag " + std::to_string(x->tag),
                            "a float convolution's chain holds only the post-ops and scales extensions (ABI 1.7)");
        if (!ops.empty()) throw ConvError("next", "two post-ops extensions", "a chain holds at most one");
        if (x->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_post_ops, ops))
            throw ConvError("post_ops.struct_size", std::to_string(x->struct_size), "too small for 1.6's fields");
        const auto& e = *reinterpret_cast<const convcheck_post_ops*>(x);
        if (e.count < 1 || e.count > 32 || e.ops == nullptr)
            throw ConvError("post_ops.count", std::to_string(e.count), "1 to 32 ops, with ops not NULL");
        for (int64_t k = 0; k < e.count; ++k) {
            const convcheck_post_op& a = e.ops[k];
            const std::string at = "post_ops.ops[" + std::to_string(k) + "]";
            PostOp op;
            if (a.kind < 0 || a.kind > CONVCHECK_POST_OP_PRELU)
                throw ConvError(at + ".kind", std::to_string(a.kind), "ELTWISE, SUM, BINARY or PRELU");
            op.kind = static_cast<PostOpKind>(a.kind);
            auto broadcast = [&] {
                if (a.operand_broadcast < 0 || a.operand_broadcast > CONVCHECK_OPERAND_FULL)
                    throw ConvError(at + ".operand_broadcast", std::to_string(a.operand_broadcast),
                                    "PER_TENSOR, PER_OC or FULL");
                return static_cast<OperandBroadcast>(a.operand_broadcast);
            };
            if (op.kind == PostOpKind::eltwise) {
                if (a.algorithm < 0 || a.algorithm > CONVCHECK_ELTWISE_POW)
                    throw ConvError(at + ".algorithm", std::to_string(a.algorithm), "a convcheck_eltwise_algorithm");
                op.eltwise = static_cast<EltwiseAlgorithm>(a.algorithm);
                op.alpha = a.alpha;
                op.beta = a.beta;
            } else if (op.kind == PostOpKind::sum) {
                op.scale = a.scale;
                op.zero_point = a.zero_point;
            } else if (op.kind == PostOpKind::prelu) {
                op.broadcast = broadcast();
            } else {
                if (a.algorithm < 0 || a.algorithm > CONVCHECK_BINARY_DIV)
                    throw ConvError(at + ".algorithm", std::to_string(a.algorithm), "a convcheck_binary_algorithm");
                op.binary = static_cast<BinaryAlgorithm>(a.algorithm);
                op.broadcast = broadcast();
                const int32_t t = a.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_post_op, operand_dtype) ? a.operand_dtype
                                                                                                         : CONVCHECK_F32;
                if (t != CONVCHECK_F32 && t != CONVCHECK_F16 && t != CONVCHECK_BF16 && t != CONVCHECK_U8 &&
                    t != CONVCHECK_S8 && t != CONVCHECK_S32)
                    throw ConvError(at + ".operand_dtype", std::to_string(t), "F32, F16, BF16, U8, S8 or S32");
                op.operand_type = static_cast<OperandType>(t);
            }
            ops.push_back(op);
        }
    }
    return ops;
}

}  // namespace convcheck::runner
