// Each operation's plugin entry points, called in an isolated child (isolation.hpp): the buffers
// the operation hands the plugin, its query and its execution. A new operation adds its
// XxxExecution and execute_xxx here and one file xxx_calls.cpp (docs/adding-an-operation.md).
#pragma once

#include <memory>

#include "convcheck/abi/abi_post_ops.hpp"
#include "convcheck/abi/abi_scales.hpp"
#include "convcheck/runner/isolation.hpp"

namespace convcheck::runner {

// What every operation's execution has besides its descriptor and buffers: the child's limits and,
// for bench, the untimed warmups and the timed repeats.
struct OperationExecution : ExecutionLimits {
    int warmups = 0, repeats = 1;
};

// One execution of one discrete convolution: create, conv_query, then the execution (warmups +
// repeats times, the repeats timed), destroy.
// A plugin with a plan (ABI 1.2) runs through it: conv_prepare with the weights and bias,
// conv_plan_describe, conv_plan_execute (the timed calls: planning is timed apart, prepare_ms),
// and, when one_shot_dst is given, the one-shot conv_execute into it, whose outputs must then be the
// plan's, bit for bit (any NaN equals any NaN): else the outcome is paths_differ. A plugin without a
// plan runs conv_execute. (conv/calls.cpp)
struct ConvExecution : OperationExecution {
    convcheck_conv_desc desc{};
    const GuardedBuffer* src = nullptr;
    const GuardedBuffer* weights = nullptr;
    const GuardedBuffer* bias = nullptr;  // empty when !has_bias
    const GuardedBuffer* dst = nullptr;
    const GuardedBuffer* one_shot_dst = nullptr;  // dst-sized, filled like dst; only read with a plan
    bool query_only = false;  // create, conv_query, destroy: ok when the backend supports the case (no buffers needed)
    bool weights_at_prepare = true;  // with a plan: conv_prepare gets the weights and bias (else only execute does)
    // ABI 1.6 post-ops: the chain desc.next points to (held here), each op's operand (NULL for ops without),
    // and for a sum dst_prev, copied into dst (and the one-shot dst) before every execute.
    std::shared_ptr<AbiPostOps> post_ops;
    std::shared_ptr<AbiScales> scales;  // ABI 1.7: the scales extension, when the case has scales
    std::vector<const GuardedBuffer*> operands;
    const GuardedBuffer* prior_dst = nullptr;
};
ChildOutcome execute_conv(const Plugin& plugin, const InstanceOptions& options, const ConvExecution& e);
// The arguments of one forward-shaped execute (conv, transposed): src, weights, bias (NULL when not given)
// and dst, and the report's implementation buffer for the plugin to name what it ran. (conv/calls.cpp)
convcheck_conv_args conv_args(const GuardedBuffer* src, const GuardedBuffer* weights, const GuardedBuffer* bias,
                              const GuardedBuffer* dst, child::Report& r);

// One backward pass of one discrete convolution (desc.prop_kind BACKWARD_DATA or BACKWARD_WEIGHTS;
// plugin.h, convcheck_conv_args): create, conv_query, conv_execute (warmups + repeats times, the
// repeats timed), destroy. The inputs are
// read-only: backward data reads diff_dst (passed in args.dst) and weights and writes diff_src;
// backward weights reads src and diff_dst and writes diff_weights, and diff_bias when has_bias.
// Every other buffer is NULL. The pass runs through the one-shot conv_execute (a plan is prepared
// with the weights the forward pass reads). (backward/calls.cpp)
struct ConvBackwardExecution : OperationExecution {
    convcheck_conv_desc desc{};
    const GuardedBuffer* src = nullptr;           // backward weights
    const GuardedBuffer* weights = nullptr;       // backward data
    const GuardedBuffer* diff_dst = nullptr;      // both
    const GuardedBuffer* diff_src = nullptr;      // backward data's output
    const GuardedBuffer* diff_weights = nullptr;  // backward weights' output
    const GuardedBuffer* diff_bias = nullptr;     // backward weights' output when has_bias
};
ChildOutcome execute_conv_backward(const Plugin& plugin, const InstanceOptions& options, const ConvBackwardExecution& e);

// One transposed convolution (ABI 1.3, plugin.h's convcheck_conv_transposed_desc): create,
// conv_transposed_query, conv_transposed_execute (warmups + repeats times, the repeats timed) with src,
// weights, bias (empty when !has_bias) and dst in a convcheck_conv_args, destroy.
// (transposed/calls.cpp)
struct ConvTransposedExecution : OperationExecution {
    convcheck_conv_transposed_desc desc{};
    const GuardedBuffer* src = nullptr;
    const GuardedBuffer* weights = nullptr;
    const GuardedBuffer* bias = nullptr;
    const GuardedBuffer* dst = nullptr;
};
ChildOutcome execute_conv_transposed(const Plugin& plugin, const InstanceOptions& options,
                                     const ConvTransposedExecution& e);

// The same for one CC layer (theta empty for analytic kernels): cc_query, cc_execute. (cc/calls.cpp)
struct CcExecution : OperationExecution {
    convcheck_cc_desc desc{};
    const GuardedBuffer* src = nullptr;
    const GuardedBuffer* theta = nullptr;
    const GuardedBuffer* bias = nullptr;
    const GuardedBuffer* dst = nullptr;
};
ChildOutcome execute_cc(const Plugin& plugin, const InstanceOptions& options, const CcExecution& e);

// The CC layer's backward pass (ABI 1.4, convcheck_cc_backward_args): create, cc_backward_query,
// cc_backward_execute (warmups + repeats times, the repeats timed), destroy. Inputs src, theta (empty for
// analytic kernels) and diff_dst, read-only; outputs diff_src, diff_theta (kernel=net), diff_bias
// (has_bias). (cc_backward/calls.cpp)
struct CcBackwardExecution : OperationExecution {
    convcheck_cc_desc desc{};
    const GuardedBuffer* src = nullptr;
    const GuardedBuffer* theta = nullptr;
    const GuardedBuffer* diff_dst = nullptr;
    const GuardedBuffer* diff_src = nullptr;
    const GuardedBuffer* diff_theta = nullptr;
    const GuardedBuffer* diff_bias = nullptr;
};
ChildOutcome execute_cc_backward(const Plugin& plugin, const InstanceOptions& options, const CcBackwardExecution& e);

}  // namespace convcheck::runner
