// convcheck plugin for Arm NN 20.08's reference backend, CpuRef (Debian libarmnn-dev and
// libarmnn-cpuref-backend22): 2-D convolution through a one-layer armnn::INetwork, optimized for
// Compute::CpuRef and loaded into an armnn::IRuntime; transposed convolution through TransposeConvolution2d
// (ABI 1.3; armnn_transposed.cpp).
//
// The translation (armnn_layer.hpp):
//   layer       groups 1: Convolution2d; groups = C (> 1): DepthwiseConvolution2d with multiplier O/C;
//               other groups: Arm NN 20.08 has no grouped convolution (declined).
//   pads        m_PadTop/Bottom/Left/Right, unsigned: asymmetric pads are Arm NN's own, a negative pad
//               is a crop of the input (adaptation).
//   strides, dilations   m_StrideY/X, m_DilationY/X (1-based, like ours).
//   data        NCHW and NHWC are both Arm NN's (m_DataLayout); rank 1 is 2-D with a unit axis; rank 3
//               with kernel depth 1 is 2-D NHWC on the gathered depth slices, depth folded into the
//               batch (adaptations); other 3-D: Arm NN has no 3-D convolution (declined).
//   weights     Convolution2d: OIHW for NCHW, OHWI for NHWC; depthwise: [M][C][H][W] (reordered).
//   dtypes      f32, f16, bf16 (CpuRef decodes every element to float and accumulates in float).
//   quantized   (ABI 1.5) u8/s8 as QAsymmU8, QAsymmS8 and QSymmS8 (per tensor or per axis), bias Signed32;
//               CpuRef dequantizes to f32, sums in f32 and quantizes the sum with round(), ties away from
//               zero: no named requantization rule (armnn_quantized.cpp).
//   post-ops    (ABI 1.6/1.7) f32: Activation, ElementwiseUnary Exp, the elementwise binary layers and Prelu
//               after the convolution layer, operands and a sum's prior dst as further inputs of the network
//               (armnn_post_ops.cpp); the rest is declined.
//   invalid     what Arm NN's parameters can hold is passed as it is, so that Arm NN accepts or refuses
//               it; the plugin refuses only what they cannot hold (armnn_layer.hpp, inexpressible).
//   threads     CpuRef runs on the calling thread; num_threads is not used.
// CpuRef is a dynamic backend: the runtime loads it from CONVCHECK_ARMNN_BACKEND_DIR (the armnn22
// folder CMake found beside libarmnn) through IRuntime::CreationOptions::m_DynamicBackendsPath. One
// runtime serves every instance of a process (Arm NN registers a dynamic backend process-wide and
// deregisters it when its runtime goes away); it is created at the first create, never at load time.
#include <armnn/ArmNN.hpp>
#include <armnn/BackendHelper.hpp>
#include <armnn/BackendRegistry.hpp>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "armnn_layer.hpp"
#include "armnn_network.hpp"
#include "armnn_post_ops.hpp"
#include "armnn_quantized.hpp"
#include "armnn_transposed.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"

#ifndef CONVCHECK_ARMNN_BACKEND_DIR
#error "CONVCHECK_ARMNN_BACKEND_DIR (the folder holding Arm_CpuRef_backend.so) is set by conformance/plugins/armnn/part.cmake"
#endif
#ifndef CONVCHECK_ARMNN_PACKAGE_VERSION
#define CONVCHECK_ARMNN_PACKAGE_VERSION "unknown"
#endif

namespace support = convcheck_plugin_support;
using namespace convcheck_armnn;

namespace {

// The process's runtime, shared by every instance while one exists.
std::shared_ptr<armnn::IRuntime> shared_runtime() {
    static std::mutex mutex;
    static std::weak_ptr<armnn::IRuntime> current;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto runtime = current.lock()) return runtime;
    armnn::IRuntime::CreationOptions options;
    options.m_DynamicBackendsPath = CONVCHECK_ARMNN_BACKEND_DIR;
    std::shared_ptr<armnn::IRuntime> runtime(armnn::IRuntime::CreateRaw(options), &armnn::IRuntime::Destroy);
    if (!armnn::BackendRegistryInstance().IsBackendRegistered(kCpuRef))
        throw support::PluginError(CONVCHECK_ERROR_INTERNAL,
                                   "Arm NN loaded no CpuRef backend from " CONVCHECK_ARMNN_BACKEND_DIR " (registered: " +
                                       armnn::BackendRegistryInstance().GetBackendIdsAsString() +
                                       "); install libarmnn-cpuref-backend22");
    current = runtime;
    return runtime;
}

}  // namespace

struct convcheck_plugin {
    std::shared_ptr<armnn::IRuntime> runtime;
    std::shared_ptr<armnn::ILayerSupport> layer_support;
};

namespace {

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("armnn create", [&]() -> convcheck_error* {
        int num_threads = 0;
        if (auto* e = support::read_create_args(args, &num_threads)) return e;
        auto plugin = std::make_unique<convcheck_plugin>();
        plugin->runtime = shared_runtime();
        plugin->layer_support = armnn::GetILayerSupportByBackendId(kCpuRef);
        *out = plugin.release();
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete plugin; }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "armnn";
    mine.version = CONVCHECK_ARMNN_PACKAGE_VERSION " (libarmnn " ARMNN_VERSION ", backend CpuRef)";
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CONV_TRANSPOSED;
    // u8, s8 and s32 (armnn_quantized.cpp): CpuRef itself answers per case (it takes no Signed32 dst).
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16) |
                  CONVCHECK_BIT(CONVCHECK_F64) |  // f64: claimed so that query declines it in the library's words
                  CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32);
    // CpuRef requantizes a float sum with round() (ties away from zero): none of the named rules, judged by
    // TOSA's INEXACT_ROUND window. Its sum is of f32 products in f32, not an integer accumulator: S32 is the
    // ABI's exact-sum declaration, which the window then judges around.
    mine.requantization = CONVCHECK_REQUANTIZATION_UNNAMED;
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    // 2-D natively; rank 1 and 3-D with kernel depth 1 by exact data movement (conv_query declines the rest).
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO) | CONVCHECK_BIT(CONVCHECK_OXI);
    mine.accumulation_dtype = CONVCHECK_F32;
    // ABI 1.6/1.7: post-ops as the Arm NN layers of their formulas (armnn_post_ops.cpp)
    mine.post_op_kinds = claimed_post_op_kinds();
    mine.eltwise_algorithms = claimed_eltwise_algorithms();
    mine.binary_algorithms = claimed_binary_algorithms();
    return support::fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    return support::guarded("armnn conv_query", [&]() -> convcheck_error* {
        if (support::quantization_of(*desc) != nullptr) return quantized_query(plugin->runtime, *plugin->layer_support, *desc, out);
        if (const std::string why = support::dense_only(*desc, "Arm NN"); !why.empty()) return support::unsupported(out, why);
        if (const std::string why = inexpressible(*desc); !why.empty()) return support::invalid_argument(why);
        if (const std::string why = no_layer(*desc); !why.empty()) return support::unsupported(out, why);
        // Ask CpuRef's ILayerSupport (what Optimize asks when it assigns the layer to the backend).
        const std::string refused = backend_refuses(*plugin->layer_support, translate(*desc));
        if (!refused.empty()) return support::unsupported(out, "Arm NN's CpuRef refused the layer: " + refused);
        return support::supported(out);
    });
}

// The network of one case's layer (armnn_network.hpp), with the translation's weights and bias.
std::unique_ptr<LoadedLayer> load_layer(std::shared_ptr<armnn::IRuntime> runtime, const convcheck_conv_desc& desc,
                                        const Translation& t, const void* weights, const void* bias,
                                        const convcheck_post_ops* ops) {
    const std::vector<unsigned char> weights_bytes = layer_weights(desc, t, weights);
    const std::vector<unsigned char> bias_bytes = t.library.has_bias ? layer_bias(t, bias) : std::vector<unsigned char>();
    const armnn::ConstTensor weights_tensor(weights_info(t), weights_bytes.data());
    const armnn::Optional<armnn::ConstTensor> bias_tensor =
        t.library.has_bias ? armnn::Optional<armnn::ConstTensor>(armnn::ConstTensor(bias_info(t), bias_bytes.data()))
                           : armnn::EmptyOptional();
    const auto add = [&](armnn::INetwork& network) {
        return t.kind == LayerKind::depthwise_convolution2d
                   ? network.AddDepthwiseConvolution2dLayer(depthwise_descriptor(t), weights_tensor, bias_tensor, "conv")
                   : network.AddConvolution2dLayer(convolution_descriptor(t), weights_tensor, bias_tensor, "conv");
    };
    if (ops == nullptr) return std::make_unique<LoadedLayer>(std::move(runtime), add, input_info(t), output_info(t));
    const auto add_chain = [&](armnn::INetwork& network, const LoadedLayer::Inputs& inputs) {
        armnn::IConnectableLayer* conv = add(network);
        conv->GetOutputSlot(0).SetTensorInfo(output_info(t));
        return LoadedLayer::Chain{conv, add_post_op_layers(network, conv, output_info(t), *ops, inputs)};
    };
    return std::make_unique<LoadedLayer>(std::move(runtime), add_chain, input_info(t), post_op_inputs(t, *ops));
}

// The prepared case: the translation, and the loaded network holding the weights (Arm NN copies them
// into the layer), built at prepare when the weights come with it, else per execute.
struct Prepared : convcheck_conv_plan {
    Prepared(const convcheck_plugin& plugin, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), runtime(plugin.runtime), ops_copy(support::post_ops_of(desc)) {
        if (const std::string why = inexpressible(desc); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, why);
        if (const std::string why = no_layer(desc); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "prepare of an unsupported case: " + why);
        if (ops_copy.get() != nullptr)
            if (const std::string why = post_ops_accepts(desc, *ops_copy.get()); !why.empty())
                throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        translation = translate(desc);
        if (inputs.weights != nullptr) loaded = load(inputs.weights, inputs.bias);
    }

    std::unique_ptr<LoadedLayer> load(const void* weights, const void* bias) const {
        try {
            return load_layer(runtime, desc, translation, weights, bias, ops_copy.get());
        } catch (const armnn::Exception& e) {
            throw support::PluginError(error_code_of(e), std::string("Arm NN: ") + e.what());
        }
    }

    convcheck_error* execute(const convcheck_conv_args& args) override {
        std::unique_ptr<LoadedLayer> fresh;
        if (!loaded) fresh = load(args.weights, args.bias);
        const LoadedLayer& layer = loaded ? *loaded : *fresh;
        support::LibraryBuffers buffers(desc, translation.adaptation, args);
        const convcheck_post_ops* ops = ops_copy.get();
        // a sum's prior dst: the runner's dst (post_ops_accepts: not moved), copied before Arm NN writes it
        std::vector<unsigned char> prior;
        if (ops != nullptr && has_sum(*ops)) {
            const auto* bytes = static_cast<const unsigned char*>(args.dst);
            prior.assign(bytes, bytes + output_info(translation).GetNumBytes());
        }
        try {
            layer.run(buffers.src(), buffers.dst(), ops == nullptr ? std::vector<const void*>() : post_op_data(*ops, args, prior.data()));
        } catch (const armnn::Exception& e) {
            return support::make_error(std::string("Arm NN: ") + e.what(), error_code_of(e));
        }
        buffers.return_dst();
        const bool widened_bias = desc.has_bias && desc.dtype == CONVCHECK_BF16;
        support::write_implementation(&args, std::string("armnn:CpuRef:") + layer_name(translation.kind) +
                                                 (ops == nullptr ? std::string() : post_op_names(*ops)) +
                                                 support::adaptation_note(desc, translation.adaptation) +
                                                 (widened_bias ? " [bias bf16->f32]" : ""));
        return nullptr;
    }

    std::shared_ptr<armnn::IRuntime> runtime;
    const support::PostOpsCopy ops_copy;
    Translation translation;
    std::unique_ptr<LoadedLayer> loaded;
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const support::PrepareInputs& inputs) {
    if (support::quantization_of(desc) != nullptr) return quantized_plan(plugin->runtime, desc, inputs);
    return std::make_unique<Prepared>(*plugin, desc, inputs);
}

convcheck_error* conv_transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out) {
    return transposed_query(*plugin->layer_support, t, out);
}

convcheck_error* conv_transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                         const convcheck_conv_args& args) {
    return transposed_execute(plugin->runtime, t, args);
}

const convcheck_api api = [] {
    convcheck_api a = support::basic_api(create, destroy, describe);
    support::add_conv<prepare>(a, conv_query);
    // per-output-channel weights zero points (ABI 1.8) reach the query, which declines them in the library's words
    support::add_quantized<prepare>(support::kQuantizedWeightsZeroPoints);
    support::add_post_ops<prepare>(post_ops_accepts);
    support::add_conv_transposed<conv_transposed_query, conv_transposed_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
