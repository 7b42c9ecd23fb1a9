// THE table of operations (operation_traits.hpp). One entry per operation or pass; the functions
// it names live beside their operation (conv_*.cpp, cc_*.cpp).
#include "operation_traits.hpp"

#include <stdexcept>

#include "check_detail.hpp"

namespace convcheck::runner {

namespace {

const OperationTraits kOperations[] = {
    {Op::conv, "conv", "discrete convolution", CONVCHECK_OP_CONV, detail::conv_validate, detail::conv_unclaimed,
     nullptr, detail::conv_output_dtype, conv_memory, detail::check_conv_invalid, detail::check_conv},
    {Op::cc, "cc", "continuous convolution", CONVCHECK_OP_CC, detail::cc_validate, nullptr,
     detail::cc_mode_not_applicable, detail::cc_output_dtype, cc_memory, nullptr, detail::check_cc},
    // the backward passes of discrete convolution (docs/passes.md): exact and bound mode
    {Op::conv_bwd_data, "conv_bwd_data", "backward data of discrete convolution", CONVCHECK_OP_CONV,
     detail::conv_validate, detail::backward_unclaimed, detail::backward_mode_not_applicable, detail::conv_output_dtype,
     conv_memory, nullptr, detail::check_conv_backward},
    {Op::conv_bwd_weights, "conv_bwd_weights", "backward weights of discrete convolution", CONVCHECK_OP_CONV,
     detail::conv_validate, detail::backward_unclaimed, detail::backward_mode_not_applicable, detail::conv_output_dtype,
     conv_memory, nullptr, detail::check_conv_backward},
};

}  // namespace

std::span<const OperationTraits> operations() { return kOperations; }

const OperationTraits& operation(Op op) {
    for (const OperationTraits& t : kOperations)
        if (t.op == op) return t;
    throw std::logic_error("no operation traits for op " + std::to_string(static_cast<int>(op)));
}

std::string unclaimed_operation(const PluginInfo& info, Op op) {
    const OperationTraits& t = operation(op);
    if (!(info.operations & t.claim)) return std::string("the plugin does not claim ") + t.words;
    return "";
}

}  // namespace convcheck::runner
