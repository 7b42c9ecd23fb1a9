// Fuzz target: the framework dialects' attribute parsers (reference/dialects).
// Input: the dialect name on the first line ("onnx", "tensorflow", ...), its attribute text after.
// Properties: parse_attributes and the dialect's read either succeed or throw ConvError; a result
// that is ok() holds a valid canonical descriptor whose output sizes are the ones the framework
// computed; a refusal names an attribute; the dialect's own spelling of the same request
// (spell) reads back, in the same dialect, as the same descriptor. A quantized dialect ("tflite",
// "tosa_rescale"): an ok() result holds a valid qconv: descriptor whose text reads back as itself.
#include <cstdint>
#include <string>

#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/reference/dialects/quantized.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace convcheck;
    using namespace convcheck::reference::dialects;
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    if (newline == std::string::npos) return 0;
    const Dialect* dialect = find_dialect(input.substr(0, newline));
    if (const QuantizedDialect* quantized = find_quantized_dialect(input.substr(0, newline)); !dialect && quantized) {
        QuantizedResult q;
        try {
            q = quantized->read(parse_attributes(input.substr(newline + 1)));
        } catch (const ConvError&) {
            return 0;
        }
        const std::string where = std::string(quantized->name) + ": " + input.substr(newline + 1);
        if (q.error) {
            if (q.error->attribute.empty() && q.error->message.empty())
                fuzz::property_failed("dialects", "a refusal that names nothing: " + where);
            return 0;
        }
        try {
            validate(q.descriptor);
            if (!(parse_quantized_descriptor(to_string(q.descriptor)) == q.descriptor))
                fuzz::property_failed("dialects", "the qconv: text does not read back as itself: " + where);
        } catch (const ConvError& e) {
            fuzz::property_failed("dialects", "ok() with an invalid qconv: descriptor (" + std::string(e.what()) + "): " + where);
        }
        for (int a = 0; a < q.descriptor.conv.rank; ++a)
            if (q.output_size[a] != q.descriptor.conv.output_size(a))
                fuzz::property_failed("dialects", "the framework's output size differs from the descriptor's: " + where);
        return 0;
    }
    if (!dialect) return 0;
    DialectResult result;
    try {
        result = dialect->read(parse_attributes(input.substr(newline + 1)));
    } catch (const ConvError&) {
        return 0;
    }
    const std::string where = std::string(dialect->name) + ": " + input.substr(newline + 1);
    if (result.error) {
        if (result.error->attribute.empty() && result.error->message.empty())
            fuzz::property_failed("dialects", "a refusal that names nothing: " + where);
        return 0;
    }
    if (!result.ok()) return 0;  // an empty output: the framework returns an empty tensor
    try {
        validate(result.descriptor);
    } catch (const ConvError& e) {
        fuzz::property_failed("dialects", "ok() with an invalid descriptor (" + std::string(e.what()) + "): " + where);
    }
    if (static_cast<int>(result.output_size.size()) != result.descriptor.rank)
        fuzz::property_failed("dialects", "output_size has the wrong rank: " + where);
    for (int a = 0; a < result.descriptor.rank; ++a)
        if (result.output_size[a] != result.descriptor.output_size(a))
            fuzz::property_failed("dialects", "the framework's output size " + std::to_string(result.output_size[a]) +
                                                  " differs from the descriptor's on axis " + std::to_string(a) + ": " +
                                                  where + " -> " + to_string(result.descriptor));
    std::string why_not;
    const auto spelled = dialect->spell(result.request, &why_not);
    if (!spelled) return 0;
    const DialectResult again = dialect->read(*spelled);
    if (!again.ok() || !(again.descriptor == result.descriptor))
        fuzz::property_failed("dialects", "spell/read round trip differs: " + where + " -> " + to_string(*spelled) +
                                              " -> " + (again.ok() ? to_string(again.descriptor) : std::string("refused")));
    return 0;
}
