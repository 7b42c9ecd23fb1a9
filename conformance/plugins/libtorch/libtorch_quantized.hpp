// The libtorch plugin's quantized (int8) convolution (ABI 1.5; libtorch_quantized.cpp): PyTorch's quantized::convNd
// ops on the QNNPACK engine.
#pragma once

#include <memory>

#include "convcheck/plugin_support.hpp"

namespace convcheck_libtorch {

// The query of a quantized case: supported, or declined with the reason in PyTorch's words.
convcheck_error* quantized_query(const convcheck_conv_desc& desc, convcheck_support* out);

// The plan of a quantized case; num_threads is the runner's (create's), 0 for PyTorch's default.
std::unique_ptr<convcheck_conv_plan> quantized_plan(int num_threads, const convcheck_conv_desc& desc,
                                                    const convcheck_plugin_support::PrepareInputs& inputs);

}  // namespace convcheck_libtorch
