// Internal to the reference plugin: quantized convolution (ABI 1.5) through the literal reference
// (reference/quantized_convolution.hpp, quantized_output.hpp), under the rule the instance follows.
#pragma once

#include <memory>
#include <string>

#include "convcheck/abi/abi_quantized.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/reference/requantize.hpp"

namespace reference_plugin {

// The option requantization=<rule> (reference/requantize.hpp's names); false for another value.
bool parse_rule(const std::string& text, convcheck::reference::Requantization* rule);
// The ABI's name of the rule (plugin_info.requantization).
int32_t abi_rule(convcheck::reference::Requantization rule);
// Why the reference plugin declines the quantized case (its copies past 4 GiB), or "". Throws ConvError for an
// invalid one.
std::string quantized_unsupported(const convcheck_conv_desc& desc, convcheck::reference::Requantization rule);
// A plan for a quantized case: the case read at prepare (the runner's extension is valid then only).
std::unique_ptr<convcheck_conv_plan> quantized_plan(const convcheck_conv_desc& desc, convcheck::reference::Requantization rule);

}  // namespace reference_plugin
