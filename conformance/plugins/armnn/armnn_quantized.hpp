// The armnn plugin's quantized convolution (ABI 1.5, docs/quantized.md): Arm NN 20.08's Convolution2d and
// DepthwiseConvolution2d on CpuRef with QAsymmU8 / QAsymmS8 activations, QAsymmU8 / QAsymmS8 / QSymmS8 weights
// (QSymmS8 per axis for per-channel scales) and a Signed32 bias; a narrowed output range is a BoundedReLu
// Activation layer after it (armnn_quantized.cpp).
#pragma once

#include <armnn/ILayerSupport.hpp>

#include <memory>

#include "armnn_network.hpp"
#include "convcheck/plugin_support.hpp"

namespace convcheck_armnn {

// Declines, in Arm NN's words or the plugin's, what the translation does not take; asks CpuRef's
// ILayerSupport otherwise, then loads the network once with zero weights (the workloads' own checks).
convcheck_error* quantized_query(std::shared_ptr<armnn::IRuntime> runtime, const armnn::ILayerSupport& support,
                                 const convcheck_conv_desc& desc, convcheck_support* out);
// The prepared case: the loaded network, built at prepare when the weights come with it, else per execute.
std::unique_ptr<convcheck_conv_plan> quantized_plan(std::shared_ptr<armnn::IRuntime> runtime, const convcheck_conv_desc& desc,
                                                    const convcheck_plugin_support::PrepareInputs& inputs);

}  // namespace convcheck_armnn
