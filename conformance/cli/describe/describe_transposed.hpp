// `convcheck describe` for a transposed convolution: a canonical 'deconv:...' descriptor
// (core/include/convcheck/core/transposed_descriptor.hpp) or one transposed dialect's attributes (--dialect pytorch_transpose,
// onnx_transpose, tosa_transpose), shown as the canonical descriptor, the forward convolution it
// transposes, its pads, output_padding and output shape, then the same request as every transposed
// dialect reads it, side by side, '*' where a reading differs (another output size or pads_begin:
// another index set) and '-' where a dialect cannot say it.
#pragma once

#include <string>

#include "convcheck/reference/dialects/transposed.hpp"

namespace convcheck::cli {

// `dialect` null: `text` is a canonical descriptor (throws ConvError when invalid). Returns the exit
// code: 0, or 2 when the dialect refuses the attributes (its error printed on stderr, or as JSON).
int describe_transposed(const reference::dialects::TransposedDialect* dialect, const std::string& text, bool json);

}  // namespace convcheck::cli
