// oneDNN 2.6's backward primitives (libdnnl-dev) timed on the same descriptor: convolution_backward_data
// and convolution_backward_weights (with diff_bias when d.has_bias), created with a forward_training hint,
// every tensor in the layout the primitive chooses (format_tag::any: oneDNN's best); only execution timed.
#pragma once

#include <optional>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::bench {

// d.pass says which (backward_data or backward_weights); f32; `threads` OpenMP threads; the minimum over
// runs repeated for about min_seconds. Empty when oneDNN declines the case.
std::optional<double> time_onednn_backward(const ConvDescriptor& d, int threads, double min_seconds);

}  // namespace convcheck::bench
