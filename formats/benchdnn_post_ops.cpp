// benchdnn's --attr-post-ops as the descriptor's po= chain (benchdnn_post_ops.hpp).
#include "convcheck/formats/benchdnn_post_ops.hpp"

#include "convcheck/formats/benchdnn_mapping.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

namespace convcheck {

namespace {

const std::string kOption = "--attr-post-ops";

std::string lowercase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// kind_table's eltwise names (each also with the "eltwise_" prefix) convcheck computes, and whether the
// algorithm reads alpha and beta (dev_guide_eltwise's forward formulas)
struct EltwiseName {
    const char* name;
    EltwiseAlgorithm algorithm;
    bool alpha, beta;
};
constexpr EltwiseName kEltwise[] = {
    {"relu", EltwiseAlgorithm::relu, true, false},        {"relu_dst", EltwiseAlgorithm::relu, true, false},
    {"clip", EltwiseAlgorithm::clip, true, true},         {"clip_v2", EltwiseAlgorithm::clip, true, true},
    {"clip_v2_dst", EltwiseAlgorithm::clip, true, true},  {"linear", EltwiseAlgorithm::linear, true, true},
    {"round", EltwiseAlgorithm::round, false, false},     {"tanh", EltwiseAlgorithm::tanh, false, false},
    {"tanh_dst", EltwiseAlgorithm::tanh, false, false},   {"logistic", EltwiseAlgorithm::logistic, false, false},
    {"logistic_dst", EltwiseAlgorithm::logistic, false, false},
    {"swish", EltwiseAlgorithm::swish, true, false},      {"gelu_tanh", EltwiseAlgorithm::gelu_tanh, false, false},
    {"gelu_erf", EltwiseAlgorithm::gelu_erf, false, false}, {"elu", EltwiseAlgorithm::elu, true, false},
    {"elu_dst", EltwiseAlgorithm::elu, true, false},      {"exp", EltwiseAlgorithm::exp, false, false},
    {"exp_dst", EltwiseAlgorithm::exp, false, false},     {"square", EltwiseAlgorithm::square, false, false},
    {"abs", EltwiseAlgorithm::abs, false, false},         {"sqrt", EltwiseAlgorithm::sqrt, false, false},
    {"sqrt_dst", EltwiseAlgorithm::sqrt, false, false},
    // current oneDNN's hardswish takes alpha and beta: x max(0, min(1, alpha x + beta)) (convcheck's hardswish_ab)
    {"hardswish", EltwiseAlgorithm::hardswish_ab, true, true},
    {"hardsigmoid", EltwiseAlgorithm::hardsigmoid, true, true},
    {"soft_relu", EltwiseAlgorithm::soft_relu, true, false}, {"srelu", EltwiseAlgorithm::soft_relu, true, false},
    {"log", EltwiseAlgorithm::log, false, false},         {"mish", EltwiseAlgorithm::mish, false, false},
    {"pow", EltwiseAlgorithm::pow, true, true},
};
constexpr std::pair<const char*, BinaryAlgorithm> kBinary[] = {
    {"add", BinaryAlgorithm::add}, {"mul", BinaryAlgorithm::mul}, {"max", BinaryAlgorithm::max},
    {"min", BinaryAlgorithm::min}, {"sub", BinaryAlgorithm::sub}, {"div", BinaryAlgorithm::div},
};

bool fail(std::string* reason, const std::string& entry, const std::string& why) {
    *reason = kOption + ": `" + entry + "`: " + why;
    return false;
}

// The binary operand's broadcast from benchdnn's mask over dst's dims {n, oc, spatial...}: a dim of size 1 is
// the same whether the mask covers it or not.
bool broadcast_of(long long mask, const ConvDescriptor& d, OperandBroadcast* b) {
    const int ndims = d.rank + 2;
    if (mask < 0 || mask >= (1LL << ndims)) return false;
    std::vector<std::int64_t> dims = {d.batch, d.out_channels};
    for (int a = 0; a < d.rank; ++a) dims.push_back(d.output_size(a));
    bool any = false, all = true, only_oc = true;
    for (int i = 0; i < ndims; ++i) {
        if (dims[static_cast<std::size_t>(i)] == 1) continue;
        const bool set = (mask >> i) & 1;
        any = any || set;
        all = all && set;
        if (set && i != 1) only_oc = false;
    }
    if (!any) *b = OperandBroadcast::per_tensor;
    else if (only_oc) *b = OperandBroadcast::per_oc;
    else if (all) *b = OperandBroadcast::full;
    else return false;
    return true;
}

// MASK_INPUT (knobs_attr.md): an integer, or the policies common (0), per_oc and per_dim_1 (1 << 1), per_tensor
// (every dim); false for another policy or an integer benchdnn cannot read.
bool read_mask(const std::string& m, const ConvDescriptor& d, long long* mask) {
    const std::string p = lowercase(m);
    if (!m.empty() && std::all_of(m.begin(), m.end(), [](unsigned char c) { return std::isdigit(c); }))
        return read_benchdnn_integer(m, mask);
    if (p == "common") *mask = 0;
    else if (p == "per_oc" || p == "per_dim_1") *mask = 2;
    else if (p == "per_tensor") *mask = (1LL << (d.rank + 2)) - 1;
    else return false;
    return true;
}

bool binary_entry(const std::string& entry, BinaryAlgorithm alg, const std::vector<std::string>& fields,
                  const ConvDescriptor& d, PostOp* op, std::string* reason) {
    if (fields.size() < 2) return fail(reason, entry, "a binary post-op needs its operand's data type; benchdnn refuses it");
    const std::string dt = benchdnn_dt_name(fields[1], BenchdnnVersion::current);
    bool known = false;
    for (const auto& [name, type] : {std::pair{"f32", OperandType::f32}, {"f16", OperandType::f16}, {"bf16", OperandType::bf16},
                                     {"u8", OperandType::u8}, {"s8", OperandType::s8}, {"s32", OperandType::s32}})
        if (dt == name) op->operand_type = type, known = true;
    if (!known)
        return fail(reason, entry, "a binary operand of type " + fields[1] + "; convcheck's binary operands are f32, f16, "
                                   "bf16, u8, s8 or s32");
    long long mask = 0;  // no MASK_INPUT: common
    if (fields.size() > 2 && !read_mask(fields[2], d, &mask))
        return fail(reason, entry, "the operand policy " + fields[2] + "; convcheck's operands are one value, one per "
                                   "output channel, or one per dst element");
    if (fields.size() > 3 && lowercase(fields[3]) != "any")
        return fail(reason, entry, "an operand memory tag or strides; convcheck's binary operands are dense, in dst's "
                                   "logical order");
    op->kind = PostOpKind::binary;
    op->binary = alg;
    if (!broadcast_of(mask, d, &op->broadcast))
        return fail(reason, entry, "the operand mask " + std::to_string(mask) + " over dst's dims; convcheck's operands "
                                   "are one value, one per output channel, or one per dst element");
    return true;
}

bool entry_op(const std::string& entry, const ConvDescriptor& d, PostOp* op, std::string* reason) {
    const auto fields = split_benchdnn_list(entry, ':');
    std::string kind = lowercase(fields[0]);
    if (kind == "sum") {
        op->kind = PostOpKind::sum;
        long long zp = 0;
        if (fields.size() > 1 && !read_benchdnn_float(fields[1], &op->scale))
            return fail(reason, entry, "a scale benchdnn cannot read");
        if (fields.size() > 2 && (!read_benchdnn_integer(fields[2], &zp) || zp < INT32_MIN || zp > INT32_MAX))
            return fail(reason, entry, "a zero point benchdnn cannot read");
        op->zero_point = static_cast<std::int32_t>(zp);
        if (fields.size() > 3) {
            const std::string dt = benchdnn_dt_name(fields[3], BenchdnnVersion::current);
            if (dt.empty() || dt == "undef") return fail(reason, entry, "a sum data type benchdnn refuses");
            const std::string dst = std::string(to_string(d.dst_dtype()));
            const auto bytes = [](const std::string& t) {
                return t == "f32" || t == "s32" ? 4 : t == "f16" || t == "bf16" ? 2 : t == "f64" ? 8 : 1;
            };
            if (dt != dst && bytes(dt) != bytes(dst))
                return fail(reason, entry, "a sum data type (" + dt + ") of another size than dst's (" + dst +
                                               "): benchdnn skips it as not supported (skip_unimplemented_sum_po: "
                                               "\"Sum must have data type with the same size like dst\")");
            if (dt != dst)
                return fail(reason, entry, "a sum data type (" + dt + ") other than dst's (" + dst +
                                               "); convcheck's sum reads dst's prior content in dst's type");
        }
        return true;
    }
    if (kind == "dw") return fail(reason, entry, "a fused depthwise convolution is not among convcheck's post-ops");
    if (kind == "prelu") {
        // PRELU[:MASK_INPUT] (knobs_attr.md): the weights' mask over dst's dims, an integer or a policy; none: common
        long long mask = 0;
        if (fields.size() > 2) return fail(reason, entry, "prelu takes one argument, its mask; benchdnn refuses more");
        if (fields.size() > 1 && !read_mask(fields[1], d, &mask))
            return fail(reason, entry, "the weights' policy " + fields[1] + "; convcheck's prelu weights are one value, "
                                       "one per output channel, or one per dst element");
        op->kind = PostOpKind::prelu;
        if (!broadcast_of(mask, d, &op->broadcast))
            return fail(reason, entry, "the weights' mask " + std::to_string(mask) + " over dst's dims; convcheck's prelu "
                                       "weights are one value, one per output channel, or one per dst element");
        return true;
    }
    if (kind.starts_with("binary_")) kind = kind.substr(7);
    for (const auto& [name, alg] : kBinary)
        if (kind == name) return binary_entry(entry, alg, fields, d, op, reason);
    for (const char* name : {"eq", "ge", "gt", "le", "lt", "ne", "select"})
        if (kind == name) return fail(reason, entry, "the binary " + kind + " is not among convcheck's post-ops");
    if (kind.starts_with("eltwise_")) kind = kind.substr(8);
    if (kind.ends_with("_use_dst_for_bwd")) kind = kind.substr(0, kind.size() - 16) + "_dst";
    for (const auto& e : kEltwise) {
        if (kind != e.name) continue;
        float alpha = 0.0f, beta = 0.0f;
        if ((fields.size() > 1 && !read_benchdnn_float(fields[1], &alpha)) ||
            (fields.size() > 2 && !read_benchdnn_float(fields[2], &beta)))
            return fail(reason, entry, "an alpha or beta benchdnn cannot read");
        // ELTWISE[:ALPHA[:BETA[:SCALE]]]: benchdnn's parser reads ALPHA and BETA and leaves SCALE unread since
        // oneDNN v3.0 removed the eltwise post-op's scale (commit 80310a05e0); knobs_attr.md: "SCALE is applicable
        // only when output tensor has integer data type". The case benchdnn runs has no scale; nor does this one.
        op->kind = PostOpKind::eltwise;
        op->eltwise = e.algorithm;
        op->alpha = e.alpha ? alpha : 0.0f;
        op->beta = e.beta ? beta : 0.0f;
        if (e.algorithm == EltwiseAlgorithm::clip && !(op->alpha <= op->beta))
            return fail(reason, entry, "clip with alpha > beta; convcheck's clip needs alpha <= beta");
        return true;
    }
    return fail(reason, entry, "a post-op kind benchdnn does not know");
}

}  // namespace

bool benchdnn_post_ops(const std::string& value, const ConvDescriptor& d, std::vector<PostOp>* out,
                       std::string* reason) {
    out->clear();
    if (value.empty()) return true;
    for (const std::string& entry : split_benchdnn_list(value, '+')) {
        PostOp op;
        if (entry.empty()) return fail(reason, entry, "an empty entry; benchdnn refuses it");
        if (!entry_op(entry, d, &op, reason)) return false;
        out->push_back(op);
    }
    ConvDescriptor with = d;
    with.post_ops = *out;
    try {
        validate(with);
    } catch (const std::exception& e) {
        *reason = kOption + "=" + value + ": " + e.what();
        return false;
    }
    return true;
}

}  // namespace convcheck
