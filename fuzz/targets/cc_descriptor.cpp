// Fuzz target: the CC descriptor parser (core/include/convcheck/core/cc_descriptor.hpp).
// Properties: any text either parses or throws ConvError (never another exception, a crash or UB);
// what parses is valid and round-trips through to_string.
#include <cstdint>
#include <string>

#include "convcheck/core/cc_descriptor.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace convcheck;
    const std::string text(reinterpret_cast<const char*>(data), size);
    CcDescriptor d;
    try {
        d = parse_cc_descriptor(text);
    } catch (const ConvError&) {
        return 0;
    }
    validate(d);
    const std::string printed = to_string(d);
    CcDescriptor again;
    try {
        again = parse_cc_descriptor(printed);
    } catch (const ConvError& e) {
        fuzz::property_failed("cc_descriptor", "to_string wrote '" + printed + "', which does not parse: " + e.what());
    }
    if (!(again == d)) fuzz::property_failed("cc_descriptor", "round trip differs: " + printed);
    return 0;
}
