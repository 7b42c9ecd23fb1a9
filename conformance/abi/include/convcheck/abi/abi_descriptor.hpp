// The canonical descriptor <-> the ABI's C struct (conformance/include/convcheck/plugin.h).
#pragma once

#include "convcheck/plugin.h"
#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::runner {

convcheck_conv_desc to_abi(const ConvDescriptor& d);
// Reads the fields of ABI 1.0, and the 1.2 strides when struct_size covers them (all zero: dense);
// does not validate (call validate()). Throws ConvError for what the canonical descriptor cannot hold
// (1.2: a dtype other than f32/f16/bf16, dtype not CONVCHECK_DTYPE_MIXED exactly when the per-tensor
// dtypes differ, an unknown pass; an extension other than 1.6's post-ops, which it reads). The bias dtype is read
// only when has_bias. to_abi writes no extension: abi_post_ops.hpp attaches the post-ops.
ConvDescriptor from_abi(const convcheck_conv_desc& desc);

convcheck_cc_desc to_abi(const CcDescriptor& d);
// Reads the fields of ABI 1.0; does not validate (call validate()).
CcDescriptor from_abi(const convcheck_cc_desc& desc);

// 1.3: a transposed convolution (dense tensors; OIX or XIO weights, the forward's).
convcheck_conv_transposed_desc to_abi(const TransposedDescriptor& t);
// Reads every field; does not validate (call validate()). Throws ConvError for what the canonical
// descriptor cannot hold (a dtype, format or extension it does not know, OXI weights).
TransposedDescriptor from_abi(const convcheck_conv_transposed_desc& desc);

// "f32", "f16", "bf16", "f64" (1.5: "u8", "s8", "s32") for a convcheck_dtype value; "unknown(<n>)" otherwise.
std::string abi_dtype_name(int32_t dtype);

}  // namespace convcheck::runner
