// The armnn plugin's transposed convolution (docs/transposed.md, ABI 1.3): Arm NN 20.08's
// TransposeConvolution2d layer on CpuRef (RefTransposeConvolution2dWorkload), one layer in a network.
//
// The translation (include/armnn/Descriptors.hpp, TransposeConvolution2dDescriptor):
//   pads      m_PadLeft/Right/Top/Bottom, unsigned; Arm NN infers the output size (in-1)*stride + k - pads
//             and refuses another TensorInfo on the output slot; output x takes input (x + pad_left - k) /
//             stride. The descriptor has no output padding (its m_OutputShape is not read by 20.08's shape
//             inference): the plugin passes m_PadRight = pe - op (same size, same taps); where that or pb is
//             negative, Arm NN computes the whole output and the plugin crops it and adds the bias in f32
//             (convcheck/adaptation/transposed_form.hpp; f32 only, "[cropped]" in the implementation string).
//   strides   m_StrideX/Y. No dilation in the descriptor: declined.
//   groups    none in the descriptor: one network per group, on that group's channels (exact data movement:
//             the groups of a transposed convolution are independent ones on channel slices).
//   weights   [O/G][C/G][kh][kw] for NCHW, [O/G][kh][kw][C/G] for NHWC (O the dst channels) per group: OIX /
//             XIO reordered.
//   data      NCHW and NHWC are Arm NN's (m_DataLayout); rank 1 is 2-D with a unit height; rank 3 declined
//             (INetwork has AddTransposeConvolution2dLayer only).
//   dtypes    f32, f16, bf16 (bias in f32 for bf16, as for Convolution2d: armnn_layer.hpp).
//   batch     one image per run (the network is built for batch 1 and run N times): 20.08's
//             TransposeConvolution2dLayer::InferOutputShapes takes the output channels as
//             O*C / (N*C) = O/N, so a batch N > 1 is refused ("TensorShape set on OutputSlot[0] does not
//             match the inferred shape") or, where N does not divide O, aborts on its assertion
//             "Invalid number of elements" (docs/backends.md, finding A2).
#include "armnn_transposed.hpp"

#include <climits>
#include <string>
#include <vector>

#include "armnn_layer.hpp"
#include "armnn_network.hpp"
#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/adaptation/transposed_form.hpp"
#include "convcheck/plugin_support.hpp"

namespace convcheck_armnn {

namespace support = convcheck_plugin_support;

namespace {

using support::Transposed2d;

// Arm NN's pads: unsigned, asymmetric, no adjustment.
const support::TransposedPadsRule kRule{false, false};
Transposed2d geometry(const convcheck_conv_transposed_desc& t) { return support::transposed_2d(t, kRule); }

bool nhwc(const convcheck_conv_transposed_desc& t) { return t.data_format == CONVCHECK_NXC; }

// Arm NN's weights of each group, logical {G, C/G, O/G, kh, kw}: [G][O/G][C/G][kh][kw] (NCHW) or
// [G][O/G][kh][kw][C/G] (NHWC).
std::vector<int> weights_order(const convcheck_conv_transposed_desc& t) {
    return nhwc(t) ? std::vector<int>{0, 2, 3, 4, 1} : std::vector<int>{0, 2, 1, 3, 4};
}

// The images of each group one after another, logical {N, G, channels/G, H, W}: [G][N][c][H][W] (NCHW) or
// [G][N][H][W][c] (NHWC).
std::vector<int> images_order(const convcheck_conv_transposed_desc& t) {
    return nhwc(t) ? std::vector<int>{1, 0, 3, 4, 2} : std::vector<int>{1, 0, 2, 3, 4};
}

std::string not_computable(const convcheck_conv_transposed_desc& t) {
    if (t.dtype != CONVCHECK_F32 && t.dtype != CONVCHECK_F16 && t.dtype != CONVCHECK_BF16)
        return std::string("Arm NN 20.08 computes Float32, Float16 and BFloat16 (and quantized types), not ") +
               support::dtype_name(t.dtype);
    if (t.rank == 3) return "Arm NN 20.08 has no 3-D transposed convolution (INetwork: AddTransposeConvolution2dLayer only)";
    if (std::string why = support::transposed_2d_inexpressible(t, kRule, "armnn", "Arm NN"); !why.empty()) return why;
    if (support::transposed_dilated(t))
        return "Arm NN 20.08's TransposeConvolution2dDescriptor has no dilation (m_PadLeft/Right/Top/Bottom, m_StrideX/Y, "
                   "m_BiasEnabled, m_DataLayout, m_OutputShape only)";
    const Transposed2d g = geometry(t);
    if (!g.direct && t.dtype != CONVCHECK_F32)
        return "Arm NN's TransposeConvolution2d takes unsigned pads and no output padding; the plugin crops an f32 result "
               "only (a 16-bit one would be rounded before the bias is added)";
    for (const support::TransposedAxis& x : g.axes)
        for (int64_t v : {x.in, x.kernel, x.stride, x.begin, x.end, x.computed})
            if (v < 0 || v > int64_t(UINT_MAX))
                return "the armnn plugin cannot express " + std::to_string(v) +
                       " to Arm NN: its dimensions, pads and strides are unsigned int";
    for (int64_t v : {t.batch, t.in_channels, t.out_channels})
        if (v < 0 || v > int64_t(UINT_MAX)) return "the armnn plugin cannot express " + std::to_string(v) + " to Arm NN";
    return "";
}

// One image per run (finding A2); a batch below 1 is handed to Arm NN as it is, in one run (an invalid case
// reaches the library: docs/backends.md, "The invalid suite").
int64_t images_per_run(const convcheck_conv_transposed_desc& t) { return t.batch < 1 ? t.batch : 1; }
int64_t runs(const convcheck_conv_transposed_desc& t) { return t.batch < 1 ? 1 : t.batch; }

// The layer's tensors and descriptor for one run (images_per_run) of one group of t.
struct Layer {
    explicit Layer(const convcheck_conv_transposed_desc& t) : g(geometry(t)) {
        const auto u = [](int64_t v) { return static_cast<unsigned int>(v); };
        const support::TransposedAxis &h = g.axes[0], &w = g.axes[1];
        const armnn::DataType type = data_type(t.dtype);
        const unsigned int n = u(images_per_run(t));
        const auto activations = [&](int64_t channels, int64_t height, int64_t width) {
            return nhwc(t) ? armnn::TensorInfo({n, u(height), u(width), u(channels)}, type)
                           : armnn::TensorInfo({n, u(channels), u(height), u(width)}, type);
        };
        const int64_t c = t.in_channels / t.groups, o = t.out_channels / t.groups;
        input = activations(c, h.in, w.in);
        output = activations(o, h.computed, w.computed);
        weights = nhwc(t) ? armnn::TensorInfo({u(o), u(h.kernel), u(w.kernel), u(c)}, type)
                          : armnn::TensorInfo({u(o), u(c), u(h.kernel), u(w.kernel)}, type);
        bias = armnn::TensorInfo({u(o)}, bias_type(t.dtype));
        descriptor.m_PadTop = u(h.begin), descriptor.m_PadBottom = u(h.end);
        descriptor.m_PadLeft = u(w.begin), descriptor.m_PadRight = u(w.end);
        descriptor.m_StrideY = u(h.stride), descriptor.m_StrideX = u(w.stride);
        descriptor.m_BiasEnabled = g.library_bias;
        descriptor.m_DataLayout = nhwc(t) ? armnn::DataLayout::NHWC : armnn::DataLayout::NCHW;
    }
    Transposed2d g;
    armnn::TensorInfo input, output, weights, bias;
    armnn::TransposeConvolution2dDescriptor descriptor;
};

}  // namespace

convcheck_error* transposed_query(const armnn::ILayerSupport& layer_support, const convcheck_conv_transposed_desc& t,
                                  convcheck_support* out) {
    if (const std::string why = not_computable(t); !why.empty()) return support::unsupported(out, why);
    const Layer l(t);
    std::string reason;
    const armnn::Optional<armnn::TensorInfo> bias =
        l.g.library_bias ? armnn::Optional<armnn::TensorInfo>(l.bias) : armnn::EmptyOptional();
    if (!layer_support.IsTransposeConvolution2dSupported(l.input, l.output, l.descriptor, l.weights, bias,
                                                         armnn::Optional<std::string&>(reason)))
        return support::unsupported(out, "Arm NN's CpuRef refused the layer: " + one_line(reason));
    return support::supported(out);
}

convcheck_error* transposed_execute(std::shared_ptr<armnn::IRuntime> runtime, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args) {
    if (const std::string why = not_computable(t); !why.empty()) return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    const Layer l(t);
    const size_t bytes = support::element_bytes(t.dtype);
    const size_t src_image = l.input.GetNumElements() * bytes, dst_image = l.output.GetNumElements() * bytes,
                 group_weights = l.weights.GetNumElements() * bytes;
    const size_t images = static_cast<size_t>(runs(t) * t.groups);
    // (at least a byte each: an empty tensor's run still gets buffers)
    std::vector<unsigned char> weights(group_weights * t.groups + 1), src(src_image * images + 1), dst(dst_image * images + 1);
    support::transposed_weights_to(t, l.g, args.weights, weights_order(t), weights.data());
    support::transposed_src_to(t, l.g, args.src, images_order(t), src.data());
    Translation bias_of;  // layer_bias reads the dtype and the channel count only
    bias_of.library.dtype = t.dtype, bias_of.library.out_channels = t.out_channels / t.groups;
    const size_t group_bias = static_cast<size_t>(bias_of.library.out_channels) * bytes;
    try {
        for (int64_t group = 0; group < t.groups; ++group) {
            const std::vector<unsigned char> bias =
                l.g.library_bias ? layer_bias(bias_of, static_cast<const unsigned char*>(args.bias) + group * group_bias)
                                 : std::vector<unsigned char>();
            const armnn::ConstTensor weights_tensor(l.weights, weights.data() + group * group_weights);
            const armnn::Optional<armnn::ConstTensor> bias_tensor =
                l.g.library_bias ? armnn::Optional<armnn::ConstTensor>(armnn::ConstTensor(l.bias, bias.data()))
                                 : armnn::EmptyOptional();
            const LoadedLayer layer(
                runtime,
                [&](armnn::INetwork& network) {
                    return network.AddTransposeConvolution2dLayer(l.descriptor, weights_tensor, bias_tensor, "deconv");
                },
                l.input, l.output);
            for (int64_t n = 0; n < runs(t); ++n) {
                const size_t image = static_cast<size_t>(group * runs(t) + n);
                layer.run(src.data() + image * src_image, dst.data() + image * dst_image);
            }
        }
    } catch (const armnn::Exception& e) {
        return support::make_error(std::string("Arm NN: ") + e.what(), error_code_of(e));
    }
    support::transposed_dst_from(t, l.g, dst.data(), images_order(t), args.bias, args.dst);
    const bool widened_bias = l.g.library_bias && t.dtype == CONVCHECK_BF16;
    support::write_implementation(&args, std::string("armnn:CpuRef:TransposeConvolution2d [per image") +
                                             (t.groups > 1 ? " and group]" : "]") +
                                             (l.g.direct ? "" : " [cropped]") +
                                             (widened_bias ? " [bias bf16->f32]" : ""));
    return nullptr;
}

}  // namespace convcheck_armnn
