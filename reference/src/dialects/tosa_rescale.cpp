// TOSA CONV2D / DEPTHWISE_CONV2D (i8, i32 accumulator) followed by RESCALE to i8 (see tosa_rescale.hpp): the
// geometry read by the tosa dialect, the zero points and RESCALE's integers read here, each ERROR_IF and REQUIRE
// refused with its text.
#include "convcheck/reference/dialects/tosa_rescale.hpp"

#include <cmath>
#include <limits>

#include "convcheck/reference/dialects/tosa.hpp"
#include "convcheck/reference/dialects/tosa_rescale_rule.hpp"
#include "quantized_reading.hpp"

namespace convcheck::reference::dialects::tosa {

using namespace dialects::detail;

namespace {

constexpr const char* kPrefix = "rescale.";

std::int64_t i8_zero_point(Reader& reader, const std::string& key) {
    const auto v = wide_list(reader, key, -128, 127);
    if (!v) return 0;
    if (v->size() != 1) refuse_ours(key, *reader.text(key), "one zero point (a tensor of shape [1])");
    return v->front();
}

RoundingMode rounding_mode(Reader& reader) {
    const auto mode = reader.text("rescale.rounding_mode");
    const auto double_round = reader.boolean("rescale.double_round");
    if (mode && double_round)
        refuse_ours("rescale.double_round", *reader.text("rescale.double_round"),
                    "give rounding_mode (v1.0) or double_round (v0.x), not both");
    if (double_round) return *double_round ? RoundingMode::double_round : RoundingMode::single_round;
    if (!mode || *mode == "SINGLE_ROUND") return RoundingMode::single_round;
    if (*mode == "DOUBLE_ROUND") return RoundingMode::double_round;
    if (*mode == "INEXACT_ROUND") return RoundingMode::inexact_round;
    refuse_ours("rescale.rounding_mode", *mode, "rounding_mode_t: SINGLE_ROUND, INEXACT_ROUND or DOUBLE_ROUND");
}

int bits(std::int64_t v) {
    int n = 0;
    for (; v > 0; v >>= 1) ++n;
    return n;
}

// M = multiplier * 2^-shift as f32 scales whose double product is M exactly: (ssc, wsc), or nullopt.
std::optional<std::pair<float, float>> exact_scales(std::int64_t multiplier, int shift, bool split) {
    std::int64_t odd = multiplier;
    int exponent = -shift;
    while (odd % 2 == 0) {
        odd /= 2;
        ++exponent;
    }
    std::int64_t p = 1;  // the largest divisor of odd at most its square root: both parts as short as they can be
    if (split)
        for (std::int64_t d = 1; d * d <= odd; d += 2)
            if (odd % d == 0) p = d;
    const std::int64_t q = odd / p;
    if (bits(p) > 24 || bits(q) > 24) return std::nullopt;
    return std::make_pair(static_cast<float>(p), std::ldexp(static_cast<float>(q), exponent));
}

}  // namespace

QuantizedResult read_rescale(const AttributeSet& attributes) {
    return guarded_quantized("tosa_rescale", [&] {
        AttributeSet conv_attributes;
        for (const auto& [key, value] : attributes)
            if (key.rfind(kPrefix, 0) != 0 && key != "input_zp" && key != "weight_zp") conv_attributes[key] = value;
        if (const auto it = conv_attributes.find("op"); it != conv_attributes.end() && it->second == "CONV3D")
            refuse_ours("op", "CONV3D", "read here: CONV2D and DEPTHWISE_CONV2D");
        const DialectResult geometry = tosa::read(conv_attributes);
        if (geometry.error) throw Refusal{*geometry.error};

        Reader reader(attributes, "tosa_rescale");
        for (const auto& [key, value] : conv_attributes) reader.text(key);  // the tosa dialect read these
        QuantizedDescriptor q;
        q.conv = geometry.descriptor;
        q.src = q.weights = q.dst = IntegerType::s8;
        q.dst_min = -128;  // apply_clip_s(result + output_zp, minimum_s<i8>, maximum_s<i8>)
        q.dst_max = 127;
        q.src_zero_point = static_cast<std::int32_t>(i8_zero_point(reader, "input_zp"));
        q.weights_zero_point = static_cast<std::int32_t>(i8_zero_point(reader, "weight_zp"));

        // RESCALE, i32 -> i8
        const bool scale32 = reader.boolean("rescale.scale32").value_or(true);
        const RoundingMode mode = rounding_mode(reader);
        const bool per_channel = reader.boolean("rescale.per_channel").value_or(false);
        if (reader.boolean("rescale.input_unsigned").value_or(false))
            refuse("rescale.input_unsigned", "true", "ERROR_IF(is_same<in_t, i32_t> && input_unsigned): No support for u32 inputs");
        if (reader.boolean("rescale.output_unsigned").value_or(false))
            refuse("rescale.output_unsigned", "true", "ERROR_IF(is_same<in_t,i32_t>() && output_unsigned)");
        if (const auto zp = wide_list(reader, "rescale.input_zp", std::numeric_limits<std::int32_t>::min(),
                                      std::numeric_limits<std::int32_t>::max());
            zp && (zp->size() != 1 || zp->front() != 0))
            refuse("rescale.input_zp", *reader.text("rescale.input_zp"),
                   "ERROR_IF(!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && "
                   "input_zp != 0): the input is CONV2D's i32 accumulator");
        q.dst_zero_point = static_cast<std::int32_t>(i8_zero_point(reader, "rescale.output_zp"));
        if (!scale32 && mode == RoundingMode::double_round)
            refuse(attributes.count("rescale.double_round") ? "rescale.double_round" : "rescale.rounding_mode",
                   "DOUBLE_ROUND", "ERROR_IF(!scale32 && (rounding_mode == DOUBLE_ROUND))");
        const auto multipliers = wide_list(reader, "rescale.multiplier", std::numeric_limits<std::int32_t>::min(),
                                           std::numeric_limits<std::int32_t>::max());
        const auto shifts = wide_list(reader, "rescale.shift", -128, 127);
        if (!multipliers || !shifts) refuse_ours(multipliers ? "rescale.shift" : "rescale.multiplier", "", "required");
        reader.refuse_unknown_keys();

        const std::int64_t oc = q.conv.out_channels;
        const std::size_t nc = per_channel ? static_cast<std::size_t>(oc) : 1;
        if (multipliers->size() != nc || shifts->size() != nc)
            refuse_ours(multipliers->size() != nc ? "rescale.multiplier" : "rescale.shift",
                        *reader.text(multipliers->size() != nc ? "rescale.multiplier" : "rescale.shift"),
                        "shape [NC], NC = " + std::string(per_channel ? "the output channels, " : "1 (per_channel false), ") +
                            std::to_string(nc) + " values");
        // value's magnitude bound: the accumulator; with a bias, any i32
        const std::int64_t bound =
            q.conv.has_bias ? std::int64_t{std::numeric_limits<std::int32_t>::max()} : q.products_per_output() * q.largest_product();
        bool all_single = true, all_double = true;
        std::vector<float> channel_scales;
        float src_scale = 1.0f;
        for (std::size_t c = 0; c < nc; ++c) {
            const std::int64_t m = (*multipliers)[c];
            const int s = static_cast<int>((*shifts)[c]);
            const std::string at = nc > 1 ? " (channel " + std::to_string(c) + ")" : "";
            if (!scale32 && (m < std::numeric_limits<std::int16_t>::min() || m > std::numeric_limits<std::int16_t>::max()))
                refuse_ours("rescale.multiplier", std::to_string(m), "apply_scale_16 takes an int16_t multiplier" + at);
            if (m < 0) refuse("rescale.multiplier", std::to_string(m), "REQUIRE(multiplier >= 0)" + at);
            if (s < 2 || s > 62) refuse("rescale.shift", std::to_string(s), "REQUIRE(2 <= shift && shift <= 62)" + at);
            if (m == 0)
                refuse_ours("rescale.multiplier", "0", "M = 0: the descriptor's scales are > 0 (every output is output_zp)" + at);
            if (scale32 && s <= 31 && bound >= (std::int64_t{1} << (s - 1)))
                refuse("rescale.shift", std::to_string(s),
                       "REQUIRE(value >= (-1 << (shift - 1)) && value < (1 << (shift - 1))): this convolution's "
                       "accumulator reaches " + std::to_string(bound) + (q.conv.has_bias ? " (any i32 bias)" : "") +
                       ", past 2^" + std::to_string(s - 1) + ": unpredictable for some inputs" + at);
            if (!scale32 && ((bound * m + (std::int64_t{1} << (s - 1))) >> s) > std::numeric_limits<std::int32_t>::max())
                refuse("rescale.multiplier", std::to_string(m),
                       "apply_scale_16's REQUIRE(result >= minimum<int32_t> && result <= maximum<int32_t>): this "
                       "convolution's accumulator reaches " + std::to_string(bound) + at);
            const RescaleRules rules = rescale_rules(m, s, scale32, mode);
            if (!rules.none_named && !rules.exact_single && !rules.exact_double)
                refuse_ours(mode == RoundingMode::double_round && attributes.count("rescale.double_round")
                                ? "rescale.double_round" : "rescale.rounding_mode",
                            "DOUBLE_ROUND", rules.why + at);
            all_single = all_single && rules.exact_single;
            all_double = all_double && rules.exact_double;
            const auto scales = exact_scales(m, s, nc == 1);
            if (!scales)
                refuse_ours("rescale.multiplier", std::to_string(m),
                            "M = " + std::to_string(m) + " * 2^-" + std::to_string(s) +
                                " as f32 scales: its odd part does not split into two factors of at most 24 bits "
                                "(per channel: is not itself at most 24 bits), so no ssc * wsc / dsc is M exactly" + at);
            src_scale = scales->first;
            channel_scales.push_back(scales->second);
        }
        if (mode != RoundingMode::inexact_round && !all_single && !all_double)
            refuse_ours("rescale.shift", *reader.text("rescale.shift"),
                        "DOUBLE_ROUND rounds once on some channels (shift <= 31, or a multiplier below 2^30) and twice "
                        "on others: one rule does not hold for every channel");
        q.src_scale = src_scale;
        q.dst_scale = 1.0f;
        if (per_channel) {
            q.per_channel_scales = true;
            q.channel_scales = channel_scales;
        } else {
            q.weights_scale = channel_scales.front();
        }

        QuantizedResult r;
        r.dialect = "tosa_rescale";
        r.output_size = geometry.output_size;
        r.data_layout = geometry.data_layout;
        r.filter_layout = geometry.filter_layout;
        r.notes = geometry.notes;
        if (mode == RoundingMode::inexact_round) {
            r.notes.push_back("INEXACT_ROUND: no rule named; judged by TOSA's window");
        } else if (mode == RoundingMode::double_round && all_double) {
            r.rule = Requantization::double_rounding;
            r.notes.push_back("DOUBLE_ROUND with multiplier >= 2^30: gemmlowp's double rounding (double_rounding)" +
                              std::string(all_single ? "; with these shifts it rounds once, so single_rounding too" : ""));
        } else {
            r.rule = Requantization::single_rounding;
            r.notes.push_back(mode == RoundingMode::double_round
                                  ? "DOUBLE_ROUND with shift <= 31 adds nothing: apply_scale_32 rounds once (single_rounding)"
                                  : std::string(scale32 ? "SINGLE_ROUND" : "apply_scale_16") +
                                        ": (value * multiplier + 2^(shift-1)) >> shift, single_rounding");
        }
        r.notes.push_back("TOSA gives no scales: ssc * wsc / dsc carry M = multiplier * 2^-shift exactly");
        r.descriptor = q;
        return conclude_quantized(std::move(r));
    });
}

}  // namespace convcheck::reference::dialects::tosa
