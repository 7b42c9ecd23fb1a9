// Quantized dialects: a framework's int8 convolution (its attributes, scales, zero points and output range)
// read into the canonical "qconv:" descriptor (core/quantized_descriptor.hpp) and the requantization rule the
// framework's text specifies (requantize.hpp), or refused with the attribute, its value and the rule it broke.
//
//   tflite  TFLite CONV_2D / DEPTHWISE_CONV_2D, int8, reference kernels (tflite_int8.hpp)
//   tosa_rescale  TOSA CONV2D / DEPTHWISE_CONV2D (i8, i32 accumulator) followed by RESCALE (tosa_rescale.hpp)
//
// The text API is the float dialects' (dialect.hpp): key=value items; shape keys n, c, o, in, k.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/reference/requantize.hpp"

namespace convcheck::reference::dialects {

struct QuantizedResult {
    std::string dialect;
    std::optional<DialectError> error;
    QuantizedDescriptor descriptor;          // canonical and validated when ok()
    // The rule the framework's text specifies; nullopt: it names none (TOSA INEXACT_ROUND: judged by the window).
    std::optional<Requantization> rule;
    std::vector<std::int64_t> output_size;   // per spatial axis, as the framework computes it
    std::string data_layout, filter_layout;  // the framework's own names
    std::vector<std::string> notes;          // where the reading needed an explicit choice

    bool ok() const { return !error; }
};

// "double_rounding", ..., or "none named (TOSA INEXACT_ROUND window)" for nullopt.
std::string rule_text(const std::optional<Requantization>& rule);

struct QuantizedDialect {
    std::string_view name;   // "tflite", "tosa_rescale"
    std::string_view title;
    QuantizedResult (*read)(const AttributeSet& attributes);
};

std::span<const QuantizedDialect> all_quantized_dialects();
const QuantizedDialect* find_quantized_dialect(std::string_view name);  // nullptr if unknown

}  // namespace convcheck::reference::dialects
