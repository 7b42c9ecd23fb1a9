// The armnn plugin's quantized convolution (armnn_quantized.hpp). The translation (Arm NN 20.08:
// include/armnn/Types.hpp, Tensor.hpp; CpuRef's workloads, src/backends/reference/workloads):
//   types       src and dst QAsymmU8 (u8) or QAsymmS8 (s8) with the case's scale and zero point (TensorInfo's
//               quantization scale and offset); weights QSymmS8 (s8, zero point 0), QAsymmS8 (s8 with a zero
//               point) or QAsymmU8 (u8); bias Signed32 with scale src_scale * weights_scale and offset 0.
//               CpuRef takes a dst of its input's type only, and no Signed32 dst: its own check declines.
//   per axis    per-channel weights scales are QSymmS8 weights quantized per axis (TensorInfo with scales and
//               a quantization dim; the bias per axis too). Convolution2d: dim 0 (O). DepthwiseConvolution2d's
//               weights are [M][C][H][W] and output channel c*M + m: with M = 1 its scales lie on dim 1, which
//               CpuRef's workload check refuses ("Quantization dimension for per-axis quantization expected to
//               be 0"); with M > 1 no one dim holds them (declined by the plugin).
//   range       a narrowed [dst_min, dst_max] is a BoundedReLu Activation layer after the convolution (how Arm
//               NN's parsers give a fused activation), on the real values (dst_min - zp) * scale and
//               (dst_max - zp) * scale: CpuRef's Activation dequantizes each output, clamps it in f32 and
//               quantizes it again, which gives back the clamped integer exactly.
//   rounding    CpuRef's Convolve (ConvImpl.cpp) decodes every src and weights element to f32,
//               (q - offset) * scale (armnn::Dequantize), sums the f32 products in f32, adds the bias decoded
//               to f32 (int32 * scale), and encodes the sum with armnn::Quantize: round(sum / dst_scale), ties
//               away from zero, + offset, clamped to the type. No integer accumulator and none of the four
//               named rules: the plugin declares CONVCHECK_REQUANTIZATION_UNNAMED (TOSA's INEXACT_ROUND window).
//   geometry    rank 2 in NCHW or NHWC (Arm NN's m_DataLayout), rank 1 as height 1 (the same memory); a 3-D case
//               or a negative pad would need the float adaptations' copies (depth->batch, crop): declined.
#include "armnn_quantized.hpp"

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "armnn_layer.hpp"
#include "convcheck/plugin_quantized.hpp"

namespace convcheck_armnn {

namespace {

namespace support = convcheck_plugin_support;

bool is_depthwise(const convcheck_conv_desc& d) { return d.groups > 1 && d.groups == d.in_channels; }

// The 2-D case Arm NN is given: rank 1 as height 1.
struct Geometry {
    int64_t ih = 1, iw = 1, oh = 1, ow = 1, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
    int64_t top = 0, left = 0, bottom = 0, right = 0;
};
Geometry geometry_of(const convcheck_conv_desc& d) {
    Geometry g;
    const int w = d.rank - 1;
    g.iw = d.input_size[w], g.ow = support::output_size(d, w), g.kw = d.kernel_size[w], g.sw = d.strides[w];
    g.dw = d.dilations[w], g.left = d.pads_begin[w], g.right = d.pads_end[w];
    if (d.rank == 2) {
        g.ih = d.input_size[0], g.oh = support::output_size(d, 0), g.kh = d.kernel_size[0], g.sh = d.strides[0];
        g.dh = d.dilations[0], g.top = d.pads_begin[0], g.bottom = d.pads_end[0];
    }
    return g;
}

// Why the translation does not take the case, or "".
std::string untaken(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    if (const std::string why = support::dense_only(d, "Arm NN"); !why.empty()) return why;
    if (d.rank == 3)
        return "Arm NN 20.08 has no 3-D convolution (INetwork: AddConvolution2dLayer and AddDepthwiseConvolution2dLayer "
               "only), and the plugin's depth->batch adaptation copies float tensors only";
    for (int a = 0; a < d.rank; ++a)
        if (d.pads_begin[a] < 0 || d.pads_end[a] < 0)
            return "a negative pad: Arm NN's pads are unsigned int, and the plugin's crop adaptation copies float tensors only";
    if (d.groups > 1 && !is_depthwise(d))
        return "Arm NN 20.08 has no grouped convolution: Convolution2dDescriptor has no groups, and "
               "DepthwiseConvolution2d computes groups = C only (here groups = " + std::to_string(d.groups) +
               ", C = " + std::to_string(d.in_channels) + ")";
    if (support::per_channel_weights_zero_points(q))
        return "Arm NN 20.08's TensorInfo holds one quantization offset per tensor (per-axis quantization holds "
               "scales and no offsets), not a weights zero point per output channel";
    if (q.weights_scale_count > 1) {
        if (d.weights_dtype != CONVCHECK_S8 || q.weights_zero_point != 0)
            return "Arm NN 20.08 quantizes weights per axis as QSymmS8 only (symmetric s8, no offset: TensorInfo's "
                   "per-axis quantization holds scales and no offsets), not " +
                   std::string(support::dtype_name(d.weights_dtype)) + " weights with zero point " +
                   std::to_string(q.weights_zero_point);
        const int64_t m = d.out_channels / d.in_channels;
        if (is_depthwise(d) && m > 1 && d.in_channels > 1)
            return "per-channel scales on depthwise weights with multiplier " + std::to_string(m) + " > 1 and C = " +
                   std::to_string(d.in_channels) + " > 1: Arm NN 20.08's depthwise weights are [M][C][H][W] and one "
                   "quantization dim (TensorInfo::SetQuantizationDim) holds M or C scales, not the O = C * M of "
                   "output channel c * M + m";
    }
    const Geometry g = geometry_of(d);
    int64_t src = 0, dst = 0, weights = 0;
    const auto fits = [](int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out) && *out <= int64_t(UINT_MAX); };
    const int64_t dst_bytes = int64_t(support::integer_bytes(d.dst_dtype));
    if (!(fits(d.batch * d.in_channels, g.ih * g.iw, &src) && fits(d.batch * d.out_channels * dst_bytes, g.oh * g.ow, &dst) &&
          fits(d.out_channels * (d.in_channels / d.groups), g.kh * g.kw, &weights)))
        return "the armnn plugin cannot express this case to Arm NN (declined): a tensor has more than 2^32 - 1 bytes, "
               "and Arm NN's TensorInfo::GetNumBytes() and GetNumElements() are unsigned int";
    return "";
}

armnn::DataType activation_type(int32_t dtype) {
    if (dtype == CONVCHECK_U8) return armnn::DataType::QAsymmU8;
    if (dtype == CONVCHECK_S8) return armnn::DataType::QAsymmS8;
    return armnn::DataType::Signed32;
}

armnn::DataType weights_type(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    if (d.weights_dtype == CONVCHECK_U8) return armnn::DataType::QAsymmU8;
    return q.weights_zero_point == 0 ? armnn::DataType::QSymmS8 : armnn::DataType::QAsymmS8;
}

const char* type_name(armnn::DataType t) { return armnn::GetDataTypeName(t); }

unsigned int u(int64_t v) { return static_cast<unsigned int>(v); }

// Everything Arm NN is handed for one case.
struct QuantizedTranslation {
    QuantizedTranslation(const convcheck_conv_desc& d, const convcheck_quantization& q) : g(geometry_of(d)) {
        depthwise = is_depthwise(d);
        nhwc = d.data_format == CONVCHECK_NXC;
        const auto activations = [&](int64_t c, int64_t h, int64_t w) {
            return nhwc ? armnn::TensorShape({u(d.batch), u(h), u(w), u(c)}) : armnn::TensorShape({u(d.batch), u(c), u(h), u(w)});
        };
        input = armnn::TensorInfo(activations(d.in_channels, g.ih, g.iw), activation_type(d.src_dtype), q.src_scale,
                                  q.src_zero_point);
        output = armnn::TensorInfo(activations(d.out_channels, g.oh, g.ow), activation_type(d.dst_dtype), q.dst_scale,
                                   q.dst_zero_point);
        const int64_t c = d.in_channels, o = d.out_channels, m = o / c;
        const armnn::TensorShape weights_shape =
            depthwise ? armnn::TensorShape({u(m), u(c), u(g.kh), u(g.kw)})
            : nhwc    ? armnn::TensorShape({u(o), u(g.kh), u(g.kw), u(c)})
                      : armnn::TensorShape({u(o), u(c), u(g.kh), u(g.kw)});
        if (q.weights_scale_count == 1) {
            weights = armnn::TensorInfo(weights_shape, weights_type(d, q), q.weights_scales[0], q.weights_zero_point);
            bias = armnn::TensorInfo({u(o)}, armnn::DataType::Signed32, q.src_scale * q.weights_scales[0], 0);
        } else {
            std::vector<float> scales(q.weights_scales, q.weights_scales + q.weights_scale_count), bias_scales;
            for (float s : scales) bias_scales.push_back(q.src_scale * s);
            weights = armnn::TensorInfo(weights_shape, armnn::DataType::QSymmS8, scales, depthwise && m == 1 ? 1 : 0);
            bias = armnn::TensorInfo({u(o)}, armnn::DataType::Signed32, bias_scales, 0);
        }
        has_bias = d.has_bias != 0;
        const int32_t full_min = d.dst_dtype == CONVCHECK_U8 ? 0 : -128, full_max = d.dst_dtype == CONVCHECK_U8 ? 255 : 127;
        narrowed = d.dst_dtype != CONVCHECK_S32 && (q.dst_min != full_min || q.dst_max != full_max);
        if (narrowed)
            clamp = armnn::ActivationDescriptor(armnn::ActivationFunction::BoundedReLu,
                                                float(q.dst_max - q.dst_zero_point) * q.dst_scale,
                                                float(q.dst_min - q.dst_zero_point) * q.dst_scale);
        const auto fill = [&](auto& desc) {
            desc.m_PadTop = u(g.top), desc.m_PadBottom = u(g.bottom), desc.m_PadLeft = u(g.left), desc.m_PadRight = u(g.right);
            desc.m_StrideY = u(g.sh), desc.m_StrideX = u(g.sw), desc.m_DilationY = u(g.dh), desc.m_DilationX = u(g.dw);
            desc.m_BiasEnabled = has_bias;
            desc.m_DataLayout = nhwc ? armnn::DataLayout::NHWC : armnn::DataLayout::NCHW;
        };
        fill(conv);
        fill(depthwise_conv);
    }

    // "" when CpuRef's ILayerSupport takes the layers, else its reason.
    std::string refused(const armnn::ILayerSupport& support) const {
        std::string reason;
        const armnn::Optional<armnn::TensorInfo> b = has_bias ? armnn::Optional<armnn::TensorInfo>(bias) : armnn::EmptyOptional();
        const armnn::Optional<std::string&> why(reason);
        const bool ok = depthwise ? support.IsDepthwiseConvolutionSupported(input, output, depthwise_conv, weights, b, why)
                                  : support.IsConvolution2dSupported(input, output, conv, weights, b, why);
        if (!ok) return "Arm NN's CpuRef refused the " + std::string(depthwise ? "DepthwiseConvolution2d" : "Convolution2d") +
                        " layer: " + one_line(reason);
        if (narrowed && !support.IsActivationSupported(output, output, clamp, why))
            return "Arm NN's CpuRef refused the BoundedReLu Activation layer of the narrowed range: " + one_line(reason);
        return "";
    }

    std::string implementation() const {
        return std::string("armnn:CpuRef:") + (depthwise ? "DepthwiseConvolution2d(" : "Convolution2d(") +
               type_name(input.GetDataType()) + "," + type_name(weights.GetDataType()) +
               (weights.HasPerAxisQuantization() ? " per axis," : ",") + type_name(output.GetDataType()) + ")" +
               (narrowed ? "+BoundedReLu" : "");
    }

    Geometry g;
    bool depthwise = false, nhwc = false, has_bias = false, narrowed = false;
    armnn::TensorInfo input, output, weights, bias;
    armnn::Convolution2dDescriptor conv;
    armnn::DepthwiseConvolution2dDescriptor depthwise_conv;
    armnn::ActivationDescriptor clamp;
};

// The runner's weights (OIX [O][I/G][k], XIO [k][I/G][O] or OXI [O][k][I/G]) in the layer's order: OIHW (NCHW),
// OHWI (NHWC), or depthwise [M][C][H][W] with output channel c*M + m. One byte an element.
std::vector<unsigned char> layer_weights(const convcheck_conv_desc& d, const QuantizedTranslation& t, const void* from) {
    const int64_t gi = d.in_channels / d.groups, o_count = d.out_channels, taps = t.g.kh * t.g.kw;
    const int64_t m = o_count / d.in_channels;
    std::vector<unsigned char> w(static_cast<size_t>(o_count * gi * taps));
    const auto* src = static_cast<const unsigned char*>(from);
    for (int64_t o = 0; o < o_count; ++o)
        for (int64_t i = 0; i < gi; ++i)
            for (int64_t k = 0; k < taps; ++k) {
                const int64_t at = d.filter_format == CONVCHECK_OIX ? (o * gi + i) * taps + k
                                   : d.filter_format == CONVCHECK_XIO ? (k * gi + i) * o_count + o
                                                                      : (o * taps + k) * gi + i;  // OXI
                const int64_t to = t.depthwise ? ((o % m) * d.in_channels + o / m) * taps + k
                                   : t.nhwc    ? (o * taps + k) * gi + i
                                               : (o * gi + i) * taps + k;
                w[static_cast<size_t>(to)] = src[at];
            }
    return w;
}

std::unique_ptr<LoadedLayer> load(std::shared_ptr<armnn::IRuntime> runtime, const convcheck_conv_desc& d,
                                  const QuantizedTranslation& t, const void* weights, const void* bias) {
    const std::vector<unsigned char> weights_bytes = layer_weights(d, t, weights);
    const armnn::ConstTensor weights_tensor(t.weights, weights_bytes.data());
    const armnn::Optional<armnn::ConstTensor> bias_tensor =
        t.has_bias ? armnn::Optional<armnn::ConstTensor>(armnn::ConstTensor(t.bias, bias)) : armnn::EmptyOptional();
    const auto add = [&](armnn::INetwork& network) {
        armnn::IConnectableLayer* conv =
            t.depthwise ? network.AddDepthwiseConvolution2dLayer(t.depthwise_conv, weights_tensor, bias_tensor, "conv")
                        : network.AddConvolution2dLayer(t.conv, weights_tensor, bias_tensor, "conv");
        conv->GetOutputSlot(0).SetTensorInfo(t.output);
        if (!t.narrowed) return LoadedLayer::Chain{conv, conv};
        armnn::IConnectableLayer* clamp = network.AddActivationLayer(t.clamp, "range");
        conv->GetOutputSlot(0).Connect(clamp->GetInputSlot(0));
        clamp->GetOutputSlot(0).SetTensorInfo(t.output);
        return LoadedLayer::Chain{conv, clamp};
    };
    try {
        return std::make_unique<LoadedLayer>(std::move(runtime), add, t.input);
    } catch (const armnn::Exception& e) {
        throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, std::string("Arm NN refused the quantized network: ") + e.what());
    }
}

struct QuantizedPrepared : convcheck_conv_plan {
    QuantizedPrepared(std::shared_ptr<armnn::IRuntime> runtime, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), runtime(std::move(runtime)), quantization(*support::quantization_of(desc)) {
        if (const std::string why = inexpressible(desc); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, why);
        if (const std::string why = untaken(desc, quantization.q); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        translation = std::make_unique<QuantizedTranslation>(desc, quantization.q);
        if (inputs.weights != nullptr) loaded = load(this->runtime, desc, *translation, inputs.weights, inputs.bias);
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        std::unique_ptr<LoadedLayer> fresh;
        if (!loaded) fresh = load(runtime, desc, *translation, args.weights, args.bias);
        try {
            (loaded ? *loaded : *fresh).run(args.src, args.dst);
        } catch (const armnn::Exception& e) {
            return support::make_error(std::string("Arm NN: ") + e.what(), error_code_of(e));
        }
        support::write_implementation(&args, translation->implementation());
        return nullptr;
    }

    std::shared_ptr<armnn::IRuntime> runtime;
    const support::QuantizationCopy quantization;  // the runner's extension is valid during prepare only
    std::unique_ptr<QuantizedTranslation> translation;
    std::unique_ptr<LoadedLayer> loaded;
};

}  // namespace

convcheck_error* quantized_query(std::shared_ptr<armnn::IRuntime> runtime, const armnn::ILayerSupport& support,
                                 const convcheck_conv_desc& desc, convcheck_support* out) {
    const convcheck_quantization& q = *support::quantization_of(desc);
    if (const std::string why = inexpressible(desc); !why.empty()) return support::invalid_argument(why);
    if (const std::string why = untaken(desc, q); !why.empty()) return support::unsupported(out, why);
    const QuantizedTranslation t(desc, q);
    if (const std::string refused = t.refused(support); !refused.empty()) return support::unsupported(out, refused);
    // ILayerSupport does not run the workloads' own checks (WorkloadData.cpp: per-axis quantization, bias
    // scales): build the network once, with zero weights and bias, and decline in the words of what it throws.
    const std::vector<unsigned char> weights(static_cast<size_t>(t.weights.GetNumElements()), 0);
    const std::vector<int32_t> bias(static_cast<size_t>(desc.out_channels), 0);
    try {
        load(std::move(runtime), desc, t, weights.data(), bias.data());
    } catch (const support::PluginError& e) {
        return support::unsupported(out, one_line(e.what()));
    }
    return support::supported(out);
}

std::unique_ptr<convcheck_conv_plan> quantized_plan(std::shared_ptr<armnn::IRuntime> runtime, const convcheck_conv_desc& desc,
                                                    const support::PrepareInputs& inputs) {
    return std::make_unique<QuantizedPrepared>(std::move(runtime), desc, inputs);
}

}  // namespace convcheck_armnn
