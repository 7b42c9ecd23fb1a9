// convcheck plugin for OpenCV dnn (libopencv-dnn): the "Convolution" layer, NCHW / NCDHW, f32, run
// through a one-layer cv::dnn::Net (DNN_BACKEND_OPENCV on DNN_TARGET_CPU); transposed convolution through
// its "Deconvolution" layer (ABI 1.3; opencv_transposed.cpp).
//
// The translation (LayerParams read by OpenCV's getConvolutionKernelParams):
//   kernel_size, stride, dilation    one entry per spatial axis (OpenCV's dilation is 1-based, ours too)
//   pad         2*rank entries: all pads_begin, then all pads_end. The 2-D layer refuses
//               pads_begin != pads_end ("Unsupported asymmetric padding in convolution layer"):
//               the excess of the larger pad becomes explicit zeros; negative pads are crops
//               (adaptation). The 3-D layer takes asymmetric pads itself.
//   group, num_output, bias_term     as ours
//   blobs       [0] the weights as a Mat of shape {O, I/G, k...} (OIX: XIO is reordered),
//               [1] the bias as a 1 x O Mat.
//   data        blobs are NCHW / NCDHW: NXC src is reordered, and the result back (adaptation).
//   rank 1      2-D with a unit axis (adaptation): a one-entry kernel_size is not a 1-D kernel to
//               OpenCV 4.6 (getConvolutionKernelParams widens it to a square 2-D kernel).
//   invalid     a descriptor is passed as it is, so that OpenCV's own checks accept or refuse it (its
//               cv::Exception comes back as the error's message); the plugin refuses only groups 0
//               (CONVCHECK_ERROR_INVALID_ARGUMENT, "cannot express": blobs[0] is {O, I/G, k...}, and
//               OpenCV derives the group count from it).
// post-ops      (ABI 1.6/1.7) eltwise ops as OpenCV's activation layers after the Convolution layer
//               (opencv_post_ops.cpp); the other kinds and algorithms are declined.
// quantized     (ABI 1.5) s8:s8:s8 through the "ConvolutionInt8" layer; no named requantization rule
//               (opencv_quantized.cpp).
// The adaptations are conformance/plugins/common/include/convcheck/adaptation/adaptation.hpp; the implementation string names
// the ones that ran.
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "opencv_post_ops.hpp"
#include "opencv_quantized.hpp"
#include "opencv_transposed.hpp"

namespace support = convcheck_plugin_support;

struct convcheck_plugin {
    int num_threads = 0;
};

namespace {

// What OpenCV dnn cannot compute, in its words; "" when it can (after adaptation).
std::string not_computable(const convcheck_conv_desc& d) {
    if (d.dtype != CONVCHECK_F32)
        return std::string("OpenCV 4.6 dnn computes on the CPU target (DNN_TARGET_CPU) in f32 only (its f16 targets are "
                           "DNN_TARGET_OPENCL_FP16 and DNN_TARGET_CUDA_FP16; cv::Mat has no bf16 depth), not ") +
               support::dtype_name(d.dtype);
    if (d.rank < 1 || d.rank > 3) return "rank " + std::to_string(d.rank) + " is not a convolution rank";
    for (int64_t v : {d.batch, d.in_channels, d.out_channels, d.groups})
        if (v > INT32_MAX)
            return "the opencv plugin cannot express a size above 2^31-1 to OpenCV (declined): cv::Mat dimensions are int";
    return "";
}

// What the plugin cannot hand OpenCV without inventing a number; "" when it passes the case as it is.
std::string inexpressible(const convcheck_conv_desc& d) {
    if (d.groups == 0)
        return "the opencv plugin cannot express groups = 0 to OpenCV: the layer's weights blob is {O, C/G, k...} "
               "(OpenCV derives the group count from it), and C/G has no value for G = 0";
    return "";
}

// A blob of `dims` holding a copy of `data` (zeros when NULL). Built by hand rather than with
// Mat::clone, which turns a Mat with a zero dimension into one without dimensions: a {0, C/G, k...}
// weights blob must reach OpenCV with its shape.
cv::Mat blob(const std::vector<int>& dims, const void* data) {
    cv::Mat m(dims, CV_32F, cv::Scalar(0));
    if (data != nullptr && m.total() > 0) std::memcpy(m.ptr<float>(), data, m.total() * sizeof(float));
    return m;
}

// NCHW / NCDHW and OIX are the only layouts of OpenCV's blobs; rank 1 is 2-D with a unit axis; the
// 2-D layer takes only equal pads, the 3-D layer any non-negative ones.
support::Adaptation plan_for(const convcheck_conv_desc& d) {
    const support::PadsRule pads = d.rank == 3 ? support::PadsRule::nonnegative : support::PadsRule::symmetric_nonnegative;
    return support::plan_adaptation(d, {CONVCHECK_NCX, CONVCHECK_OIX, true, false, pads});
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
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CONV_TRANSPOSED;
    // Everything is claimed: conv_query says per case what OpenCV cannot compute, in its words.
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16) |
                  CONVCHECK_BIT(CONVCHECK_F64) |  // f64: claimed so that query declines it in the library's words
                  CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32);
    // ConvolutionInt8 rounds ties to even in its vector blocks and away from zero in their scalar tails
    // (opencv_quantized.cpp): no named rule, judged by TOSA's INEXACT_ROUND window; its sums are s32.
    mine.requantization = CONVCHECK_REQUANTIZATION_UNNAMED;
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    // ABI 1.6/1.7: eltwise post-ops, each as the activation layer of its formula (opencv_post_ops.cpp)
    mine.post_op_kinds = CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE);
    mine.eltwise_algorithms = convcheck_opencv::claimed_eltwise_algorithms();
    return support::fill_info(info, mine);
}

// The layer's parameters for the adapted case d; weights and bias are copied into the layer's own
// blobs (OpenCV may repack them; the runner's buffers stay untouched). NULL weights: zero blobs of
// the right shape (query).
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
    params.blobs.push_back(blob(wei_dims, weights));
    if (d.has_bias) params.blobs.push_back(blob({1, int(d.out_channels)}, bias));
    return params;
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    return support::guarded("opencv conv_query", [&]() -> convcheck_error* {
        if (support::quantization_of(*desc) != nullptr) return convcheck_opencv::quantized_query(*desc, out);
        if (const std::string why = support::dense_only(*desc, "OpenCV"); !why.empty()) return support::unsupported(out, why);
        if (const std::string why = inexpressible(*desc); !why.empty()) return support::invalid_argument(why);
        const std::string why = not_computable(*desc);
        if (!why.empty()) return support::unsupported(out, why);
        // Ask OpenCV: the layer checks its parameters when it is created.
        try {
            cv::dnn::LayerParams params = layer_params(support::library_desc(*desc, plan_for(*desc)), nullptr, nullptr);
            cv::dnn::LayerFactory::createLayerInstance(params.type, params);
            if (const convcheck_post_ops* ops = support::post_ops_of(*desc))
                for (cv::dnn::LayerParams& p : convcheck_opencv::post_op_layers(*ops))
                    cv::dnn::LayerFactory::createLayerInstance(p.type, p);
        } catch (const cv::Exception& e) {
            return support::unsupported(out, "OpenCV refused the layer: " + e.err + " (" + e.func + ")");
        }
        return support::supported(out);
    });
}

// The prepared case: the adaptation and the one-layer network holding the weights (OpenCV copies
// them into the layer's blobs): built at prepare when the weights come with it, else per execute.
struct Prepared : convcheck_conv_plan {
    Prepared(const convcheck_plugin& plugin, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), num_threads(plugin.num_threads), adaptation(plan_for(desc)),
          library(support::library_desc(desc, adaptation)), ops_copy(support::post_ops_of(desc)) {
        if (const std::string why = inexpressible(desc); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, why);
        const std::string why = not_computable(desc);
        if (!why.empty()) throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "prepare of an unsupported case: " + why);
        if (ops_copy.get() != nullptr)
            if (const std::string refused = convcheck_opencv::post_ops_accepts(desc, *ops_copy.get()); !refused.empty())
                throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, refused);
        if (inputs.weights != nullptr) net = make_net(inputs.weights, inputs.bias);
    }

    std::unique_ptr<cv::dnn::Net> make_net(const void* runner_weights, const void* bias) const {
        std::vector<unsigned char> adapted;
        const void* weights = runner_weights;
        if (support::moves_weights(desc, adaptation)) {
            adapted.resize(support::element_bytes(library.dtype) * library.out_channels *
                           (library.in_channels / library.groups) * kernel_volume(library));
            support::adapt_weights(desc, adaptation, runner_weights, adapted.data());
            weights = adapted.data();
        }
        cv::dnn::LayerParams params = layer_params(library, weights, bias);
        auto made = std::make_unique<cv::dnn::Net>();
        made->addLayerToPrev(params.name, params.type, params);
        if (ops_copy.get() != nullptr)
            for (cv::dnn::LayerParams& p : convcheck_opencv::post_op_layers(*ops_copy.get())) made->addLayerToPrev(p.name, p.type, p);
        made->setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made->setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return made;
    }

    static int64_t kernel_volume(const convcheck_conv_desc& l) {
        int64_t v = 1;
        for (int a = 0; a < l.rank; ++a) v *= l.kernel_size[a];
        return v;
    }

    convcheck_error* execute(const convcheck_conv_args& args) override {
        if (num_threads > 0 && cv::getNumThreads() != num_threads) cv::setNumThreads(num_threads);
        const convcheck_conv_desc& l = library;
        std::unique_ptr<cv::dnn::Net> fresh;
        if (!net) fresh = make_net(args.weights, args.bias);
        cv::dnn::Net& layer = net ? *net : *fresh;
        support::LibraryBuffers buffers(desc, adaptation, args);
        std::vector<int> src_dims{int(l.batch), int(l.in_channels)}, dst_dims{int(l.batch), int(l.out_channels)};
        for (int a = 0; a < l.rank; ++a) {
            src_dims.push_back(int(l.input_size[a]));
            dst_dims.push_back(int(support::output_size(l, a)));
        }
        layer.setInput(blob(src_dims, buffers.src()));
        const cv::Mat result = layer.forward();
        if (result.type() != CV_32F || std::vector<int>(result.size.p, result.size.p + result.dims) != dst_dims ||
            !result.isContinuous())
            return support::make_error("OpenCV's Convolution layer returned a blob of another shape or type than expected");
        std::memcpy(buffers.dst(), result.ptr<float>(), result.total() * sizeof(float));
        buffers.return_dst();
        std::string activations;
        if (ops_copy.get() != nullptr)
            for (const cv::dnn::LayerParams& p : convcheck_opencv::post_op_layers(*ops_copy.get())) activations += "+" + p.type;
        support::write_implementation(&args, "opencv_dnn:Convolution" + activations + "(DNN_BACKEND_OPENCV, DNN_TARGET_CPU)" +
                                                 support::adaptation_note(desc, adaptation));
        return nullptr;
    }

    const int num_threads;
    const support::Adaptation adaptation;
    const convcheck_conv_desc library;
    const support::PostOpsCopy ops_copy;
    std::unique_ptr<cv::dnn::Net> net;
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const support::PrepareInputs& inputs) {
    if (support::quantization_of(desc) != nullptr) return convcheck_opencv::quantized_plan(plugin->num_threads, desc, inputs);
    return std::make_unique<Prepared>(*plugin, desc, inputs);
}

convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args) {
    return convcheck_opencv::transposed_execute(plugin, t, args, plugin->num_threads);
}

const convcheck_api api = [] {
    convcheck_api a = support::basic_api(create, destroy, describe);
    support::add_conv<prepare>(a, conv_query);
    // per-output-channel weights zero points (ABI 1.8) reach the query, which declines them in the library's words
    support::add_quantized<prepare>(support::kQuantizedWeightsZeroPoints);
    support::add_post_ops<prepare>(convcheck_opencv::post_ops_accepts);
    support::add_conv_transposed<convcheck_opencv::transposed_query, transposed_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
