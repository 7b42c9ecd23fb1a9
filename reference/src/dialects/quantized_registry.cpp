// The list of quantized dialects (quantized.hpp), in the order `convcheck describe --dialects` shows them.
#include "convcheck/reference/dialects/quantized.hpp"
#include "convcheck/reference/dialects/tflite_int8.hpp"
#include "convcheck/reference/dialects/tosa_rescale.hpp"

namespace convcheck::reference::dialects {

std::string rule_text(const std::optional<Requantization>& rule) {
    return rule ? to_string(*rule) : "none named (TOSA INEXACT_ROUND window)";
}

std::span<const QuantizedDialect> all_quantized_dialects() {
    static const QuantizedDialect dialects[] = {
        {"tflite", "TFLite CONV_2D / DEPTHWISE_CONV_2D int8 (reference kernels)", tflite::read_int8},
        {"tosa_rescale", "TOSA CONV2D / DEPTHWISE_CONV2D i8 followed by RESCALE to i8", tosa::read_rescale},
    };
    return dialects;
}

const QuantizedDialect* find_quantized_dialect(std::string_view name) {
    for (const QuantizedDialect& d : all_quantized_dialects())
        if (d.name == name) return &d;
    return nullptr;
}

}  // namespace convcheck::reference::dialects
