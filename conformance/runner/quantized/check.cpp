// Quantized convolution's entries in the case pipeline (operation_traits.cpp; docs/quantized.md): its rules,
// claims and modes, and the check: the case's integers (data.cpp), the literal reference (the integer sum of
// reference/quantized_convolution.hpp, requantized by reference/quantized_output.hpp), one isolated
// execution, and the verdict: bit for bit under the rule the backend declares, or within TOSA's INEXACT_ROUND
// window where it declares none (and in bound mode, whose scales no rule holds exactly).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <set>

#include "convcheck/abi/abi_quantized.hpp"
#include "convcheck/reference/quantized_convolution.hpp"
#include "convcheck/reference/quantized_output.hpp"
#include "convcheck/runner/strided_buffers.hpp"
#include "../conv/operation.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

using accuracy::Mode;
using reference::Requantization;

namespace {

// Significant bits of a positive finite float (1 for a power of two); 0 for any other value (validate refuses it).
int significant_bits(float v) {
    if (!(v > 0.0f) || !std::isfinite(v)) return 0;
    int exponent = 0;
    auto m = static_cast<std::uint32_t>(std::ldexp(std::frexp(v, &exponent), 24));
    return std::bit_width(m >> std::countr_zero(m));
}

// The rule a plugin declares (ABI 1.5) into *rule; false when it names none.
bool declared_rule(const PluginInfo& info, Requantization* rule) {
    if (info.abi_major == 1 && info.abi_minor < 5) return false;
    switch (info.requantization) {
        case CONVCHECK_REQUANTIZATION_DOUBLE_ROUNDING: return *rule = Requantization::double_rounding, true;
        case CONVCHECK_REQUANTIZATION_SINGLE_ROUNDING: return *rule = Requantization::single_rounding, true;
        case CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32: return *rule = Requantization::nearest_even_f32, true;
        case CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT:
            return *rule = Requantization::nearest_even_f32_with_zero_point, true;
        default: return false;
    }
}

std::string integer_text(double v) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return text;
}

}  // namespace

std::string quantized_mode_not_applicable(Mode mode) {
    if (mode == Mode::exact || mode == Mode::bound) return "";
    return std::string("mode ") + accuracy::to_string(mode) +
           " does not apply to quantized convolution (exact and bound mode do; docs/quantized.md)";
}

// The descriptor's rules, and the runner's: dst scales per output channel (dsc=a:b:..., ABI 1.9) only where the general
// output's bound judges the case (the plugin cannot tell an acc=f32 case from an exact one: its rule is the runner's).
void quantized_validate(const Case& c) {
    validate(c.qconv);
    if (!c.qconv.dst_scales.empty() && !c.qconv.judged_as_general())
        throw ConvError("dsc", "one per output channel",
                        "taken where the general output's bound judges the case: a float dst, post-ops or acc=f32 (an "
                        "ONNX QDQ model's per-axis y_scale); an integer requantization has one dst scale");
}

// The integers are judged exactly or by TOSA's window, never by the float contract: its dtype is not read.
DataType quantized_output_dtype(const Case&) { return DataType::f32; }

std::string quantized_refused_entry(const Case& c, Mode mode) {
    return mode == Mode::exact ? quantized_exact_refusal(c.qconv) : "";
}

std::string quantized_exact_refusal(const QuantizedDescriptor& q) {
    if (q.judged_as_general())
        return "exact mode: a quantized case with a float dst, post-ops or an f32 accumulation (acc=f32) has no one "
               "right answer in f32 arithmetic; bound mode judges it (docs/quantized.md, \"General output: float dst, "
               "rounded s32, post-ops\")";
    if (q.dst == IntegerType::s32 && !q.rounded_s32()) return "";
    const auto why = [&](const std::string& text) {
        return "exact mode holds a declared rule bit for bit, so its scales must give a multiplier M = ssc * wsc / "
               "dsc that f32, f64 and a Q31 multiplier all hold exactly: " + text + " (docs/quantized.md)";
    };
    if (significant_bits(q.src_scale) > 12) return why("ssc has more than 12 significant bits");
    if (!q.per_channel_scales && significant_bits(q.weights_scale) > 12)
        return why("wsc has more than 12 significant bits");
    double low = q.per_channel_scales ? std::ldexp(1.0, -8) : q.weights_scale;
    double high = q.per_channel_scales ? 15.0 / 8.0 : q.weights_scale;
    if (!q.channel_scales.empty()) {  // given ones: each must be exact-friendly
        low = *std::min_element(q.channel_scales.begin(), q.channel_scales.end());
        high = *std::max_element(q.channel_scales.begin(), q.channel_scales.end());
        for (float s : q.channel_scales)
            if (significant_bits(s) > 12) return why("a per-channel wsc has more than 12 significant bits");
    }
    if (significant_bits(q.dst_scale) != 1) return why("dsc is not a power of two");
    // wsc=oc draws k/2^e, k odd in [1, 15], e in [3, 8] (data.cpp)
    const double m_low = double(q.src_scale) * low / q.dst_scale, m_high = double(q.src_scale) * high / q.dst_scale;
    if (m_low < std::ldexp(1.0, -31) || m_high >= std::ldexp(1.0, 30))
        return why("M must lie in [2^-31, 2^30), the multipliers TFLite's QuantizeMultiplier writes");
    return "";
}

std::string quantized_unclaimed(const PluginInfo& info, const Case& c) {
    const QuantizedDescriptor& q = c.qconv;
    if (info.abi_major == 1 && info.abi_minor < 5)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has no integer data types (quantized convolution: ABI 1.5)";
    if (q.general_output() && info.abi_major == 1 && info.abi_minor < 7)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has no float dst, rounded s32 dst or post-ops for a quantized case (ABI 1.7, quantization.h)";
    if (q.per_channel_weights_zero_points && info.abi_major == 1 && info.abi_minor < 8)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has one weights zero point per tensor (per-output-channel weights zero points: ABI 1.8, "
               "quantization.h)";
    if (!q.dst_scales.empty() && info.abi_major == 1 && info.abi_minor < 9)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has one dst scale per tensor (per-output-channel dst scales: ABI 1.9, quantization.h)";
    if (q.s32_zero_points && info.abi_major == 1 && info.abi_minor < 8)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has zero points in their tensors' types (s32 zero points, zpt=s32: ABI 1.8, quantization.h)";
    if (q.s32_zero_points && !info.zero_points_outside_types)
        return "zero points outside their tensors' types (zpt=s32, oneDNN's s32 zero points): the claims do not "
               "name \"zero_points_outside_types\" (docs/exec-protocol.md)";
    const auto claims = [&](IntegerType t) { return (info.dtypes & CONVCHECK_BIT(abi_dtype(t))) != 0; };
    for (const auto& [tensor, type] : {std::pair{"src", q.src}, std::pair{"weights", q.weights}})
        if (!claims(type)) return "the plugin does not claim dtype " + std::string(to_string(type)) + " (" + tensor + ")";
    if (q.float_dst && !(info.dtypes & CONVCHECK_BIT(static_cast<int>(*q.float_dst))))
        return "the plugin does not claim dtype " + std::string(to_string(*q.float_dst)) + " (dst)";
    if (!q.float_dst && !claims(q.dst)) return "the plugin does not claim dtype " + std::string(to_string(q.dst)) + " (dst)";
    if (std::string why = post_ops_unclaimed(info, q.conv); !why.empty()) return why;
    if (q.conv.has_bias && !q.f32_bias && !claims(IntegerType::s32)) return "the plugin does not claim dtype s32 (the bias)";
    if (q.f32_bias && info.abi_major == 1 && info.abi_minor < 6)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has no f32 bias for a quantized case (ABI 1.6, quantization.h)";
    if ((q.per_channel_src_zero_points || q.per_channel_dst_zero_points) && info.abi_major == 1 && info.abi_minor < 7)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has one src and one dst zero point per tensor (per-channel zero points: ABI 1.7, quantization.h)";
    if (q.f32_bias && !(info.dtypes & CONVCHECK_BIT(CONVCHECK_F32)))
        return "the plugin does not claim dtype f32 (the bias, bdt=f32)";
    const ConvDescriptor& d = q.conv;
    if (std::string why = layout_unclaimed(info, d); !why.empty()) return why;
    if (!(info.ranks & CONVCHECK_BIT(d.rank))) return "the plugin does not claim rank " + std::to_string(d.rank);
    if (!(info.data_formats & CONVCHECK_BIT(static_cast<int>(d.data_format))))
        return "the plugin does not claim data format " + std::string(to_string(d.data_format));
    if (!(info.filter_formats & CONVCHECK_BIT(static_cast<int>(d.filter_format))))
        return "the plugin does not claim filter format " + std::string(to_string(d.filter_format));
    return "";
}

void check_quantized(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                     const CaseMemory& needs, CaseResult& r) {
    const QuantizedDescriptor& q = c.qconv;
    const ConvDescriptor& d = q.conv;
    if (c.fill != accuracy::Fill::standard && c.fill != accuracy::Fill::ties &&
        declined(std::string("--fill ") + accuracy::to_string(c.fill) +
                     ": a quantized case draws its integers over their whole ranges, or near the zero points with "
                     "fill=ties (docs/quantized.md); the other fills are float data",
                 r))
        return;
    if (!c.vector_dir.empty() && declined("quantized convolution has no stored vectors in the runner yet", r)) return;
    const QuantizedData data = quantized_data(q, c.seed, c.fill == accuracy::Fill::ties);
    const std::vector<std::int32_t>& szp = data.src_zero_points;  // one, or one per input channel
    const std::vector<std::int32_t>& wzp = data.weights_zero_points;  // one, or one per output channel
    const std::vector<std::int32_t> in_accumulator = data.accumulator_bias();  // zeros for an f32 bias
    const reference::IntegerSums sums =
        reference::integer_convolution_sum(d, {data.src, data.weights, in_accumulator, szp, wzp});
    if (std::int64_t first = -1; !reference::fits_int32_accumulator(sums, &first))
        throw std::logic_error("quantized case " + to_string(q) + ": output " + std::to_string(first) +
                               " can leave s32 although the descriptor is valid");
    // the accumulator the backend declares: exact s32, or s16 pairs where they are defined (u8 src, s8 weights, no
    // weights zero point, one src zero point; elsewhere a backend declaring them is held to the exact sum)
    // (acc=f32: the model sums in f32, not in a declared integer accumulator: held to the exact sum)
    const bool s16_pairs = backend.info.integer_accumulator == CONVCHECK_ACCUMULATOR_S16_PAIRS && !q.f32_accumulation &&
                           q.src == IntegerType::u8 && q.weights == IntegerType::s8 && wzp.size() == 1 &&
                           wzp[0] == 0 && szp.size() == 1;
    const std::vector<std::int64_t> accumulator =
        s16_pairs ? reference::s16_pairs_sum(d, {data.src, data.weights, in_accumulator, szp, wzp}) : sums.acc;
    // a float dst, post-ops or an f32 accumulation: the general output, in bound mode (general.cpp)
    if (q.judged_as_general())
        return check_quantized_general(backend, c, s, contract, needs, data, accumulator, r);
    const std::vector<double> multiplier = reference::output_multipliers(q, data.weights_scales);
    // exact mode holds a declared rule; bound mode (and a backend that names none) TOSA's window, which also
    // admits a declared rule's own result (double rounding lands one off the exact value where its first rounding
    // carries, outside the window)
    Requantization rule = Requantization::double_rounding;
    const bool declared = declared_rule(backend.info, &rule);
    std::int64_t spatial = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
    const auto channel = [&](std::int64_t i) { return (i / spatial) % d.out_channels; };
    const auto dst_zero_point = [&](std::int64_t oc) {  // one, or output channel oc's
        return data.dst_zero_points.size() == 1 ? data.dst_zero_points[0] : data.dst_zero_points[static_cast<std::size_t>(oc)];
    };

    // each output under each of the four rules (kRequantizations' order), once; what each output may be: one integer
    // under a declared rule, else the window; and the fill, a value none is
    constexpr std::size_t kRules = std::size(reference::kRequantizations);
    const std::size_t declared_k = static_cast<std::size_t>(
        std::find(std::begin(reference::kRequantizations), std::end(reference::kRequantizations), rule) -
        std::begin(reference::kRequantizations));
    const std::size_t n = sums.acc.size();
    // an f32 bias (bdt=f32) or a rounded s32 dst (oneDNN's f32 arithmetic): only the two f32 rules are defined
    // (quantized_output_f32_bias); a backend declaring an integer rule is judged by the window
    std::array<bool, kRules> defined;
    for (std::size_t k = 0; k < kRules; ++k)
        defined[k] = !(q.f32_bias || q.rounded_s32()) || reference::kRequantizations[k] == Requantization::nearest_even_f32 ||
                     reference::kRequantizations[k] == Requantization::nearest_even_f32_with_zero_point;
    const bool held = declared && defined[declared_k];  // the declared rule gives one integer per output
    const bool named = c.mode == Mode::exact && held;
    std::vector<std::array<std::int64_t, kRules>> by_rule(n);
    std::vector<reference::IntegerWindow> allowed(n);
    std::set<std::int64_t> possible;
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t oc = channel(std::int64_t(i));
        const double m = multiplier[static_cast<std::size_t>(oc)];
        const float bias = q.f32_bias ? data.f32_bias[static_cast<std::size_t>(oc)] : 0.0f;
        const std::int32_t dzp = dst_zero_point(oc);
        for (std::size_t k = 0; k < kRules; ++k)
            by_rule[i][k] = !defined[k] ? 0
                            : !q.f32_bias ? reference::quantized_output(q, accumulator[i], m, dzp, reference::kRequantizations[k])
                            : defined[k]
                                ? *reference::quantized_output_f32_bias(q, accumulator[i], m, bias, dzp, reference::kRequantizations[k])
                                : 0;
        const std::int64_t own = by_rule[i][declared_k];
        allowed[i] = named       ? reference::IntegerWindow{own, own}
                     : q.f32_bias ? reference::quantized_output_window_f32_bias(q, accumulator[i], m, bias, dzp)
                                  : reference::quantized_output_window(q, accumulator[i], m, dzp);
        if (held && !named) allowed[i] = {std::min(allowed[i].lowest, own), std::max(allowed[i].highest, own)};
        for (std::int64_t v = allowed[i].lowest; v <= allowed[i].highest; ++v) possible.insert(v);
    }
    std::int64_t fill = highest(q.dst);
    while (possible.count(fill) && fill > lowest(q.dst)) --fill;

    QuantizedOutputs out;
    const ChildOutcome o = run_quantized(backend, q, data, fill, s, needs, out);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;

    // the comparison: every output inside what it may be
    const OutputLocation where = conv_location(d);
    ErrorReport e;
    const accuracy::OnMismatch count = count_failures(e, where);
    accuracy::Comparison cmp;
    cmp.elements = static_cast<std::int64_t>(n);
    std::array<bool, kRules> fits;  // which rules every output agrees with
    fits.fill(true);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t got = out.got[i];
        for (std::size_t k = 0; k < kRules; ++k) fits[k] = fits[k] && defined[k] && got == by_rule[i][k];
        const std::int64_t want = std::clamp(got, allowed[i].lowest, allowed[i].highest);
        const double error = std::fabs(double(got - want));
        if (error > cmp.max_abs || cmp.worst_index < 0)
            cmp.max_abs = error, cmp.worst_index = std::int64_t(i), cmp.worst_got = double(got), cmp.worst_want = double(want);
        if (got == want) continue;
        if (cmp.mismatches++ == 0) cmp.first_mismatch = std::int64_t(i);
        count(std::int64_t(i));
    }
    complete_error_report(where, cmp, false, e);
    r.error = e;
    if (q.dst != IntegerType::s32 || q.rounded_s32()) {  // what the outputs say of the rule the backend follows, pass or fail
        r.requantization_fit.emplace();
        for (std::size_t k = 0; k < kRules; ++k)
            if (fits[k]) r.requantization_fit->push_back(to_string(reference::kRequantizations[k]));
    }
    if (cmp.mismatches > 0) {
        const std::int64_t i = cmp.first_mismatch;
        const double m = multiplier[static_cast<std::size_t>(channel(i))];
        std::string text = "dst" + coordinates_text(output_coordinates(d, i)) + " = " + std::to_string(out.got[i]);
        if (q.dst == IntegerType::s32 && !q.rounded_s32()) {
            text += ", want the accumulator " + std::to_string(accumulator[static_cast<std::size_t>(i)]);
        } else {
            if (named)
                text += ", want " + std::to_string(allowed[i].lowest) + " under the declared " + to_string(rule);
            else
                text += ", outside TOSA INEXACT_ROUND's [" + std::to_string(allowed[i].lowest) + ", " +
                        std::to_string(allowed[i].highest) + "]" +
                        (held ? std::string(" (with the declared ") + to_string(rule) + "'s own result)" : "");
            const std::int64_t a = accumulator[static_cast<std::size_t>(i)];
            text += ": acc " + std::to_string(a) + " x M " + integer_text(m);
            if (q.f32_bias) {
                const double b = data.f32_bias[static_cast<std::size_t>(channel(i))];
                text += " + f32 bias " + integer_text(b) + " / dsc " + integer_text(q.dst_scale) + " = " +
                        integer_text(double(a) * m + b / q.dst_scale);
            } else {
                text += " = " + integer_text(double(a) * m);
            }
            text += ", + dzp " + std::to_string(dst_zero_point(channel(i))) + " (";
            for (std::size_t k = 0, shown = 0; k < kRules; ++k)
                if (defined[k])
                    text += std::string(shown++ ? ", " : "") + to_string(reference::kRequantizations[k]) + " gives " +
                            std::to_string(by_rule[static_cast<std::size_t>(i)][k]);
            if (q.f32_bias || q.rounded_s32()) text += "; double and single rounding have no f32 bias or rounded s32";
            text += ")";
        }
        if (s16_pairs)
            text += "; acc is the declared s16-pair accumulator's (the exact sum is " +
                    std::to_string(sums.acc[static_cast<std::size_t>(i)]) + ")";
        text += "; " + std::to_string(cmp.mismatches) + " of " + std::to_string(n) + " outputs differ";
        if (q.dst != IntegerType::s32 || q.rounded_s32()) {
            std::string fit;
            for (std::size_t k = 0; k < kRules; ++k)
                if (fits[k]) fit += std::string(fit.empty() ? "" : " and ") + to_string(reference::kRequantizations[k]);
            text += fit.empty() ? "; the outputs fit none of the four rules" : "; the outputs fit " + fit;
        }
        if (out.unwritten > 0)
            text += "; " + std::to_string(out.unwritten) + " outputs hold " + std::to_string(fill) +
                    ", the value dst was filled with and no right answer here (never written, or computed wrong)";
        r.status = Status::failed;
        r.kind = out.unwritten == cmp.mismatches ? Kind::unwritten : Kind::mismatch;
        r.reason = text;
    }
    leak_status(o, s, r);
}

}  // namespace convcheck::runner::detail
