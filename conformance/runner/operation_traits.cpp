// THE table of operations (operation_traits.hpp). One entry per operation or pass; the functions
// it names live beside their operation (conv_*.cpp, cc_*.cpp, conv_backward_*.cpp).
#include "convcheck/runner/operation_traits.hpp"

#include <stdexcept>

#include "case_pipeline.hpp"
#include "backward/operation.hpp"
#include "cc_backward/operation.hpp"
#include "conv/operation.hpp"
#include "quantized/operation.hpp"
#include "transposed/operation.hpp"
#include "convcheck/runner/operation_jobs.hpp"

namespace convcheck::runner {

namespace {

using namespace detail;

// The backward passes of discrete convolution (docs/passes.md): exact and bound mode. A "conv:"
// descriptor with dir=: conv_read chooses the pass, so they share conv's prefix and reader; both
// passes have the same functions, which read the pass from the descriptor.
constexpr OperationTraits backward_pass(Op op, const char* name, const char* words) {
    return {.op = op, .name = name, .words = words, .claim = CONVCHECK_OP_CONV, .prefix = "conv", .read = conv_read,
            .descriptor = conv_descriptor, .broken_rule = conv_broken_rule, .refused_entry = nullptr,
            .validate = conv_validate, .pass_unclaimed = conv_pass_unclaimed, .unclaimed = backward_unclaimed,
            .mode_not_applicable = backward_mode_not_applicable, .output_dtype = conv_output_dtype,
            .memory = conv_memory, .check_invalid = nullptr, .check = check_conv_backward, .smaller = conv_smaller,
            .bundle_arrays = backward_bundle_arrays, .benchdnn = conv_benchdnn,
            .output_element = backward_output_element, .time = time_backward, .macs = conv_macs,
            .design_geometry = conv_design_geometry, .features = conv_features};
}

const OperationTraits kOperations[] = {
    {.op = Op::conv, .name = "conv", .words = "discrete convolution", .claim = CONVCHECK_OP_CONV,
     .prefix = "conv", .read = conv_read, .descriptor = conv_descriptor, .broken_rule = conv_broken_rule,
     .refused_entry = nullptr, .validate = conv_validate, .pass_unclaimed = conv_pass_unclaimed, .unclaimed = conv_unclaimed, .mode_not_applicable = nullptr,
     .output_dtype = conv_output_dtype, .memory = conv_memory, .check_invalid = check_conv_invalid, .check = check_conv,
     .smaller = conv_smaller, .bundle_arrays = conv_bundle_arrays, .benchdnn = conv_benchdnn,
     .output_element = conv_output_element, .time = time_conv, .macs = conv_macs,
     .design_geometry = conv_design_geometry, .features = conv_features},
    {.op = Op::cc, .name = "cc", .words = "continuous convolution", .claim = CONVCHECK_OP_CC,
     .prefix = "cc", .read = cc_read, .descriptor = cc_descriptor, .broken_rule = nullptr,
     .refused_entry = cc_refused_entry, .validate = cc_validate, .pass_unclaimed = nullptr, .unclaimed = nullptr,
     .mode_not_applicable = cc_mode_not_applicable, .output_dtype = cc_output_dtype, .memory = cc_memory,
     .check_invalid = nullptr, .check = check_cc,
     .smaller = cc_smaller, .bundle_arrays = cc_bundle_arrays, .benchdnn = cc_benchdnn,
     .output_element = cc_output_element, .time = nullptr, .macs = nullptr, .design_geometry = nullptr,
     .features = cc_features},
    backward_pass(Op::conv_bwd_data, "conv_bwd_data", "backward data of discrete convolution"),
    backward_pass(Op::conv_bwd_weights, "conv_bwd_weights", "backward weights of discrete convolution"),
    // transposed convolution (docs/transposed.md): a "deconv:" descriptor (benchdnn's deconvolution driver),
    // exact, bound and probe mode, and invalid mode (the invalid_transposed suite); not in the
    // discrete-convolution design
    {.op = Op::conv_transposed, .name = "conv_transposed", .words = "transposed convolution",
     .claim = CONVCHECK_OP_CONV_TRANSPOSED, .prefix = "deconv", .read = transposed_read,
     .descriptor = transposed_descriptor, .broken_rule = transposed_broken_rule, .refused_entry = nullptr,
     .validate = transposed_validate, .pass_unclaimed = nullptr, .unclaimed = transposed_unclaimed,
     .mode_not_applicable = transposed_mode_not_applicable, .output_dtype = transposed_output_dtype,
     .memory = transposed_memory, .check_invalid = check_transposed_invalid, .check = check_conv_transposed,
     .smaller = transposed_smaller, .bundle_arrays = transposed_bundle_arrays, .benchdnn = transposed_benchdnn,
     .output_element = transposed_output_element, .time = time_transposed, .macs = transposed_macs,
     .design_geometry = nullptr, .features = transposed_features},
    // the CC layer's backward pass (docs/cc-backward.md): a "cc:" descriptor with dir=bwd (cc_read chooses
    // the entry), ABI 1.4's cc_backward_query/cc_backward_execute; bound and probe mode; not benched
    {.op = Op::cc_backward, .name = "cc_backward", .words = "the backward pass of continuous convolution",
     .claim = CONVCHECK_OP_CC_BACKWARD, .prefix = "cc", .read = cc_read, .descriptor = cc_descriptor,
     .broken_rule = nullptr, .refused_entry = cc_refused_entry, .validate = cc_validate,
     .pass_unclaimed = nullptr, .unclaimed = cc_backward_unclaimed, .mode_not_applicable = cc_backward_mode_not_applicable,
     .output_dtype = cc_output_dtype, .memory = cc_backward_memory, .check_invalid = nullptr,
     .check = check_cc_backward, .smaller = cc_smaller, .bundle_arrays = cc_backward_bundle_arrays, .benchdnn = cc_benchdnn,
     .output_element = cc_backward_output_element, .time = nullptr, .macs = nullptr, .design_geometry = nullptr,
     .features = cc_features},
    // quantized (integer) convolution (docs/quantized.md): a "qconv:" descriptor, ABI 1.5's integer dtypes and
    // quantization extension through conv_query/conv_execute; exact and bound mode, determinism mode on its
    // integer outputs; not benched, no bundle arrays, not in the design
    {.op = Op::conv_quantized, .name = "conv_quantized", .words = "quantized convolution", .claim = CONVCHECK_OP_CONV,
     .prefix = "qconv", .read = quantized_read, .descriptor = quantized_descriptor, .broken_rule = nullptr,
     .refused_entry = quantized_refused_entry, .validate = quantized_validate, .pass_unclaimed = nullptr,
     .unclaimed = quantized_unclaimed, .mode_not_applicable = quantized_mode_not_applicable,
     .output_dtype = quantized_output_dtype, .memory = quantized_memory, .check_invalid = nullptr,
     .check = check_quantized, .smaller = quantized_smaller, .bundle_arrays = nullptr, .benchdnn = quantized_benchdnn,
     .output_element = quantized_output_element, .time = nullptr, .macs = quantized_macs, .design_geometry = nullptr,
     .features = quantized_features, .output_bytes = quantized_output_bytes, .output_value = quantized_output_value},
};

}  // namespace

std::span<const OperationTraits> operations() { return kOperations; }

const OperationTraits& operation(Op op) {
    for (const OperationTraits& t : kOperations)
        if (t.op == op) return t;
    throw std::logic_error("no operation traits for op " + std::to_string(static_cast<int>(op)));
}

const OperationTraits& operation_of_descriptor(const std::string& text) {
    for (const OperationTraits& t : kOperations)
        if (text.starts_with(std::string(t.prefix) + ":")) return t;
    return kOperations[0];
}

bool is_unclaimed_pass(const PluginInfo& info, Op op) {
    const OperationTraits& t = operation(op);
    const OperationTraits& first = operation_of_descriptor(std::string(t.prefix) + ":");
    return first.claim != t.claim && (info.operations & first.claim) && !(info.operations & t.claim);
}

std::string unclaimed_operation(const PluginInfo& info, Op op) {
    const OperationTraits& t = operation(op);
    if (!(info.operations & t.claim)) return std::string("the plugin does not claim ") + t.words;
    return "";
}

}  // namespace convcheck::runner
