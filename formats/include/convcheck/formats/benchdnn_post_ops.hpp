// benchdnn's --attr-post-ops (knobs_attr.md; parser.cpp str2attr_post_ops, dnn_types.cpp kind_table) as the
// descriptor's po= chain (core/post_ops.hpp) where the mapping is exact; everything else a skip reason naming
// the entry.
//
// Mapped, entries joined by '+':
//   SUM[:SCALE[:ZERO_POINT[:DATA_TYPE]]]   sum:scale:zero_point; DATA_TYPE only when it is dst's own
//   ELTWISE[:ALPHA[:BETA]]                 the eltwise op with benchdnn's defaults (alpha 0, beta 0): `relu` is
//                                          relu:0, `swish` swish:0, `linear:2` linear:2:0; a parameter the
//                                          algorithm does not read is dropped (oneDNN ignores it); the
//                                          `eltwise_` prefix and the `_dst` (use_dst_for_bwd) forms compute the
//                                          same forward formula; clip_v2 is clip's forward formula
//   BINARY:f32[:MASK_INPUT]                add, mul, max, min, sub, div; the mask (a number or common, per_oc,
//                                          per_dim_1, per_tensor) over dst's dims {n, oc, spatial...}: after
//                                          dropping dims of size 1, none set is per_tensor, only oc per_oc,
//                                          all full
// Skipped naming the entry: a non-1 eltwise SCALE, log, mish, pow, soft_relu, hardsigmoid, hardswish (current
// oneDNN's takes alpha and beta, convcheck's is oneDNN 2.6's fixed x*min(max(x+3,0),6)/6), prelu, dw, the
// comparison and select binaries, a binary operand not f32, another mask, a TAG or STRIDES for the operand, a
// sum data type other than dst's, a chain convcheck's rules refuse (two sums, clip alpha > beta).
#pragma once

#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

// The chain of `value` (the option's text) for descriptor d (its dims, batch and dst type fixed) into *out; false
// with *reason set when it cannot be mapped exactly.
bool benchdnn_post_ops(const std::string& value, const ConvDescriptor& d, std::vector<PostOp>* out,
                       std::string* reason);

}  // namespace convcheck
