// The attribute a descriptor text is refused for (ConvError::attribute()), or "(accepted)": what the descriptor
// tests compare when they check that bad input names the key it breaks.
#pragma once

#include <string>

#include "convcheck/core/descriptor.hpp"

inline std::string attribute_of_error(const std::string& text) {
    try {
        convcheck::parse_descriptor(text);
    } catch (const convcheck::ConvError& e) {
        return e.attribute();
    }
    return "(accepted)";
}
