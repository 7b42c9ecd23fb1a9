// The opencv plugin's quantized convolution (opencv_quantized.hpp). The translation (OpenCV 4.6 dnn,
// modules/dnn/src/int8layers/convolution_layer.cpp, and its ONNX importer's QLinearConv, which builds the same
// layer):
//   layer       "ConvolutionInt8" (cv::dnn::ConvolutionLayerInt8) added with Net::addLayerToPrev(..., CV_8S, ...):
//               blobs[0] the s8 weights {O, I/G, k...}, blobs[1] the s32 bias, blobs[2] one f32 output multiplier per
//               output channel; params input_zeropoint, zeropoints (dst), input_scale, scales (dst), per_channel.
//   types       s8 src, weights and dst only (the layer asserts CV_8S input; its weights have no zero point).
//   zero point  OpenCV fills the padding with the input zero point and expects the bias to hold
//               bias - src_zero_point * sum(weights of the output channel) (its importer folds it so): the
//               plugin folds it the same way, in integers.
//   scales      multiplier(oc) = src_scale * weights_scale(oc) / dst_scale, in f32.
//   range       the layer saturates to [-128, 127]; a narrowed range is declined.
//   data        the net's input and output are f32 (a Net's data layer): a Quantize layer of scale 1, zero point 0
//               turns the s8 values into CV_8S exactly, a Dequantize layer of scale 1 turns the result back. NCX
//               and OIX are the layer's layouts: NXC src/dst and XIO weights are reordered here (bytes moved).
//   rounding    the layer requantizes acc * multiplier in f32 and adds the dst zero point, rounding with v_round
//               (ties to even) in its vector blocks and std::round (ties away from zero) in their scalar tails:
//               which rule an output gets depends on its position, so the plugin declares
//               CONVCHECK_REQUANTIZATION_UNNAMED (TOSA's INEXACT_ROUND window).
//   pads        the 2-D layer takes equal pads only (its own error); negative pads are declined.
#include "opencv_quantized.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "convcheck/plugin_quantized.hpp"

namespace convcheck_opencv {

namespace {

namespace support = convcheck_plugin_support;

// Why the translation does not take the case, or "".
std::string untaken(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    if (const std::string why = support::dense_only(d, "OpenCV"); !why.empty()) return why;
    if (d.src_dtype != CONVCHECK_S8 || d.weights_dtype != CONVCHECK_S8 || d.dst_dtype != CONVCHECK_S8)
        return "OpenCV 4.6 dnn's int8 convolution (ConvolutionInt8) takes s8 src, weights and dst only (CV_8S), not " +
               std::string(support::dtype_name(d.src_dtype)) + ":" + support::dtype_name(d.weights_dtype) + ":" +
               support::dtype_name(d.dst_dtype);
    if (support::per_channel_weights_zero_points(q))
        return "OpenCV 4.6 dnn's ConvolutionInt8 takes no weights zero point (symmetric s8 weights), not one per "
               "output channel";
    if (q.weights_zero_point != 0)
        return "OpenCV 4.6 dnn's ConvolutionInt8 takes no weights zero point (symmetric s8 weights), not " +
               std::to_string(q.weights_zero_point);
    if (q.dst_min != -128 || q.dst_max != 127)
        return "OpenCV 4.6 dnn's ConvolutionInt8 saturates to [-128, 127]; the plugin adds no int8 activation layer for "
               "the narrowed range [" + std::to_string(q.dst_min) + ", " + std::to_string(q.dst_max) + "]";
    if (d.groups <= 0 || d.in_channels % d.groups != 0 || d.out_channels % d.groups != 0)
        return "the opencv plugin cannot express groups = " + std::to_string(d.groups) + " with C = " +
               std::to_string(d.in_channels) + ", O = " + std::to_string(d.out_channels) +
               " to OpenCV: the weights blob {O, C/G, k...} gives the groups";
    for (int a = 0; a < d.rank; ++a)
        if (d.pads_begin[a] < 0 || d.pads_end[a] < 0)
            return "a negative pad: the plugin's crop adaptation copies float tensors only";
    for (int64_t v : {d.batch, d.in_channels, d.out_channels})
        if (v > INT32_MAX) return "the opencv plugin cannot express a size above 2^31-1 to OpenCV: cv::Mat dimensions are int";
    return "";
}

// The layer's geometry: rank 1 as 2-D with a unit height (a one-entry kernel_size is a square kernel to 4.6).
struct Geometry {
    int rank = 2;
    std::vector<int> in, out, kernel, stride, dilation, pads;  // pads: all begins, then all ends
};
Geometry geometry_of(const convcheck_conv_desc& d) {
    Geometry g;
    g.rank = d.rank == 1 ? 2 : d.rank;
    if (d.rank == 1) g.in = {1}, g.out = {1}, g.kernel = {1}, g.stride = {1}, g.dilation = {1};
    std::vector<int> begins(d.rank == 1 ? 1 : 0, 0), ends(begins);
    for (int a = 0; a < d.rank; ++a) {
        g.in.push_back(int(d.input_size[a]));
        g.out.push_back(int(support::output_size(d, a)));
        g.kernel.push_back(int(d.kernel_size[a]));
        g.stride.push_back(int(d.strides[a]));
        g.dilation.push_back(int(d.dilations[a]));
        begins.push_back(int(d.pads_begin[a]));
        ends.push_back(int(d.pads_end[a]));
    }
    g.pads = begins;
    g.pads.insert(g.pads.end(), ends.begin(), ends.end());
    return g;
}

int64_t spatial(const std::vector<int>& sizes) {
    int64_t n = 1;
    for (int s : sizes) n *= s;
    return n;
}

cv::dnn::DictValue ints(const std::vector<int>& v) { return cv::dnn::DictValue::arrayInt(v.data(), int(v.size())); }

// The runner's weights (OIX or XIO) as OpenCV's {O, I/G, k...}; NULL: zeros.
std::vector<int8_t> oix_weights(const convcheck_conv_desc& d, const Geometry& g, const void* from) {
    const int64_t gi = d.in_channels / d.groups, o_count = d.out_channels, taps = spatial(g.kernel);
    std::vector<int8_t> w(static_cast<size_t>(o_count * gi * taps), 0);
    if (from == nullptr) return w;
    const auto* src = static_cast<const int8_t*>(from);
    for (int64_t o = 0; o < o_count; ++o)
        for (int64_t i = 0; i < gi; ++i)
            for (int64_t k = 0; k < taps; ++k)
                w[static_cast<size_t>((o * gi + i) * taps + k)] =
                    src[d.filter_format == CONVCHECK_XIO ? (k * gi + i) * o_count + o : (o * gi + i) * taps + k];
    return w;
}

// The layer's parameters; weights and bias NULL: zero blobs (query).
cv::dnn::LayerParams layer_params(const convcheck_conv_desc& d, const convcheck_quantization& q, const void* weights,
                                  const void* bias) {
    const Geometry g = geometry_of(d);
    const int64_t gi = d.in_channels / d.groups, taps = spatial(g.kernel);
    std::vector<int> wei_dims{int(d.out_channels), int(gi)};
    wei_dims.insert(wei_dims.end(), g.kernel.begin(), g.kernel.end());
    const std::vector<int8_t> w = oix_weights(d, g, weights);
    cv::Mat w_blob(wei_dims, CV_8S);
    if (!w.empty()) std::memcpy(w_blob.ptr<int8_t>(), w.data(), w.size());
    cv::Mat bias_blob(1, int(d.out_channels), CV_32S), multipliers(1, int(d.out_channels), CV_32F);
    for (int64_t o = 0; o < d.out_channels; ++o) {
        int64_t folded = d.has_bias && bias != nullptr ? static_cast<const int32_t*>(bias)[o] : 0;
        for (int64_t k = 0; k < gi * taps; ++k) folded -= int64_t(q.src_zero_point) * w[static_cast<size_t>(o * gi * taps + k)];
        if (folded < INT32_MIN || folded > INT32_MAX)
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED,
                                       "the bias with OpenCV's folded src zero point (bias - zp * sum of weights) leaves int32");
        bias_blob.at<int32_t>(int(o)) = int32_t(folded);
        multipliers.at<float>(int(o)) =
            float(double(q.src_scale) * double(support::weights_scale(q, o)) / double(q.dst_scale));
    }
    cv::dnn::LayerParams p;
    p.name = "convolution_int8";
    p.type = "ConvolutionInt8";
    p.set("kernel_size", ints(g.kernel));
    p.set("stride", ints(g.stride));
    p.set("dilation", ints(g.dilation));
    p.set("pad", ints(g.pads));
    p.set("group", int(d.groups));
    p.set("num_output", int(d.out_channels));
    p.set("bias_term", true);
    p.set("input_scale", q.src_scale);
    p.set("input_zeropoint", int(q.src_zero_point));
    p.set("scales", q.dst_scale);
    p.set("zeropoints", int(q.dst_zero_point));
    p.set("per_channel", q.weights_scale_count > 1);
    p.blobs = {w_blob, bias_blob, multipliers};
    return p;
}

cv::dnn::LayerParams unit_scale(const char* name, const char* type) {
    cv::dnn::LayerParams p;
    p.name = name;
    p.type = type;
    p.set("scales", 1.0f);
    p.set("zeropoints", 0);
    return p;
}

// [N][C][spatial] <-> [N][spatial][C] for NXC, as floats (the net's input and output); s8 values.
void to_ncx(const int8_t* from, float* to, int64_t n, int64_t c, int64_t sp, bool nxc) {
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t x = 0; x < sp; ++x)
                to[(b * c + ch) * sp + x] = float(from[nxc ? (b * sp + x) * c + ch : (b * c + ch) * sp + x]);
}
void from_ncx(const float* from, int8_t* to, int64_t n, int64_t c, int64_t sp, bool nxc) {
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t x = 0; x < sp; ++x)
                to[nxc ? (b * sp + x) * c + ch : (b * c + ch) * sp + x] = static_cast<int8_t>(from[(b * c + ch) * sp + x]);
}

struct QuantizedPrepared : convcheck_conv_plan {
    QuantizedPrepared(int num_threads, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), num_threads(num_threads), quantization(*support::quantization_of(desc)),
          geometry(geometry_of(desc)) {
        if (const std::string why = untaken(desc, quantization.q); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        if (inputs.weights != nullptr) net = make_net(inputs.weights, inputs.bias);
    }
    std::unique_ptr<cv::dnn::Net> make_net(const void* weights, const void* bias) const {
        cv::dnn::LayerParams quantize = unit_scale("to_s8", "Quantize"), dequantize = unit_scale("to_f32", "Dequantize");
        cv::dnn::LayerParams conv = layer_params(desc, quantization.q, weights, bias);
        auto made = std::make_unique<cv::dnn::Net>();
        made->addLayerToPrev(quantize.name, quantize.type, CV_8S, quantize);
        made->addLayerToPrev(conv.name, conv.type, CV_8S, conv);
        made->addLayerToPrev(dequantize.name, dequantize.type, CV_32F, dequantize);
        made->setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made->setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return made;
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        if (num_threads > 0 && cv::getNumThreads() != num_threads) cv::setNumThreads(num_threads);
        std::unique_ptr<cv::dnn::Net> fresh;
        if (!net) fresh = make_net(args.weights, args.bias);
        cv::dnn::Net& layers = net ? *net : *fresh;
        const bool nxc = desc.data_format == CONVCHECK_NXC;
        std::vector<int> src_dims{int(desc.batch), int(desc.in_channels)}, dst_dims{int(desc.batch), int(desc.out_channels)};
        src_dims.insert(src_dims.end(), geometry.in.begin(), geometry.in.end());
        dst_dims.insert(dst_dims.end(), geometry.out.begin(), geometry.out.end());
        cv::Mat src(src_dims, CV_32F);
        const int64_t in_sp = spatial(geometry.in), out_sp = spatial(geometry.out);
        if (src.total() > 0) to_ncx(static_cast<const int8_t*>(args.src), src.ptr<float>(), desc.batch, desc.in_channels, in_sp, nxc);
        layers.setInput(src);
        const cv::Mat result = layers.forward();
        if (result.type() != CV_32F || std::vector<int>(result.size.p, result.size.p + result.dims) != dst_dims ||
            !result.isContinuous())
            return support::make_error("OpenCV's ConvolutionInt8 net returned a blob of another shape or type than expected");
        if (result.total() > 0)
            from_ncx(result.ptr<float>(), static_cast<int8_t*>(args.dst), desc.batch, desc.out_channels, out_sp, nxc);
        support::write_implementation(&args, std::string("opencv_dnn:ConvolutionInt8(DNN_BACKEND_OPENCV, DNN_TARGET_CPU)") +
                                                 (nxc ? " [reordered nxc->ncx]" : "") +
                                                 (desc.filter_format == CONVCHECK_XIO ? " [reordered xio->oix]" : ""));
        return nullptr;
    }

    const int num_threads;
    const support::QuantizationCopy quantization;  // the runner's extension is valid during prepare only
    const Geometry geometry;
    std::unique_ptr<cv::dnn::Net> net;
};

}  // namespace

convcheck_error* quantized_query(const convcheck_conv_desc& desc, convcheck_support* out) {
    const convcheck_quantization& q = *support::quantization_of(desc);
    if (const std::string why = untaken(desc, q); !why.empty()) return support::unsupported(out, why);
    try {
        cv::dnn::LayerParams params = layer_params(desc, q, nullptr, nullptr);
        cv::dnn::LayerFactory::createLayerInstance(params.type, params);
    } catch (const cv::Exception& e) {
        return support::unsupported(out, "OpenCV refused the layer: " + e.err + " (" + e.func + ")");
    }
    return support::supported(out);
}

std::unique_ptr<convcheck_conv_plan> quantized_plan(int num_threads, const convcheck_conv_desc& desc,
                                                    const support::PrepareInputs& inputs) {
    return std::make_unique<QuantizedPrepared>(num_threads, desc, inputs);
}

}  // namespace convcheck_opencv
