// The libtorch plugin's transposed convolution (libtorch_transposed.cpp): its query and execute, for
// add_conv_transposed (convcheck/plugin_transposed.hpp).
#pragma once

#include <string>

#include "convcheck/plugin.h"

namespace convcheck_libtorch {

// Why ATen cannot compute t as the plugin hands it over, or "".
std::string transposed_not_computable(const convcheck_conv_transposed_desc& t);
convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out);
convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args);

}  // namespace convcheck_libtorch
