// The armnn plugin's transposed convolution (armnn_transposed.cpp): Arm NN 20.08's TransposeConvolution2d
// on CpuRef. armnn_plugin.cpp wraps these for add_conv_transposed (convcheck/plugin_transposed.hpp).
#pragma once

#include <armnn/ArmNN.hpp>
#include <armnn/ILayerSupport.hpp>

#include <memory>

#include "convcheck/plugin.h"

namespace convcheck_armnn {

convcheck_error* transposed_query(const armnn::ILayerSupport& layer_support, const convcheck_conv_transposed_desc& t,
                                  convcheck_support* out);
convcheck_error* transposed_execute(std::shared_ptr<armnn::IRuntime> runtime, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args);

}  // namespace convcheck_armnn
