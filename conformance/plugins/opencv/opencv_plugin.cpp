// convcheck plugin for OpenCV dnn (libopencv-dnn): the "Convolution" layer, NCHW / NCDHW, f32, run
// through a one-layer cv::dnn::Net (DNN_BACKEND_OPENCV on DNN_TARGET_CPU).
//
// The translation (LayerParams read by OpenCV's getConvolutionKernelParams):
//   kernel_size, stride, dilation    one entry per spatial axis (OpenCV's dilation is 1-based, ours too)
//   pad         2*rank entries: all pads_begin, then all pads_end. OpenCV asserts pads >= 0 (a
//               negative pad is unsupported), and its 2-D layer refuses pads_begin != pads_end
//               ("Unsupported asymmetric padding"): conv_query creates the layer and reports that.
//   group, num_output, bias_term     as ours
//   blobs       [0] the weights as a Mat of shape {O, I/G, k...} (OIX, which is all we claim),
//               [1] the bias as a 1 x O Mat.
// Rank 1 is not claimed: OpenCV widens a one-entry kernel_size to a square 2-D kernel.
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>

#include <string>
#include <vector>

#include "plugin_support.hpp"

namespace support = convcheck_plugin_support;

struct convcheck_plugin {
    int num_threads = 0;
};

namespace {

std::string inexpressible(const convcheck_conv_desc& d) {
    if (d.dtype != CONVCHECK_F32)
        return std::string("OpenCV dnn's Convolution layer runs f32 on the CPU (DNN_TARGET_CPU), not ") +
               support::dtype_name(d.dtype);
    if (d.rank != 2 && d.rank != 3)
        return "this plugin drives OpenCV's Convolution layer for 2-D and 3-D only (a one-entry kernel_size is widened "
               "to a square 2-D kernel by OpenCV), rank " + std::to_string(d.rank) + " asked";
    if (d.data_format != CONVCHECK_NCX) return "OpenCV dnn blobs are NCHW / NCDHW: NXC data is not claimed";
    if (d.filter_format != CONVCHECK_OIX) return "OpenCV's Convolution weights blob is OIX: XIO is not claimed";
    for (int a = 0; a < d.rank; ++a)
        if (d.pads_begin[a] < 0 || d.pads_end[a] < 0)
            return "OpenCV's Convolution layer asserts pads >= 0: negative pad on axis " + std::to_string(a);
    for (int64_t v : {d.batch, d.in_channels, d.out_channels, d.groups})
        if (v > INT32_MAX) return "OpenCV Mat dimensions are int: a size above 2^31-1 cannot be expressed";
    return "";
}

cv::dnn::DictValue int_array(const int64_t (&values)[3], int rank) {
    std::vector<int> v(values, values + rank);
    return cv::dnn::DictValue::arrayInt(v.data(), rank);
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("opencv create", [&]() -> convcheck_error* {
        int num_threads = 0;
        if (auto* e = support::read_create_args(args, &num_threads)) return e;
        auto plugin = new convcheck_plugin();
        plugin->num_threads = num_threads;
        *out = plugin;
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete plugin; }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "opencv";
    mine.version = CV_VERSION;
    mine.operations = CONVCHECK_OP_CONV;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32);
    mine.ranks = CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX);
    mine.accumulation_dtype = CONVCHECK_F32;
    return support::fill_info(info, mine);
}

// The layer's parameters; weights and bias are copied into the layer's own blobs (OpenCV may repack
// them; the runner's buffers stay untouched). NULL weights: zero blobs of the right shape (query).
cv::dnn::LayerParams layer_params(const convcheck_conv_desc& d, const void* weights, const void* bias) {
    std::vector<int> wei_dims{int(d.out_channels), int(d.in_channels / d.groups)}, pads;
    for (int a = 0; a < d.rank; ++a) {
        wei_dims.push_back(int(d.kernel_size[a]));
        pads.push_back(int(d.pads_begin[a]));
    }
    for (int a = 0; a < d.rank; ++a) pads.push_back(int(d.pads_end[a]));
    cv::dnn::LayerParams params;
    params.name = "convolution";
    params.type = "Convolution";
    params.set("kernel_size", int_array(d.kernel_size, d.rank));
    params.set("stride", int_array(d.strides, d.rank));
    params.set("dilation", int_array(d.dilations, d.rank));
    params.set("pad", cv::dnn::DictValue::arrayInt(pads.data(), int(pads.size())));
    params.set("group", int(d.groups));
    params.set("num_output", int(d.out_channels));
    params.set("bias_term", d.has_bias != 0);
    params.blobs.push_back(weights ? cv::Mat(wei_dims, CV_32F, const_cast<void*>(weights)).clone()
                                   : cv::Mat(wei_dims, CV_32F, cv::Scalar(0)));
    if (d.has_bias)
        params.blobs.push_back(bias ? cv::Mat(1, int(d.out_channels), CV_32F, const_cast<void*>(bias)).clone()
                                    : cv::Mat(1, int(d.out_channels), CV_32F, cv::Scalar(0)));
    return params;
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    return support::guarded("opencv conv_query", [&]() -> convcheck_error* {
        const std::string why = inexpressible(*desc);
        if (!why.empty()) return support::unsupported(out, why);
        // Ask OpenCV: the layer checks its parameters when it is created (e.g. 2-D asymmetric pads).
        try {
            cv::dnn::LayerParams params = layer_params(*desc, nullptr, nullptr);
            cv::dnn::LayerFactory::createLayerInstance(params.type, params);
        } catch (const cv::Exception& e) {
            return support::unsupported(out, "OpenCV refused the layer: " + e.err + " (" + e.func + ")");
        }
        return support::supported(out);
    });
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (auto* e = support::check_conv_call(desc, args)) return e;
    return support::guarded("opencv conv_execute", [&]() -> convcheck_error* {
        const convcheck_conv_desc& d = *desc;
        const std::string why = inexpressible(d);
        if (!why.empty()) return support::make_error("execute of an unsupported case: " + why);
        if (plugin->num_threads > 0 && cv::getNumThreads() != plugin->num_threads) cv::setNumThreads(plugin->num_threads);
        std::vector<int> src_dims{int(d.batch), int(d.in_channels)}, dst_dims{int(d.batch), int(d.out_channels)};
        for (int a = 0; a < d.rank; ++a) {
            src_dims.push_back(int(d.input_size[a]));
            dst_dims.push_back(int(support::output_size(d, a)));
        }
        cv::dnn::LayerParams params = layer_params(d, args->weights, args->bias);
        cv::dnn::Net net;
        net.addLayerToPrev(params.name, params.type, params);
        net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        net.setInput(cv::Mat(src_dims, CV_32F, const_cast<void*>(args->src)).clone());
        const cv::Mat result = net.forward();
        if (result.type() != CV_32F || std::vector<int>(result.size.p, result.size.p + result.dims) != dst_dims ||
            !result.isContinuous())
            return support::make_error("OpenCV's Convolution layer returned a blob of another shape or type than expected");
        std::memcpy(args->dst, result.ptr<float>(), result.total() * sizeof(float));
        support::write_implementation(args, "opencv_dnn:Convolution(DNN_BACKEND_OPENCV, DNN_TARGET_CPU)");
        return nullptr;
    });
}

const convcheck_api api = {
    sizeof(convcheck_api), CONVCHECK_ABI_MAJOR, CONVCHECK_ABI_MINOR, create, destroy, describe, conv_query, conv_execute,
    nullptr, nullptr, support::error_message, support::error_destroy,
};

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
