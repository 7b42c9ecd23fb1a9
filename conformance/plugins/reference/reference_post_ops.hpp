// The reference plugin's reading of a case's post-op operands (ABI 1.6/1.7): the float and the quantized
// convolution take them the same way.
#pragma once

#include <string>
#include <vector>

#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/reference/post_ops.hpp"

namespace convcheck_reference_plugin {

// Each op's operand in canonical order (empty for an op without one); a PluginError (invalid argument) when the
// args carry none for an op that has one.
inline std::vector<std::vector<double>> post_op_operands(const convcheck::ConvDescriptor& d,
                                                         const convcheck_conv_args& args) {
    std::vector<std::vector<double>> operands;
    for (std::size_t k = 0; k < d.post_ops.size(); ++k) {
        const convcheck::PostOp& op = d.post_ops[k];
        if (!convcheck::has_operand(op.kind)) {
            operands.emplace_back();
            continue;
        }
        const void* operand = convcheck_plugin_support::post_op_operand(args, static_cast<int64_t>(k));
        if (operand == nullptr)
            throw convcheck_plugin_support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT,
                                                        "post_op_operands: op " + std::to_string(k) + " has no operand");
        operands.push_back(convcheck::reference::operand_to_canonical(d, op, operand));
    }
    return operands;
}

}  // namespace convcheck_reference_plugin
