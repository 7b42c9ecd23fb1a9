// The xnnpack plugin's transposed convolution (xnnpack_transposed.cpp): its query, and its execute on
// the instance's thread pool (xnnpack_plugin.cpp wraps it for add_conv_transposed,
// convcheck/plugin_transposed.hpp).
#pragma once

#include <pthreadpool.h>

#include "convcheck/plugin.h"

namespace convcheck_xnnpack {

convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out);
convcheck_error* transposed_execute_on(pthreadpool_t threadpool, const convcheck_conv_transposed_desc& t,
                                       const convcheck_conv_args& args);

}  // namespace convcheck_xnnpack
