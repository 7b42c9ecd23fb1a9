// A descriptor's post-op chain (core/include/convcheck/core/post_ops.hpp) <-> the ABI's post-ops extension
// (1.6, convcheck/plugin/post_ops.h).
#pragma once

#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/plugin.h"

namespace convcheck::runner {

// The extension and its ops together: a descriptor's next points into this object, which therefore is
// held by pointer (neither copied nor moved once attached).
struct AbiPostOps {
    convcheck_post_ops extension{};
    std::vector<convcheck_post_op> ops;
};
// Fills holder with d's chain and puts it first on desc's extension chain (desc.next); nothing when d has none.
void attach_post_ops(const ConvDescriptor& d, convcheck_conv_desc& desc, AbiPostOps& holder);
// The post-ops extension of desc's chain as the core's chain: empty when desc has none. Throws ConvError for
// a malformed extension (a count out of [1, 32], NULL ops, an unknown kind, algorithm or broadcast) and for
// any other extension on the chain (the quantization extension is read by quantized_from_abi).
std::vector<PostOp> post_ops_from_abi(const convcheck_conv_desc& desc);
// The ABI's values of one op (kind, algorithm, broadcast), as the two enums share their order.
convcheck_post_op to_abi(const PostOp& op);

}  // namespace convcheck::runner
