// The onednn plugin's transposed convolution (onednn_transposed.cpp): its query and execute, for
// add_conv_transposed (convcheck/plugin_transposed.hpp).
#pragma once

#include "convcheck/plugin.h"

namespace convcheck_onednn {

convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out);
convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args);

}  // namespace convcheck_onednn
