// The reference's fused post-ops (core/include/convcheck/core/post_ops.hpp quotes oneDNN's definitions):
// applied in order, in double, to the exact result of the convolution with its bias, before the one
// rounding to dst's type. oneDNN: "post-ops ... are executed in the order they have been appended"; the
// sum post-op "accumulates the result with the previous dst value": dst = dst + scale * (dst_prev - zp);
// a binary post-op computes dst = binary_op(dst, src1) with src1 broadcast by its mask.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference {

// One case's post-op inputs, canonical: for each op of d.post_ops its operand (binary: per_tensor one
// value, per_oc [O], full dst's NCX order; empty for eltwise and sum), and dst's content before the call
// in NCX order (read by a sum; empty without one).
struct PostOpData {
    std::vector<std::vector<double>> operands;
    std::vector<double> prior_dst;
};

// One eltwise algorithm, one binary algorithm, on doubles, as the definitions read.
double eltwise(const PostOp& op, double x);
double binary(BinaryAlgorithm a, double x, double operand);
// The operand value a binary op reads for output `ncx` (NCX flat index of dst).
double operand_at(const ConvDescriptor& d, const PostOp& op, std::span<const double> operand, std::int64_t ncx);
// Output `ncx`'s value x after the chain; `steps` (when given) receives the value after each op.
double apply_post_ops(const ConvDescriptor& d, const PostOpData& data, std::int64_t ncx, double x,
                      std::vector<double>* steps = nullptr);
// Every output of dst_ncx, in place.
void apply_post_ops(const ConvDescriptor& d, const PostOpData& data, std::span<double> dst_ncx);

// The ABI's operand buffers (f32, conformance/include/convcheck/plugin/post_ops.h): a full operand is dense
// in dst's data format ([N][C][x...] or [N][x...][C]); per_tensor and per_oc are their values in order.
// The element offset of output `ncx`'s operand value in such a buffer.
std::int64_t operand_offset(const ConvDescriptor& d, const PostOp& op, std::int64_t ncx);
// The buffer -> canonical, and canonical -> the buffer.
std::vector<double> operand_to_canonical(const ConvDescriptor& d, const PostOp& op, const float* buffer);
void canonical_to_operand(const ConvDescriptor& d, const PostOp& op, std::span<const double> operand, float* buffer);

}  // namespace convcheck::reference
