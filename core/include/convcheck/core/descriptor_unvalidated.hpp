// Reading a descriptor that breaks a rule on purpose (the invalid-case suite, docs/runner.md).
// Apart from descriptor.hpp so that the code that only handles valid descriptors never sees it.
#pragma once

#include <string_view>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

// parse_descriptor() without validate(): the fields as written. Throws ConvError only for a
// malformed text (an unknown key, a value that is not an integer, a missing required key).
ConvDescriptor parse_descriptor_unvalidated(std::string_view text);

}  // namespace convcheck
