// The opencv plugin's transposed convolution (opencv_transposed.cpp): its query, and its execute with the
// instance's thread count (opencv_plugin.cpp wraps it for add_conv_transposed, convcheck/plugin_transposed.hpp).
#pragma once

#include "convcheck/plugin.h"

namespace convcheck_opencv {

convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out);
convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args, int num_threads);

}  // namespace convcheck_opencv
