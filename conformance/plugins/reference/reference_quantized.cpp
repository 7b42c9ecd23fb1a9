// The reference plugin's quantized convolution (reference_quantized.hpp): the integers read from the buffers in
// their layouts, the literal integer sum, each output requantized by the instance's rule.
#include "reference_quantized.hpp"

#include <algorithm>
#include <cmath>

#include "reference_post_ops.hpp"

#include "convcheck/core/dtype.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/reference/quantized_general_output.hpp"
#include "convcheck/reference/quantized_convolution.hpp"
#include "convcheck/reference/quantized_output.hpp"

namespace reference_plugin {

namespace {

using namespace convcheck_plugin_support;
using convcheck::reference::Requantization;

// One tensor's integers in canonical order (NCX, OIX).
std::vector<std::int32_t> read(const convcheck::ConvDescriptor& d, convcheck::TensorRole role, const void* data,
                               int32_t dtype) {
    std::vector<std::int32_t> v;
    convcheck::for_each_element(d, role, [&](std::int64_t, std::int64_t offset) {
        v.push_back(static_cast<std::int32_t>(load_integer(data, dtype, offset)));
    });
    return v;
}

struct QuantizedPlan : convcheck_conv_plan {
    QuantizedPlan(const convcheck_conv_desc& desc, Requantization rule, bool f32_sum)
        : convcheck_conv_plan(desc), c(convcheck::runner::quantized_from_abi(desc)), rule(rule), f32_sum(f32_sum) {
        convcheck::validate(c.q);  // throws ConvError -> an invalid-argument error
        if (const std::string why = quantized_unsupported(desc, rule, f32_sum); !why.empty())
            throw PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        namespace ref = convcheck::reference;
        const convcheck::QuantizedDescriptor& q = c.q;
        const convcheck::ConvDescriptor& d = q.conv;
        const std::vector<std::int32_t> src = read(d, convcheck::TensorRole::src, args.src, desc.src_dtype);
        const std::vector<std::int32_t> weights = read(d, convcheck::TensorRole::weights, args.weights, desc.weights_dtype);
        std::vector<std::int32_t> bias;  // in the accumulator: s32, or zeros with an f32 bias (added after the scales)
        std::vector<float> f32_bias;
        for (std::int64_t o = 0; d.has_bias && o < d.out_channels; ++o) {
            bias.push_back(q.f32_bias ? 0 : static_cast<std::int32_t>(load_integer(args.bias, CONVCHECK_S32, o)));
            if (q.f32_bias) f32_bias.push_back(static_cast<const float*>(args.bias)[o]);
        }
        std::int64_t spatial = 1;
        for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
        if (f32_sum) {  // the ONNX QDQ model's f32 arithmetic, step by step
            const std::vector<float> sums = ref::qdq_f32_sum(d, {src, weights, bias, c.src_zero_points, c.weights_zero_points},
                                                             q.src_scale, c.weights_scales, f32_bias);
            convcheck::for_each_element(d, convcheck::TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
                const auto oc = static_cast<std::size_t>((flat / spatial) % d.out_channels);
                float v = sums[static_cast<std::size_t>(flat)];
                for (const convcheck::PostOp& p : d.post_ops)  // Relu, Clip
                    v = p.eltwise == convcheck::EltwiseAlgorithm::relu ? std::max(v, 0.0f) : std::min(std::max(v, p.alpha), p.beta);
                const std::int32_t dzp = c.dst_zero_points.size() == 1 ? c.dst_zero_points[0] : c.dst_zero_points[oc];
                // QuantizeLinear: saturate(round_to_even(v / y_scale) + y_zero_point)
                const double x = double(std::nearbyint(v / q.dst_scale_of(std::int64_t(oc)))) + double(dzp);
                store_integer(args.dst, desc.dst_dtype, offset,
                              static_cast<std::int64_t>(std::min(std::max(x, double(q.dst_min)), double(q.dst_max))));
            });
            write_implementation(&args, "reference_qdq_f32_sum");
            return nullptr;
        }
        // src's zero points per tensor or per input channel (1.7), the weights' per tensor or per output channel (1.8)
        const ref::IntegerSums sums =
            ref::integer_convolution_sum(d, {src, weights, bias, c.src_zero_points, c.weights_zero_points});
        if (!ref::fits_int32_accumulator(sums))
            throw PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, "an s32 accumulator would overflow (the case is invalid)");
        const std::vector<double> m = ref::output_multipliers(q, c.weights_scales);
        // ABI 1.7's general output, literally in double; and 1.9's dst scales per output channel (acc=f32 or the
        // general output: within their bound)
        if (q.float_dst || !d.post_ops.empty() || !q.dst_scales.empty()) {
            ref::PostOpData post;
            post.operands = convcheck_reference_plugin::post_op_operands(d, args);
            if (convcheck::has_sum(d.post_ops)) {  // dst_prev, read before dst is written
                post.prior_dst.resize(static_cast<std::size_t>(d.dst_elements()));
                convcheck::for_each_element(d, convcheck::TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
                    post.prior_dst[static_cast<std::size_t>(flat)] =
                        q.float_dst ? convcheck::load_as_double(args.dst, *q.float_dst, offset)
                                    : double(load_integer(args.dst, desc.dst_dtype, offset));
                });
            }
            std::vector<double> out(static_cast<std::size_t>(d.dst_elements()));
            for (std::size_t i = 0; i < out.size(); ++i) {
                const auto oc = static_cast<std::size_t>((std::int64_t(i) / spatial) % d.out_channels);
                const double wsc = c.weights_scales[c.weights_scales.size() == 1 ? 0 : oc];
                const std::int32_t dzp = c.dst_zero_points.size() == 1 ? c.dst_zero_points[0] : c.dst_zero_points[oc];
                out[i] = ref::quantized_general_output(
                    q, ref::quantized_real_value(q, post, std::int64_t(i), sums.acc[i], wsc, q.f32_bias ? f32_bias[oc] : 0.0),
                    dzp, std::int64_t(oc));
            }
            convcheck::for_each_element(d, convcheck::TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
                if (q.float_dst) convcheck::store_from_double(args.dst, *q.float_dst, offset, out[static_cast<std::size_t>(flat)]);
                else store_integer(args.dst, desc.dst_dtype, offset, static_cast<std::int64_t>(out[static_cast<std::size_t>(flat)]));
            });
            write_implementation(&args, "reference_integer_sum_f64_general_output");
            return nullptr;
        }
        convcheck::for_each_element(d, convcheck::TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
            const auto oc = static_cast<std::size_t>((flat / spatial) % d.out_channels);
            const std::int32_t dzp = c.dst_zero_points.size() == 1 ? c.dst_zero_points[0] : c.dst_zero_points[oc];
            store_integer(args.dst, desc.dst_dtype, offset,
                          q.f32_bias ? *ref::quantized_output_f32_bias(q, sums.acc[flat], m[oc], f32_bias[oc], dzp, rule)
                                     : ref::quantized_output(q, sums.acc[flat], m[oc], dzp, rule));
        });
        write_implementation(&args, std::string("reference_integer_sum_") + ref::to_string(rule));
        return nullptr;
    }
    const convcheck::runner::QuantizedCase c;
    const Requantization rule;
    const bool f32_sum;
};

}  // namespace

bool parse_rule(const std::string& text, Requantization* rule) {
    for (Requantization r : convcheck::reference::kRequantizations)
        if (text == convcheck::reference::to_string(r)) return *rule = r, true;
    return false;
}

int32_t abi_rule(Requantization rule) {
    switch (rule) {
        case Requantization::double_rounding: return CONVCHECK_REQUANTIZATION_DOUBLE_ROUNDING;
        case Requantization::single_rounding: return CONVCHECK_REQUANTIZATION_SINGLE_ROUNDING;
        case Requantization::nearest_even_f32: return CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32;
        case Requantization::nearest_even_f32_with_zero_point: return CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT;
    }
    return CONVCHECK_REQUANTIZATION_UNNAMED;
}

std::string quantized_unsupported(const convcheck_conv_desc& desc, Requantization rule, bool f32_sum) {
    const convcheck::runner::QuantizedCase c = convcheck::runner::quantized_from_abi(desc);
    convcheck::validate(c.q);  // throws ConvError -> error value
    if (f32_sum && (c.q.float_dst || c.q.dst == convcheck::IntegerType::s32))
        return "sum=f32 computes an ONNX QDQ model, whose QuantizeLinear gives a u8 or s8 dst";
    for (const convcheck::PostOp& p : c.q.conv.post_ops)
        if (f32_sum && (p.kind != convcheck::PostOpKind::eltwise ||
                        (p.eltwise != convcheck::EltwiseAlgorithm::relu && p.eltwise != convcheck::EltwiseAlgorithm::clip) ||
                        (p.eltwise == convcheck::EltwiseAlgorithm::relu && p.alpha != 0.0f)))
            return "sum=f32 computes an ONNX QDQ model, whose post-ops are Relu and Clip";
    // computed in double, whatever the rule (dst scales per output channel too)
    const bool general = c.q.float_dst || !c.q.conv.post_ops.empty() || !c.q.dst_scales.empty();
    if (!general && (c.q.f32_bias || c.q.rounded_s32()) && !convcheck::reference::quantized_output_f32_bias(c.q, 0, 1.0, 0.0f, rule))
        return std::string("an f32 bias and a rounded s32 dst are oneDNN's f32 arithmetic: ") +
               convcheck::reference::to_string(rule) + " is integer arithmetic and has neither (docs/quantized.md)";
    const convcheck::ConvDescriptor& d = c.q.conv;
    // the integers as int32 and, per output, four int64 sums
    const double copies = 4.0 * (double(d.src_elements()) + double(d.weights_elements())) + 32.0 * double(d.dst_elements());
    if (copies > 4.0 * (1 << 30))
        return "the reference plugin copies every tensor: this quantized case needs " +
               std::to_string(static_cast<long long>(copies / (1 << 20))) + " MiB of copies, more than its 4096 MiB";
    return "";
}

std::unique_ptr<convcheck_conv_plan> quantized_plan(const convcheck_conv_desc& desc, Requantization rule, bool f32_sum) {
    return std::make_unique<QuantizedPlan>(desc, rule, f32_sum);
}

}  // namespace reference_plugin
