#include "armnn_layer.hpp"

#include <climits>
#include <cstdint>
#include <cstring>

#include "convcheck/plugin_support.hpp"
#include "convcheck/adaptation/negative_parameter.hpp"
#include "convcheck/adaptation/window_copy.hpp"
#include "armnn_network.hpp"

namespace convcheck_armnn {

namespace support = convcheck_plugin_support;

namespace {

bool depthwise(const convcheck_conv_desc& d) { return d.groups > 1 && d.groups == d.in_channels; }

int64_t kernel_volume(const convcheck_conv_desc& l) { return l.kernel_size[0] * l.kernel_size[1]; }

// a * b, false when it passes UINT_MAX (Arm NN's unsigned int).
bool times(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out) && *out <= int64_t(UINT_MAX); }

// The element counts of the library's three tensors in bytes fit unsigned int (TensorInfo::GetNumBytes).
bool bytes_fit(const convcheck_conv_desc& l) {
    const int64_t bytes = int64_t(support::element_bytes(l.dtype));
    int64_t src = 0, dst = 0, weights = 0;
    return times(bytes * l.batch, l.in_channels, &src) && times(src, l.input_size[0], &src) &&
           times(src, l.input_size[1], &src) && times(bytes * l.batch, l.out_channels, &dst) &&
           times(dst, support::output_size(l, 0), &dst) && times(dst, support::output_size(l, 1), &dst) &&
           times(bytes * l.out_channels, l.in_channels / l.groups, &weights) && times(weights, kernel_volume(l), &weights);
}

armnn::TensorInfo activations(const Translation& t, int64_t channels, int64_t h, int64_t w) {
    const convcheck_conv_desc& l = t.library;
    const auto u = [](int64_t v) { return static_cast<unsigned int>(v); };
    if (l.data_format == CONVCHECK_NXC) return armnn::TensorInfo({u(l.batch), u(h), u(w), u(channels)}, data_type(l.dtype));
    return armnn::TensorInfo({u(l.batch), u(channels), u(h), u(w)}, data_type(l.dtype));
}

template <typename Descriptor>
Descriptor descriptor_of(const Translation& t) {
    const convcheck_conv_desc& l = t.library;
    Descriptor d;
    d.m_PadTop = static_cast<uint32_t>(l.pads_begin[0]);
    d.m_PadBottom = static_cast<uint32_t>(l.pads_end[0]);
    d.m_PadLeft = static_cast<uint32_t>(l.pads_begin[1]);
    d.m_PadRight = static_cast<uint32_t>(l.pads_end[1]);
    d.m_StrideY = static_cast<uint32_t>(l.strides[0]);
    d.m_StrideX = static_cast<uint32_t>(l.strides[1]);
    d.m_DilationY = static_cast<uint32_t>(l.dilations[0]);
    d.m_DilationX = static_cast<uint32_t>(l.dilations[1]);
    d.m_BiasEnabled = l.has_bias != 0;
    d.m_DataLayout = l.data_format == CONVCHECK_NXC ? armnn::DataLayout::NHWC : armnn::DataLayout::NCHW;
    return d;
}

}  // namespace

std::string inexpressible(const convcheck_conv_desc& d) {
    const std::string cannot = "the armnn plugin cannot express ";
    if (d.groups <= 0)
        return cannot + "groups = " + std::to_string(d.groups) + " to Arm NN: it has no groups parameter, so the plugin "
               "chooses the layer from them (1: Convolution2d, C: DepthwiseConvolution2d with multiplier O/C)";
    if (d.in_channels % d.groups != 0 || d.out_channels % d.groups != 0)
        return cannot + "C = " + std::to_string(d.in_channels) + ", O = " + std::to_string(d.out_channels) +
               " with groups = " + std::to_string(d.groups) + " to Arm NN: it has no groups parameter, and these groups "
               "split no channel count into whole groups";
    if (const auto negative = support::first_negative(d))
        return cannot + negative->name + " = " + std::to_string(negative->value) +
               " to Arm NN: its dimensions, strides and dilations are unsigned int";
    for (int a = 0; a < d.rank; ++a) {
        if (d.strides[a] < 1 || d.kernel_size[a] < 1)
            return cannot + (d.strides[a] < 1 ? "strides[" : "kernel_size[") + std::to_string(a) + "] = " +
                   std::to_string(d.strides[a] < 1 ? d.strides[a] : d.kernel_size[a]) +
                   " to Arm NN: the plugin gives Arm NN the output's TensorInfo, and the spec's output size is defined "
                   "for strides and kernel sizes >= 1 only";
        if (support::output_size(d, a) < 0)
            return cannot + "an output size of " + std::to_string(support::output_size(d, a)) + " on axis " +
                   std::to_string(a) + " to Arm NN: the plugin gives Arm NN the output's TensorInfo, whose dimensions "
                   "are unsigned int";
    }
    return "";
}

std::string no_layer(const convcheck_conv_desc& d) {
    if (d.dtype != CONVCHECK_F32 && d.dtype != CONVCHECK_F16 && d.dtype != CONVCHECK_BF16)
        return std::string("Arm NN 20.08 computes Float32, Float16 and BFloat16 (and quantized types), not ") +
               support::dtype_name(d.dtype) + " (armnn/Types.hpp DataType)";
    if (d.groups > 1 && !depthwise(d))
        return "Arm NN 20.08 has no grouped convolution: Convolution2dDescriptor has no groups, and "
               "DepthwiseConvolution2d computes groups = C only (here groups = " + std::to_string(d.groups) +
               ", C = " + std::to_string(d.in_channels) + ")";
    if (d.rank == 3 && d.kernel_size[0] != 1)
        return "Arm NN 20.08 has no 3-D convolution (INetwork: AddConvolution2dLayer and AddDepthwiseConvolution2dLayer "
               "only); a kernel depth of " + std::to_string(d.kernel_size[0]) +
               " sums across depth slices (kernel depth 1 runs as 2-D)";
    const convcheck_conv_desc l = translate(d).library;
    for (int64_t v : {l.batch, l.in_channels, l.out_channels, l.input_size[0], l.input_size[1], l.kernel_size[0],
                      l.kernel_size[1], l.strides[0], l.strides[1], l.dilations[0], l.dilations[1], l.pads_begin[0],
                      l.pads_begin[1], l.pads_end[0], l.pads_end[1]})
        if (v > int64_t(UINT_MAX))
            return "the armnn plugin cannot express " + std::to_string(v) +
                   " to Arm NN (declined): its dimensions, pads, strides and dilations are 32-bit unsigned";
    if (!bytes_fit(l))
        return "the armnn plugin cannot express this case to Arm NN (declined): a tensor has more than 2^32 - 1 bytes, "
               "and Arm NN's TensorInfo::GetNumBytes() and GetNumElements() are unsigned int";
    return "";
}

Translation translate(const convcheck_conv_desc& d) {
    Translation t;
    t.kind = depthwise(d) ? LayerKind::depthwise_convolution2d : LayerKind::convolution2d;
    support::LibraryForm form;
    // 3-D with kernel depth 1 folds depth into the batch, which the shared adaptation does in NXC.
    form.data_format = d.rank == 3 ? CONVCHECK_NXC : d.data_format;
    if (t.kind == LayerKind::depthwise_convolution2d)
        form.filter_format = CONVCHECK_OIX;  // then [C][M][H][W] -> [M][C][H][W] (layer_weights)
    else
        form.filter_format = form.data_format == CONVCHECK_NXC ? CONVCHECK_OXI : CONVCHECK_OIX;
    form.rank1_as_rank2 = true;
    form.depth_as_batch = true;
    form.pads = support::PadsRule::nonnegative;
    t.adaptation = support::plan_adaptation(d, form);
    t.library = support::library_desc(d, t.adaptation);
    return t;
}

const char* layer_name(LayerKind kind) {
    return kind == LayerKind::depthwise_convolution2d ? "DepthwiseConvolution2d" : "Convolution2d";
}

armnn::DataType data_type(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F16: return armnn::DataType::Float16;
        case CONVCHECK_BF16: return armnn::DataType::BFloat16;
        default: return armnn::DataType::Float32;
    }
}

armnn::DataType bias_type(int32_t dtype) {
    return dtype == CONVCHECK_BF16 ? armnn::DataType::Float32 : data_type(dtype);
}

armnn::TensorInfo input_info(const Translation& t) {
    const convcheck_conv_desc& l = t.library;
    return activations(t, l.in_channels, l.input_size[0], l.input_size[1]);
}

armnn::TensorInfo output_info(const Translation& t) {
    const convcheck_conv_desc& l = t.library;
    return activations(t, l.out_channels, support::output_size(l, 0), support::output_size(l, 1));
}

armnn::TensorInfo weights_info(const Translation& t) {
    const convcheck_conv_desc& l = t.library;
    const auto u = [](int64_t v) { return static_cast<unsigned int>(v); };
    const unsigned int kh = u(l.kernel_size[0]), kw = u(l.kernel_size[1]);
    if (t.kind == LayerKind::depthwise_convolution2d)
        return armnn::TensorInfo({u(l.out_channels / l.in_channels), u(l.in_channels), kh, kw}, data_type(l.dtype));
    if (l.data_format == CONVCHECK_NXC)
        return armnn::TensorInfo({u(l.out_channels), kh, kw, u(l.in_channels)}, data_type(l.dtype));
    return armnn::TensorInfo({u(l.out_channels), u(l.in_channels), kh, kw}, data_type(l.dtype));
}

armnn::TensorInfo bias_info(const Translation& t) {
    return armnn::TensorInfo({static_cast<unsigned int>(t.library.out_channels)}, bias_type(t.library.dtype));
}

armnn::Convolution2dDescriptor convolution_descriptor(const Translation& t) {
    return descriptor_of<armnn::Convolution2dDescriptor>(t);
}

armnn::DepthwiseConvolution2dDescriptor depthwise_descriptor(const Translation& t) {
    return descriptor_of<armnn::DepthwiseConvolution2dDescriptor>(t);
}

std::vector<unsigned char> layer_weights(const convcheck_conv_desc& d, const Translation& t, const void* weights) {
    const convcheck_conv_desc& l = t.library;
    const size_t bytes = support::element_bytes(l.dtype);
    std::vector<unsigned char> adapted(bytes * size_t(l.out_channels * (l.in_channels / l.groups) * kernel_volume(l)));
    if (adapted.empty()) return adapted;
    if (support::moves_weights(d, t.adaptation))
        support::adapt_weights(d, t.adaptation, weights, adapted.data());
    else
        std::memcpy(adapted.data(), weights, adapted.size());
    if (t.kind != LayerKind::depthwise_convolution2d) return adapted;
    // OIX depthwise weights [O = C*M][1][H][W] are [C][M][H][W]; Arm NN takes [M][C][H][W].
    std::vector<unsigned char> layer(adapted.size());
    const int64_t c = l.in_channels, m = l.out_channels / l.in_channels;
    const support::DenseLayout from{{c, m, l.kernel_size[0], l.kernel_size[1]}, {0, 1, 2, 3}};
    const support::DenseLayout to{{c, m, l.kernel_size[0], l.kernel_size[1]}, {1, 0, 2, 3}};
    support::copy_window({adapted.data(), from, layer.data(), to, {0, 0, 0, 0}, bytes, {}});
    return layer;
}

std::vector<unsigned char> layer_bias(const Translation& t, const void* bias) {
    const size_t count = size_t(t.library.out_channels);
    if (t.library.dtype != CONVCHECK_BF16) {
        const auto* bytes = static_cast<const unsigned char*>(bias);
        return std::vector<unsigned char>(bytes, bytes + count * support::element_bytes(t.library.dtype));
    }
    std::vector<unsigned char> widened(count * sizeof(float));
    const auto* from = static_cast<const uint16_t*>(bias);
    for (size_t i = 0; i < count; ++i) {
        const uint32_t bits = uint32_t(from[i]) << 16;
        std::memcpy(widened.data() + i * sizeof(float), &bits, sizeof(float));
    }
    return widened;
}

std::string backend_refuses(const armnn::ILayerSupport& support, const Translation& t) {
    std::string reason;
    const armnn::Optional<armnn::TensorInfo> bias =
        t.library.has_bias ? armnn::Optional<armnn::TensorInfo>(bias_info(t)) : armnn::EmptyOptional();
    const bool ok = t.kind == LayerKind::depthwise_convolution2d
                        ? support.IsDepthwiseConvolutionSupported(input_info(t), output_info(t), depthwise_descriptor(t),
                                                                  weights_info(t), bias, armnn::Optional<std::string&>(reason))
                        : support.IsConvolution2dSupported(input_info(t), output_info(t), convolution_descriptor(t),
                                                           weights_info(t), bias, armnn::Optional<std::string&>(reason));
    return ok ? "" : one_line(reason);
}

}  // namespace convcheck_armnn
