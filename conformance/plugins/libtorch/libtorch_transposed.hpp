// The libtorch plugin's transposed convolution (libtorch_transposed.cpp): its query and execute, for
// add_conv_transposed (convcheck/plugin_transposed.hpp).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "convcheck/plugin.h"

namespace convcheck_libtorch {

// Why ATen cannot compute t as the plugin hands it over, or "".
std::string transposed_not_computable(const convcheck_conv_transposed_desc& t);
convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out);
convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args);

// What the plugin cannot hand ATen without inventing a number (refused as an invalid argument), or "".
std::string transposed_inexpressible(const convcheck_conv_transposed_desc& t);
// ATen's padding and output_padding say t's pads; else the whole output is computed, then cropped and extended (with
// the bias added after: a rounding more in a type narrower than the sum's).
bool transposed_direct(const convcheck_conv_transposed_desc& t);
at::ScalarType transposed_scalar_type(const convcheck_conv_transposed_desc& t);
// t through at::convolution (transposed = true) on `device`, the runner's tensors moved there and dst back; the
// caller has checked the case. `plugin` prefixes the implementation string.
convcheck_error* transposed_compute(const convcheck_conv_transposed_desc& t, const at::Device& device, const std::string& plugin,
                                    const convcheck_conv_args& args);

}  // namespace convcheck_libtorch
