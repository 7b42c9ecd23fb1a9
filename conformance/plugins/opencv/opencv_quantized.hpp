// The opencv plugin's quantized convolution (ABI 1.5, docs/quantized.md): OpenCV 4.6 dnn's "ConvolutionInt8"
// layer (s8 src, weights and dst) between a Quantize and a Dequantize layer of scale 1 (opencv_quantized.cpp).
#pragma once

#include <memory>

#include "convcheck/plugin_support.hpp"

namespace convcheck_opencv {

// Declines, in OpenCV's words or the plugin's, what the translation does not take; asks OpenCV to create
// the layer otherwise.
convcheck_error* quantized_query(const convcheck_conv_desc& desc, convcheck_support* out);
// The prepared case: the three-layer net, built at prepare when the weights come with it, else per execute.
std::unique_ptr<convcheck_conv_plan> quantized_plan(int num_threads, const convcheck_conv_desc& desc,
                                                    const convcheck_plugin_support::PrepareInputs& inputs);

}  // namespace convcheck_opencv
