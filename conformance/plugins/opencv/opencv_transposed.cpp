// The opencv plugin's transposed convolution (docs/transposed.md, ABI 1.3): OpenCV dnn's "Deconvolution"
// layer (DeConvolutionLayerImpl, DNN_BACKEND_OPENCV on DNN_TARGET_CPU), run as a one-layer cv::dnn::Net.
//
// The translation (LayerParams read by OpenCV 4.6's getConvolutionKernelParams and the layer):
//   pads      OpenCV's 2-D layers take symmetric pads only ("Unsupported asymmetric padding") and an
//             "adj" (output padding) below the stride (CV_Assert(adjust_pads[i] < strides[i])); its output
//             size is s*(in-1) + k - 2*pad + adj and output x takes input (x + pad - k) / s. The plugin
//             passes pad = pads_begin and adj = op + pb - pe (same size, same taps); where that does not
//             fit, OpenCV computes the whole output and the plugin crops it and adds the bias in f32
//             (convcheck/adaptation/transposed_form.hpp; "[cropped]" in the implementation string).
//   weights   blobs[0] is {C, O/G, kh, kw} (the descriptor's OIX; XIO is reordered); the layer derives
//             the groups from num_output / blobs[0].size[1]; blobs[1] the bias, 1 x O.
//   data      NCHW: NXC is reordered in and out; rank 1 is 2-D with a unit height.
//   declined  rank 3 (the layer supports DNN_BACKEND_OPENCV for 2-D kernels only), dilation (its output
//             size and col2im take none), dtypes other than f32.
#include "opencv_transposed.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/adaptation/transposed_form.hpp"
#include "convcheck/plugin_transposed.hpp"

namespace support = convcheck_plugin_support;

namespace convcheck_opencv {

namespace {

using support::Transposed2d;

// OpenCV's pads: one per axis (symmetric), an adjustment ("adj").
const support::TransposedPadsRule kRule{true, true};
Transposed2d geometry(const convcheck_conv_transposed_desc& t) { return support::transposed_2d(t, kRule); }

const std::vector<int> kNchw{0, 1, 2, 3, 4};  // {N, G, C/G, H, W} as [N][C][H][W]
const std::vector<int> kIohw{0, 1, 2, 3, 4};  // {G, C/G, O/G, kh, kw} as [C][O/G][kh][kw]

std::string not_computable(const convcheck_conv_transposed_desc& t) {
    if (t.dtype != CONVCHECK_F32)
        return std::string("OpenCV 4.6 dnn computes on the CPU target (DNN_TARGET_CPU) in f32 only, not ") +
               support::dtype_name(t.dtype);
    if (t.rank == 3)
        return "OpenCV 4.6's Deconvolution layer runs on DNN_BACKEND_OPENCV for 2-D kernels only (supportBackend: "
               "kernel_size.size() == 2)";
    if (std::string why = support::transposed_2d_inexpressible(t, kRule, "opencv", "OpenCV"); !why.empty()) return why;
    if (support::transposed_dilated(t))
        return "OpenCV 4.6's Deconvolution layer has no dilation on DNN_BACKEND_OPENCV: its output size "
                   "(stride*(in-1) + kernel - pads + adj) and its col2im take none";
    const Transposed2d g = geometry(t);
    for (const support::TransposedAxis& x : g.axes) {
        for (int64_t v : {x.in, x.kernel, x.stride, x.computed})
            if (v < 0 || v > INT32_MAX)
                return "the opencv plugin cannot express " + std::to_string(v) + " to OpenCV: its sizes and parameters are int";
        for (int64_t v : {x.begin, x.adjustment})  // int parameters: a negative one is OpenCV's to judge
            if (v < INT32_MIN || v > INT32_MAX)
                return "the opencv plugin cannot express " + std::to_string(v) + " to OpenCV: its pad and adj are int";
    }
    for (int64_t v : {t.batch, t.in_channels, t.out_channels})
        if (v > INT32_MAX) return "the opencv plugin cannot express a size above 2^31-1 to OpenCV: cv::Mat dimensions are int";
    return "";
}

cv::Mat blob(const std::vector<int>& dims, const void* data) {
    cv::Mat m(dims, CV_32F, cv::Scalar(0));
    if (data != nullptr && m.total() > 0) std::memcpy(m.ptr<float>(), data, m.total() * sizeof(float));
    return m;
}

// The layer's parameters; weights in OpenCV's {C, O/G, kh, kw} (NULL: zeros, for the query).
cv::dnn::LayerParams layer_params(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* weights,
                                  const void* bias) {
    const support::TransposedAxis &h = g.axes[0], &w = g.axes[1];
    const int kernel[] = {int(h.kernel), int(w.kernel)}, stride[] = {int(h.stride), int(w.stride)};
    const int pad[] = {int(h.begin), int(w.begin), int(h.begin), int(w.begin)};
    const int adj[] = {int(h.adjustment), int(w.adjustment)};
    cv::dnn::LayerParams params;
    params.name = "deconvolution";
    params.type = "Deconvolution";
    params.set("kernel_size", cv::dnn::DictValue::arrayInt(kernel, 2));
    params.set("stride", cv::dnn::DictValue::arrayInt(stride, 2));
    params.set("pad", cv::dnn::DictValue::arrayInt(pad, 4));
    params.set("adj", cv::dnn::DictValue::arrayInt(adj, 2));
    params.set("group", int(t.groups));
    params.set("num_output", int(t.out_channels));
    params.set("bias_term", g.library_bias);
    params.blobs.push_back(blob({int(t.in_channels), int(t.out_channels / t.groups), kernel[0], kernel[1]}, weights));
    if (g.library_bias) params.blobs.push_back(blob({1, int(t.out_channels)}, bias));
    return params;
}

}  // namespace

convcheck_error* transposed_query(convcheck_plugin*, const convcheck_conv_transposed_desc& t, convcheck_support* out) {
    if (const std::string why = not_computable(t); !why.empty()) return support::unsupported(out, why);
    try {  // ask OpenCV: the layer checks its parameters when it is created
        cv::dnn::LayerParams params = layer_params(t, geometry(t), nullptr, nullptr);
        cv::dnn::LayerFactory::createLayerInstance(params.type, params);
    } catch (const cv::Exception& e) {
        return support::unsupported(out, "OpenCV refused the layer: " + e.err + " (" + e.func + ")");
    }
    return support::supported(out);
}

convcheck_error* transposed_execute(convcheck_plugin*, const convcheck_conv_transposed_desc& t, const convcheck_conv_args& args,
                                    int num_threads) {
    if (const std::string why = not_computable(t); !why.empty()) return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    if (num_threads > 0 && cv::getNumThreads() != num_threads) cv::setNumThreads(num_threads);
    const Transposed2d g = geometry(t);
    const support::TransposedAxis &h = g.axes[0], &w = g.axes[1];
    try {
        std::vector<float> weights(static_cast<size_t>(t.in_channels * (t.out_channels / t.groups) * h.kernel * w.kernel));
        support::transposed_weights_to(t, g, args.weights, kIohw, weights.data());
        cv::dnn::LayerParams params = layer_params(t, g, weights.data(), args.bias);
        cv::dnn::Net net;
        net.addLayerToPrev(params.name, params.type, params);
        net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        cv::Mat src({int(t.batch), int(t.in_channels), int(h.in), int(w.in)}, CV_32F);
        support::transposed_src_to(t, g, args.src, kNchw, src.ptr<float>());
        net.setInput(src);
        const cv::Mat result = net.forward();
        const std::vector<int> want{int(t.batch), int(t.out_channels), int(h.computed), int(w.computed)};
        if (result.type() != CV_32F || std::vector<int>(result.size.p, result.size.p + result.dims) != want ||
            !result.isContinuous()) {
            support::write_implementation(&args, "opencv_dnn:Deconvolution (returned a blob of another shape or type than "
                                                 "the spec's dst: nothing written)");
            return nullptr;
        }
        support::transposed_dst_from(t, g, result.ptr<float>(), kNchw, args.bias, args.dst);
    } catch (const cv::Exception& e) {
        return support::make_error("OpenCV: " + e.err + " (" + e.func + ")", CONVCHECK_ERROR_UNIMPLEMENTED);
    }
    support::write_implementation(&args, std::string("opencv_dnn:Deconvolution(DNN_BACKEND_OPENCV, DNN_TARGET_CPU)") +
                                             (g.direct ? "" : " [cropped]"));
    return nullptr;
}

}  // namespace convcheck_opencv
