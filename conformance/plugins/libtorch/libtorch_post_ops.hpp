// The libtorch plugin's fused post-ops and per-tensor dtypes (libtorch_post_ops.cpp): each op of a chain as the
// ATen op of the same formula, applied in order to at::convolution's result; and why each mix of dtypes is
// declined.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "convcheck/plugin_post_ops.hpp"

namespace convcheck_libtorch {

// The post-op kinds and algorithms the plugin claims (plugin_info).
extern const uint32_t kPostOpKinds, kEltwiseAlgorithms, kBinaryAlgorithms;

// "" when the plugin runs the chain on d, else why not in ATen's terms (add_post_ops).
std::string post_ops_accepts(const convcheck_conv_desc& d, const convcheck_post_ops& ops);

// y after the chain: each op as its ATen op on y's dtype, in order. d is the runner's descriptor (the operands'
// and dst's layout), dst_dims its dst dims; args carries the operands and, for a sum, dst_prev in args.dst.
at::Tensor apply_post_ops(const convcheck_conv_desc& d, const convcheck_post_ops& ops, const convcheck_conv_args& args,
                          const std::vector<int64_t>& dst_dims, at::Tensor y);

// "" when d's tensors have one dtype, else why ATen computes no such convolution.
std::string mixed_dtypes_missing(const convcheck_conv_desc& d);

}  // namespace convcheck_libtorch
