// The xnnpack plugin's quantized convolution (ABI 1.5, docs/quantized.md): XNNPACK's qs8, qc8 and qu8 2-D NHWC
// convolution operators (xnnpack_quantized.cpp).
#pragma once

#include <pthreadpool.h>

#include <memory>

#include "convcheck/plugin_support.hpp"

namespace convcheck_xnnpack {

// What XNNPACK's quantized operators do not take, in their words; else whether XNNPACK creates the operator.
convcheck_error* quantized_query(const convcheck_conv_desc& desc, convcheck_support* out);
// The prepared case: the operator (XNNPACK packs the weights when it creates one), on `threadpool`.
std::unique_ptr<convcheck_conv_plan> quantized_plan(pthreadpool_t threadpool, const convcheck_conv_desc& desc,
                                                    const convcheck_plugin_support::PrepareInputs& inputs);

}  // namespace convcheck_xnnpack
