// The reference's fused post-ops (core/include/convcheck/core/post_ops.hpp quotes oneDNN's definitions):
// applied in order, in double, to the exact result of the convolution with its bias, before the one
// rounding to dst's type. oneDNN: "post-ops ... are executed in the order they have been appended"; the
// sum post-op "accumulates the result with the previous dst value": dst = dst + scale * (dst_prev - zp);
// a binary post-op computes dst = binary_op(dst, src1) with src1 broadcast by its mask; prelu (dev_guide_prelu)
// "dst = src if src > 0, src * weights otherwise", its weights broadcast by the mask.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/post_op_nan.hpp"

namespace convcheck::reference {

// One case's post-op inputs, canonical: for each op of d.post_ops its operand (binary's src1 or prelu's
// weights: per_tensor one value, per_oc [O], full dst's NCX order; empty for eltwise and sum; each value exact
// in the op's operand type), and dst's content before the call
// in NCX order (read by a sum; empty without one).
struct PostOpData {
    std::vector<std::vector<double>> operands;
    std::vector<double> prior_dst;
};

// What relu, clip, max and min make of a NaN x, one function per policy (core/post_op_nan.hpp quotes the
// standards), and the sign of relu's zero; on a number each is the definition above. The operand b of max and min is never NaN here.
double clip_propagate(double x, double alpha, double beta);        // IEEE 754-2019 minimum(beta, maximum(alpha, x))
double clip_to_lower_bound(double x, double alpha, double beta);   // MINPS(MAXPS(x, alpha), beta): NaN -> alpha
double clip_to_upper_bound(double x, double alpha, double beta);   // MAXPS(MINPS(x, beta), alpha): NaN -> beta
double relu_propagate(double x, double alpha);                     // oneDNN's x > 0 ? x : alpha x: alpha NaN is NaN
double relu_to_zero(double x, double alpha);                       // MAXPS(x, 0) where alpha is 0: NaN -> 0 (a slope: NaN)
double relu_plus_zero(double r, double alpha);                     // relu's result r as MAXPS(x, 0) gives it: a zero is +0
double maximum(double x, double b);          // IEEE 754-2019 maximum: NaN if either operand is a NaN
double maximum_number(double x, double b);   // IEEE 754-2019 maximumNumber (C fmax): the number
double minimum(double x, double b);          // IEEE 754-2019 minimum: NaN if either operand is a NaN
double minimum_number(double x, double b);   // IEEE 754-2019 minimumNumber (C fmin): the number
// One eltwise algorithm, one binary algorithm, on doubles, as the definitions read; relu, clip, max and min
// under the NaN policy `nan` (by default every NaN propagates).
double eltwise(const PostOp& op, double x, const PostOpNanPolicy& nan = {});
double binary(BinaryAlgorithm a, double x, double operand, const PostOpNanPolicy& nan = {});
double prelu(double x, double weight);
// The operand value a binary op reads for output `ncx` (NCX flat index of dst).
double operand_at(const ConvDescriptor& d, const PostOp& op, std::span<const double> operand, std::int64_t ncx);
// Output `ncx`'s value x after the chain; `steps` (when given) receives the value after each op.
// (relu, clip, max and min under the NaN policy `nan`).
double apply_post_ops(const ConvDescriptor& d, const PostOpData& data, std::int64_t ncx, double x,
                      std::vector<double>* steps = nullptr, const PostOpNanPolicy& nan = {});
// Every output of dst_ncx, in place.
void apply_post_ops(const ConvDescriptor& d, const PostOpData& data, std::span<double> dst_ncx,
                    const PostOpNanPolicy& nan = {});

// The ABI's operand buffers (conformance/include/convcheck/plugin/post_ops.h), each value in the op's operand
// type (f32 for prelu's weights): a full operand is dense in dst's data format ([N][C][x...] or [N][x...][C]);
// per_tensor and per_oc are their values in order.
// The element offset of output `ncx`'s operand value in such a buffer.
std::int64_t operand_offset(const ConvDescriptor& d, const PostOp& op, std::int64_t ncx);
// The buffer -> canonical, and canonical -> the buffer.
std::vector<double> operand_to_canonical(const ConvDescriptor& d, const PostOp& op, const void* buffer);
void canonical_to_operand(const ConvDescriptor& d, const PostOp& op, std::span<const double> operand, void* buffer);
// One value of type t at element i of a buffer, exactly; and the store of a value exact in t.
double load_operand(const void* buffer, OperandType t, std::int64_t i);
void store_operand(void* buffer, OperandType t, std::int64_t i, double value);

}  // namespace convcheck::reference
