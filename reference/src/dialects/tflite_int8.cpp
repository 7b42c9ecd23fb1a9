// TFLite CONV_2D / DEPTHWISE_CONV_2D int8 (see tflite_int8.hpp): the options, the tensors' quantization and
// the build, read as TFLite's Prepare and its reference kernels use them.
#include "convcheck/reference/dialects/tflite_int8.hpp"

#include <cmath>
#include <limits>

#include "quantized_reading.hpp"
#include "tflite_options.hpp"

namespace convcheck::reference::dialects::tflite {

using namespace dialects::detail;

namespace {

// CalculateActivationRangeQuantized for int8 (qmin -128, qmax 127).
std::pair<std::int64_t, std::int64_t> activation_range(const std::string& activation, float scale, std::int32_t zp) {
    const std::int64_t qmin = -128, qmax = 127;
    auto q = [&](float f) {
        const auto v = quantize(scale, zp, f);
        if (!v)
            refuse("output_scale", std::to_string(scale),
                   "TF_LITE_ENSURE(context, no_integer_overflow_from_quantization): Quantize(" + std::to_string(f) +
                       ") leaves int32");
        return *v;
    };
    if (activation == "NONE") return {qmin, qmax};
    if (activation == "RELU") return {std::max(qmin, q(0.0f)), qmax};
    if (activation == "RELU6") return {std::max(qmin, q(0.0f)), std::min(qmax, q(6.0f))};
    if (activation == "RELU_N1_TO_1") return {std::max(qmin, q(-1.0f)), std::min(qmax, q(1.0f))};
    refuse_ours("fused_activation_function", activation,
                "CalculateActivationRangeQuantized has branches for RELU, RELU6 and RELU_N1_TO_1 only; any other "
                "activation (TANH, SIGN_BIT) gets the type's whole range, which is not that activation: not read "
                "(NONE, RELU, RELU6, RELU_N1_TO_1)");
}

std::int32_t zero_point(Reader& reader, const std::string& key) {
    const auto v = wide_list(reader, key, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
    if (!v) return 0;
    if (v->size() != 1) refuse_ours(key, reader.text(key).value_or(""), "one zero point per tensor");
    return static_cast<std::int32_t>(v->front());
}

float scale(Reader& reader, const std::string& key) {
    const auto v = f32_list(reader, key);
    if (!v) refuse_ours(key, "", "required: the tensor's quantization scale (f32)");
    if (v->size() != 1) refuse_ours(key, reader.text(key).value_or(""), "one scale per tensor");
    return v->front();
}

}  // namespace

std::optional<std::int64_t> quantize(float scale, std::int32_t zero_point, float f) {
    const float tmp = std::round(f / scale);  // TfLiteRound: std::round, ties away from zero
    const bool fits = tmp >= static_cast<float>(std::numeric_limits<std::int32_t>::min()) &&
                      tmp <= static_cast<float>(std::numeric_limits<std::int32_t>::max());
    if (!fits) return std::nullopt;
    return std::int64_t{zero_point} + static_cast<std::int64_t>(tmp);
}

QuantizedResult read_int8(const AttributeSet& attributes) {
    return guarded_quantized("tflite", [&] {
        Reader reader(attributes, "tflite");
        ConvShapes s;
        const detail::ConvOptions options = detail::read_conv_options(reader, attributes, &s);
        const bool depthwise = options.depthwise;
        const std::string activation = reader.text("fused_activation_function").value_or("NONE");

        QuantizedDescriptor q;
        q.src = q.weights = q.dst = IntegerType::s8;
        q.src_scale = scale(reader, "input_scale");
        q.dst_scale = scale(reader, "output_scale");
        q.src_zero_point = zero_point(reader, "input_zero_point");
        q.dst_zero_point = zero_point(reader, "output_zero_point");
        const auto filter_scales = f32_list(reader, "filter_scale");
        if (!filter_scales) refuse_ours("filter_scale", "", "required: one scale, or one per output channel");
        if (filter_scales->size() != 1 && static_cast<std::int64_t>(filter_scales->size()) != s.out_channels)
            refuse("filter_scale", *reader.text("filter_scale"),
                   "TF_LITE_ENSURE_EQ(context, affine_quantization->scale->size, num_channels): " +
                       std::to_string(filter_scales->size()) + " scales for " + std::to_string(s.out_channels) +
                       " output channels");
        if (filter_scales->size() == 1) {
            q.weights_scale = filter_scales->front();
        } else {
            q.per_channel_scales = true;
            q.channel_scales = *filter_scales;
        }
        if (const auto zps = wide_list(reader, "filter_zero_point", std::numeric_limits<std::int32_t>::min(),
                                       std::numeric_limits<std::int32_t>::max()))
            for (auto zp : *zps)
                if (zp != 0)
                    refuse_ours("filter_zero_point", *reader.text("filter_zero_point"),
                                "TFLite's int8 weights are symmetric (quantization spec: zero point 0) and the "
                                "kernel never subtracts one (acc += filter_val * (input_val + input_offset))");
        if (q.src_zero_point < -128 || q.src_zero_point > 127)
            refuse_ours("input_zero_point", std::to_string(q.src_zero_point), "an int8 zero point lies in [-128, 127]");
        if (q.dst_zero_point < -128 || q.dst_zero_point > 127)
            refuse_ours("output_zero_point", std::to_string(q.dst_zero_point), "an int8 zero point lies in [-128, 127]");
        if (!(q.dst_scale > 0.0f) || !std::isfinite(q.dst_scale))
            refuse_ours("output_scale", std::to_string(q.dst_scale), "a scale must be > 0 and finite");
        const auto [lo, hi] = activation_range(activation, q.dst_scale, q.dst_zero_point);
        q.dst_min = lo;
        q.dst_max = hi;
        const bool single = reader.boolean("TFLITE_SINGLE_ROUNDING").value_or(false);
        const bool bias = reader.boolean("bias").value_or(false);
        reader.refuse_unknown_keys();

        const detail::Geometry geometry = detail::geometry(options, s);
        const AxisAttributes& g = geometry.axes;
        const std::vector<std::int64_t>& out = geometry.output_size;
        q.conv = make_descriptor(s, depthwise ? s.in_channels : 1, g, DataFormat::nxc,
                                 depthwise ? FilterFormat::xio : FilterFormat::oix);
        q.conv.has_bias = bias;

        QuantizedResult r;
        r.dialect = "tflite";
        r.rule = single ? Requantization::single_rounding : Requantization::double_rounding;
        r.output_size = out;
        r.data_layout = "NHWC";
        r.filter_layout = depthwise ? "1HWO" : "OHWI";
        r.notes.push_back(depthwise ? "filter [1, KH, KW, C * depth_multiplier] is the canonical XIO with groups = C "
                                      "(output channel c * depth_multiplier + m)"
                                    : "filter [OC, KH, KW, IC] (OHWI): the descriptor says OIX and a reorder is implied");
        r.notes.push_back(single ? "MultiplyByQuantizedMultiplier built with TFLITE_SINGLE_ROUNDING: single rounding"
                                 : "MultiplyByQuantizedMultiplier (default build): gemmlowp's double rounding");
        if (activation != "NONE")
            r.notes.push_back(activation + ": CalculateActivationRangeQuantized gives [" + std::to_string(lo) + ", " +
                              std::to_string(hi) + "] (lo, hi)");
        r.descriptor = q;
        r = conclude_quantized(std::move(r));
        // MultiplyByQuantizedMultiplier shifts left first, in int32 (x * (1 << left_shift)), when the multiplier is
        // >= 1: refused unless no accumulator this convolution can reach overflows there.
        const std::int64_t bound = q.products_per_output() * q.largest_product();
        for (std::int64_t oc = 0; oc < (q.per_channel_scales ? s.out_channels : 1); ++oc) {
            const double m = double(q.src_scale) * double(q.per_channel_scales ? q.channel_scales[oc] : q.weights_scale) /
                             double(q.dst_scale);
            int exponent = 0;
            std::frexp(m, &exponent);
            if (exponent > 0 && (bias || exponent >= 31 || (bound << exponent) > std::numeric_limits<std::int32_t>::max()))
                refuse_ours("output_scale", std::to_string(q.dst_scale),
                            "effective_output_scale " + std::to_string(m) + " >= 1: MultiplyByQuantizedMultiplier "
                            "computes x * (1 << " + std::to_string(exponent) + ") in int32 first, which overflows for "
                            "accumulators this convolution can reach" + (bias ? " (any int32 bias)" : ""));
        }
        return r;
    });
}

}  // namespace convcheck::reference::dialects::tflite
