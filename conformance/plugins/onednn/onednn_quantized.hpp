// The onednn plugin's quantized convolution (ABI 1.5, docs/quantized.md): oneDNN's int8 convolution_forward with
// output scales, src and dst zero points and a clip post-op for a narrowed range (onednn_quantized.cpp).
#pragma once

#include <memory>

#include "convcheck/plugin_support.hpp"
#include "onednn_instance.hpp"

namespace convcheck_onednn {

// Declines, in oneDNN's words or the plugin's, what this translation does not take; asks oneDNN otherwise.
convcheck_error* quantized_query(convcheck_plugin& plugin, const convcheck_conv_desc& desc, convcheck_support* out);
// The prepared case: the primitive, and the weights and bias in its layouts when they came with prepare.
std::unique_ptr<convcheck_conv_plan> quantized_plan(convcheck_plugin& plugin, const convcheck_conv_desc& desc,
                                                    const convcheck_plugin_support::PrepareInputs& inputs);

}  // namespace convcheck_onednn
