// `convcheck describe 'cc:...'`: a continuous convolution (CC) descriptor (core/include/convcheck/core/cc_descriptor.hpp)
// shown as the CC reference reads it: the output size and shape, and per axis the projected grid
// (seed 004, Eq. 2) and the window of input pixels each output reads (reference/cc/neighbours.hpp).
#pragma once

#include <string>

namespace convcheck::cli {

// Prints the description (text, or JSON with `json`); throws ConvError for an invalid descriptor.
void describe_cc(const std::string& descriptor, bool json);

}  // namespace convcheck::cli
