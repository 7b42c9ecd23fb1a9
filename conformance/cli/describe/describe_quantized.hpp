// `convcheck describe` for a quantized convolution: one quantized dialect's attributes (--dialect tflite,
// tosa_rescale; reference/dialects/quantized.hpp) or a canonical 'qconv:...' descriptor, shown as the canonical
// descriptor, the requantization rule the framework specifies, the multiplier M of each output channel, the
// output range and shape.
#pragma once

#include <string>

#include "convcheck/reference/dialects/quantized.hpp"

namespace convcheck::cli {

// `dialect` null: `text` is a canonical descriptor (throws ConvError when invalid). Returns the exit code: 0, or 2
// when the dialect refuses the attributes (its error printed on stderr, or as JSON).
int describe_quantized(const reference::dialects::QuantizedDialect* dialect, const std::string& text, bool json);

}  // namespace convcheck::cli
