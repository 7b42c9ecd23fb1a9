// Fuzz target: the benchdnn problem-string and batch-file parser (formats/include/convcheck/formats/benchdnn.hpp).
// Properties: any text either parses or throws ConvError; a parsed problem is a valid canonical
// descriptor; printing it with to_benchdnn (when benchdnn can express it) and parsing that again
// gives the same convolution: every field equal except pads_end, which may shrink to the smallest
// that yields the same output size; the whole input read as a batch file also throws only ConvError.
#include <cstdint>
#include <string>

#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/formats/benchdnn_driver.hpp"
#include "fuzz_input.hpp"

namespace {

bool same_convolution(convcheck::ConvDescriptor a, convcheck::ConvDescriptor b) {
    for (int i = 0; i < a.rank; ++i) {
        if (a.output_size(i) != b.output_size(i)) return false;
        a.pads_end[i] = b.pads_end[i] = 0;
    }
    return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace convcheck;
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        read_benchdnn_batch_text(text, "fuzz_batch");
    } catch (const ConvError&) {
    }
    BenchdnnProblem p;
    try {
        p = parse_benchdnn(text);
    } catch (const ConvError&) {
        return 0;
    }
    validate(p.descriptor);
    std::string printed;
    try {
        printed = to_benchdnn(p.descriptor, p.name);
    } catch (const ConvError&) {
        return 0;  // benchdnn cannot express it (documented: negative pads_begin, name with a quote, ...)
    }
    BenchdnnProblem again;
    try {
        again = parse_benchdnn(printed);
    } catch (const ConvError& e) {
        fuzz::property_failed("benchdnn", "to_benchdnn wrote '" + printed + "', which does not parse: " + e.what());
    }
    if (!same_convolution(p.descriptor, again.descriptor))
        fuzz::property_failed("benchdnn", "round trip changed the convolution: " + to_string(p.descriptor) + " -> '" +
                                              printed + "' -> " + to_string(again.descriptor));
    if (again.name != p.name) fuzz::property_failed("benchdnn", "round trip changed the name: " + printed);
    return 0;
}
