// The quantized_dialects suite: int8 convolutions in TFLite's and TOSA's own words, read by the quantized dialects
// (reference/dialects/quantized.hpp) into "qconv:" cases, run in exact mode. Each case's name carries the rule the
// framework specifies; the backend is held to the rule it declares (docs/quantized.md), and each case records the
// rules its outputs fit, so a backend's outputs can be set beside the framework's rule. The scales are exact-mode
// scales (dyadic, M exact): a reading that is refused, or whose scales exact mode cannot hold, is an error here.
#include <stdexcept>

#include "convcheck/reference/dialects/quantized.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

namespace {

struct DialectCase {
    const char* dialect;
    const char* name;
    const char* attributes;
    accuracy::Fill fill;
};

const DialectCase kCases[] = {
    // TFLite CONV_2D: SAME with stride 2 (pads 0/1 on the 8 axis: TFLite's extra pad ends the axis), per-channel
    // filter scales, RELU6 ([zp, zp + round(6 / 0.5)] = [-10, 2]), a bias, gemmlowp's double rounding
    {"tflite", "conv_same_per_channel_relu6",
     "op=CONV_2D c=3 o=4 in=8x9 k=3x3 padding=SAME stride_h=2 stride_w=2 input_scale=0.0625 input_zero_point=-3 "
     "filter_scale=0.25:0.125:0.375:0.0625 output_scale=0.5 output_zero_point=-10 fused_activation_function=RELU6 bias=1",
     accuracy::Fill::standard},
    // values near the zero points, M = 1/4: ties, where double and single rounding part
    {"tflite", "conv_valid_ties",
     "op=CONV_2D c=6 o=4 in=9x5 k=3x3 padding=VALID input_scale=0.25 input_zero_point=3 filter_scale=1 output_scale=1 "
     "output_zero_point=1",
     accuracy::Fill::ties},
    {"tflite", "conv_valid_ties_single_rounding",
     "op=CONV_2D c=6 o=4 in=9x5 k=3x3 padding=VALID input_scale=0.25 input_zero_point=3 filter_scale=1 output_scale=1 "
     "output_zero_point=1 TFLITE_SINGLE_ROUNDING=1",
     accuracy::Fill::ties},
    // DEPTHWISE_CONV_2D, depth_multiplier 2 (output channel c * 2 + m, each its own scale), dilation, RELU_N1_TO_1
    {"tflite", "depthwise_multiplier2_relu_n1_to_1",
     "op=DEPTHWISE_CONV_2D c=3 depth_multiplier=2 in=9x7 k=3x3 padding=SAME dilation_h_factor=2 input_scale=0.015625 "
     "input_zero_point=5 filter_scale=0.5:0.25:0.125:0.75:0.375:0.0625 output_scale=0.0625 output_zero_point=-4 "
     "fused_activation_function=RELU_N1_TO_1 bias=1",
     accuracy::Fill::standard},
    // the same depthwise layout on ties: M(oc) = 1/2, 1/4, 1/8 by output channel c * 2 + m, SAME with stride 2
    {"tflite", "depthwise_per_channel_ties",
     "op=DEPTHWISE_CONV_2D c=3 depth_multiplier=2 in=8x7 k=3x3 padding=SAME stride_h=2 stride_w=2 input_scale=1 "
     "input_zero_point=-1 filter_scale=0.5:0.25:0.125:0.5:0.25:0.125 output_scale=1 output_zero_point=3",
     accuracy::Fill::ties},
    // TOSA CONV2D with zero points on both operands, RESCALE DOUBLE_ROUND with a normalized multiplier (2^30, shift 33:
    // M = 1/8): gemmlowp's double rounding, on ties
    {"tosa_rescale", "conv2d_double_round_ties",
     "op=CONV2D c=4 o=4 in=7x7 k=3x3 pad=1x1x1x1 input_zp=-7 weight_zp=3 rescale.multiplier=1073741824 "
     "rescale.shift=33 rescale.rounding_mode=DOUBLE_ROUND rescale.output_zp=5",
     accuracy::Fill::ties},
    // the same with SINGLE_ROUND
    {"tosa_rescale", "conv2d_single_round_ties",
     "op=CONV2D c=4 o=4 in=7x7 k=3x3 pad=1x1x1x1 input_zp=-7 weight_zp=3 rescale.multiplier=1073741824 "
     "rescale.shift=33 rescale.rounding_mode=SINGLE_ROUND rescale.output_zp=5",
     accuracy::Fill::ties},
    // v0.x double_round=true with shift 31 rounds once: single rounding (multiplier 2^28: M = 1/8)
    {"tosa_rescale", "conv2d_double_round_shift31",
     "op=CONV2D c=2 o=3 in=6x6 k=2x2 stride=2x2 input_zp=1 rescale.multiplier=268435456 rescale.shift=31 "
     "rescale.double_round=true",
     accuracy::Fill::ties},
    // DEPTHWISE_CONV2D, per-channel RESCALE (multiplier 3 * 2^29, 5 * 2^28, 2^30, 7 * 2^28 and shifts 36..39), a bias
    {"tosa_rescale", "depthwise_per_channel_double_round",
     "op=DEPTHWISE_CONV2D c=2 multiplier=2 in=6x5 k=3x3 pad=1x1x0x0 bias=4 input_zp=-2 weight_zp=0 "
     "rescale.per_channel=true rescale.multiplier=1610612736:1342177280:1073741824:1879048192 "
     "rescale.shift=36:37:38:39 rescale.rounding_mode=DOUBLE_ROUND rescale.output_zp=-1",
     accuracy::Fill::standard},
};

}  // namespace

std::vector<SuiteEntry> quantized_dialects_suite() {
    std::vector<SuiteEntry> entries;
    for (const DialectCase& c : kCases) {
        const auto* dialect = reference::dialects::find_quantized_dialect(c.dialect);
        const auto result = dialect->read(reference::dialects::parse_attributes(c.attributes));
        if (!result.ok())
            throw std::logic_error(std::string("quantized_dialects suite: ") + c.dialect + " " + c.attributes + ": " +
                                   result.error->message);
        SuiteEntry e(to_string(result.descriptor), "e",
                     std::string(c.dialect) + "/" + c.name + "/" + reference::dialects::rule_text(result.rule), c.fill);
        e.dialect = c.dialect;
        entries.push_back(std::move(e));
    }
    return entries;
}

}  // namespace convcheck::runner
