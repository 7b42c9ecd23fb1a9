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
// f32_sum (the option sum=f32): a u8 or s8 dst computed as an ONNX QDQ model (DequantizeLinear -> Conv -> [Relu |
// Clip ->] QuantizeLinear) computes it, in f32: reference::qdq_f32_sum (the products summed in f32 in an order that
// keeps the partial sums large), relu or clip in f32, then QuantizeLinear's f32(v / dst_scale) rounded to even, plus
// the zero point, saturated to [dst_min, dst_max]. It is the f32 sum of an acc=f32 case (an ONNX QDQ model's), within
// that case's bound; on an integer-accumulator case it is judged by the rule it declares, which it does not follow.
// Why the reference plugin declines the quantized case (its copies past 4 GiB; with f32_sum, what a QDQ model has
// not), or "". Throws ConvError for an invalid one.
std::string quantized_unsupported(const convcheck_conv_desc& desc, convcheck::reference::Requantization rule,
                                  bool f32_sum = false);
// A plan for a quantized case: the case read at prepare (the runner's extension is valid then only).
std::unique_ptr<convcheck_conv_plan> quantized_plan(const convcheck_conv_desc& desc, convcheck::reference::Requantization rule,
                                                    bool f32_sum = false);

}  // namespace reference_plugin
