// Fuzz target: the canonical descriptor parser (core/include/convcheck/core/descriptor.hpp).
// Properties: any text either parses or throws ConvError (never another exception, never a crash
// or UB); what parses is valid, prints canonically, and reads back equal; printing is a fixed point.
#include <cstdint>
#include <string>

#include "convcheck/core/descriptor.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    convcheck::ConvDescriptor d;
    try {
        d = convcheck::parse_descriptor(text);
    } catch (const convcheck::ConvError& e) {
        if (std::string(e.what()).empty()) convcheck::fuzz::property_failed("descriptor", "an empty error message");
        return 0;
    }
    convcheck::validate(d);  // must not throw: parse validated it
    const std::string printed = convcheck::to_string(d);
    const convcheck::ConvDescriptor again = convcheck::parse_descriptor(printed);
    if (!(again == d)) convcheck::fuzz::property_failed("descriptor", "print/parse round trip differs: " + printed);
    if (convcheck::to_string(again) != printed)
        convcheck::fuzz::property_failed("descriptor", "printing is not canonical: " + printed);
    return 0;
}
