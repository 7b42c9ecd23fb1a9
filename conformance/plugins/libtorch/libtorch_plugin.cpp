// convcheck plugin for libtorch (ATen, CPU): convolution of ranks 1-3 in f32 and bf16, groups,
// dilation, explicit pads, through at::convolution; backward data and backward weights (+ bias)
// through at::convolution_backward (ABI 1.2 prop_kind; docs/passes.md); transposed convolution through
// at::convolution with transposed = true (ABI 1.3; libtorch_transposed.cpp); the CC layer with torch
// operations, the paper's standard and "by discrete convs" methods (cc_plugin.cpp, cc_torch.hpp); quantized
// (int8, ABI 1.5) convolution through PyTorch's quantized::convNd ops on QNNPACK (libtorch_quantized.cpp).
// Option (--backend-option): cc_method=<standard|discrete_convs> forces one CC method; a layer it cannot
// compute is declined with the reason.
//
// The translation:
//   layouts     the runner's buffers become tensors over the same memory with the strides of their
//               format (NXC = channels-last strides, XIO = [k...][I/G][O] strides over logical
//               [O][I/G][k...]); ATen takes strided tensors as they are.
//   pads        at::convolution has one non-negative padding per axis, applied on both sides
//               (PyTorch's Conv docs: "padding controls the amount of padding applied to the input";
//               a negative one is refused: "negative padding is not supported"). Equal pads go
//               there; the excess of the larger pad becomes explicit zeros and a negative pad a
//               crop of the input (adaptation, conformance/plugins/common/include/convcheck/adaptation/adaptation.hpp; the
//               implementation string says so, e.g. "[cropped, zero-padded]").
//   dilations   1-based, as ours. groups as ours.
//   output      the result is copied into the runner's dst only when its shape is exactly the
//               expected one (copy_ would broadcast anything smaller); otherwise nothing is written
//               and the implementation string names the shape ATen returned.
//   invalid     a descriptor is passed as it is, so that ATen's own checks accept or refuse it (its
//               c10::Error comes back as the error's message); the plugin refuses only groups 0
//               (CONVCHECK_ERROR_INVALID_ARGUMENT, "cannot express": the weights tensor is
//               [O, C/G, k...]). Each tensor's storage size is checked with ATen's own
//               computeStorageNbytes before at::from_blob, whose TensorMaker::computeStorageSize is
//               noexcept in 1.13 and would turn ATen's overflow error into std::terminate.
//   post-ops    (ABI 1.6/1.7) each op as the ATen op of its formula on at::convolution's result, in order
//               (libtorch_post_ops.cpp): relu, clip, linear, round, abs, square, sum, the six binary ops, prelu
//               in f32; in bf16 only the ops that commute with ATen's rounding between ops (relu, clip, abs,
//               max, min).
//   mixes       claimed (mixed_dtypes) so that conv_query declines each in ATen's words: at::convolution takes
//               and returns one dtype (libtorch_post_ops.cpp).
#include <ATen/EmptyTensor.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/Context.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/from_blob.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_cc_backward.hpp"
#include "convcheck/plugin_backward.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "cc_plugin.hpp"
#include "libtorch_backward.hpp"
#include "libtorch_post_ops.hpp"
#include "libtorch_quantized.hpp"
#include "libtorch_tensors.hpp"
#include "libtorch_threads.hpp"
#include "libtorch_transposed.hpp"

#ifndef CONVCHECK_LIBTORCH_VERSION
#define CONVCHECK_LIBTORCH_VERSION "unknown"
#endif

namespace support = convcheck_plugin_support;

struct convcheck_plugin {
    int num_threads = 0;
    convcheck_libtorch::CcSettings cc;
};

using convcheck_libtorch::aten_errors;
using convcheck_libtorch::backend_name;
using convcheck_libtorch::copy_result;
using convcheck_libtorch::select_backend;
using convcheck_libtorch::has_output_size;
using convcheck_libtorch::over;
using convcheck_libtorch::plan_for;
using convcheck_libtorch::TorchArguments;

namespace {

std::string not_computable(const convcheck_conv_desc& d) {
    if (d.dtype != CONVCHECK_F32 && d.dtype != CONVCHECK_BF16 && d.dtype != CONVCHECK_F64)
        return d.dtype != CONVCHECK_F16 ? std::string("libtorch convolution has no ") + support::dtype_name(d.dtype) + " through this ABI"
               : support::prop_kind(d) == CONVCHECK_FORWARD
                   ? std::string("ATen 1.13 has no CPU f16 convolution: at::convolution raises \"slow_conv2d_cpu\" (also "
                                 "\"compute_columns3d\", \"slow_conv_dilated<>\") not implemented for 'Half'")
                   : std::string("ATen 1.13 has no CPU f16 convolution backward: at::convolution_backward raises "
                                 "\"slow_conv2d_cpu_grad_input\" (also \"slow_conv2d_cpu\", \"slow_conv3d_cpu_grad_input\", "
                                 "\"compute_columns3d\", \"slow_conv_dilated<>\") not implemented for 'Half'");
    if (d.rank < 1 || d.rank > 3) return "libtorch convolution has spatial ranks 1-3, not " + std::to_string(d.rank);
    return "";
}

// What the plugin cannot hand ATen without inventing a number; "" when it passes the case as it is.
std::string inexpressible(const convcheck_conv_desc& d) {
    if (d.groups == 0)
        return "the libtorch plugin cannot express groups = 0 to ATen: the weights tensor at::convolution takes is "
               "[O, C/G, k...], and C/G has no value for G = 0";
    return "";
}

// ATen's CPU convolution computes double tensors in double (kDouble: slow_conv2d, mkldnn takes f32 and bf16 only)
at::ScalarType scalar_type(const convcheck_conv_desc& d) {
    return d.dtype == CONVCHECK_F32 ? at::kFloat : d.dtype == CONVCHECK_F64 ? at::kDouble : at::kBFloat16;
}

// The options: cc_method=<standard|discrete_convs>, comma-separated items.
convcheck_error* parse_options(const std::string& text, convcheck_libtorch::CcSettings& cc) {
    for (const auto& [key, value] : support::option_items(text)) {
        if (key != "cc_method") return support::invalid_argument("libtorch: unknown option '" + key + "' (cc_method)");
        if (!convcheck_libtorch::cc::parse_method(value, &cc.method))
            return support::invalid_argument("libtorch: cc_method='" + value + "' is not standard or discrete_convs");
    }
    return nullptr;
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("libtorch create", [&]() -> convcheck_error* {
        const int num_threads = CONVCHECK_HAS_FIELD(args, convcheck_create_args, num_threads) ? args->num_threads : 0;
        if (num_threads < 0) return support::invalid_argument("create: num_threads " + std::to_string(num_threads) + " is negative");
        auto plugin = std::make_unique<convcheck_plugin>();
        plugin->num_threads = plugin->cc.num_threads = num_threads;
        if (CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options != nullptr)
            if (auto* e = parse_options(args->options, plugin->cc)) return e;
        *out = plugin.release();
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete plugin; }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "libtorch";
    mine.version = CONVCHECK_LIBTORCH_VERSION;
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CONV_TRANSPOSED | CONVCHECK_OP_CC | CONVCHECK_OP_CC_BACKWARD;
    // f16 is claimed so that conv_query declines it in ATen's words.
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_BF16) | CONVCHECK_BIT(CONVCHECK_F16) |
                  CONVCHECK_BIT(CONVCHECK_F64) |
                  CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32);
    // quantized convolution (libtorch_quantized.cpp): QNNPACK's f32 product rounded to even, then + the zero point
    mine.requantization = CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32;
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    // Backward data and backward weights (+ bias) through at::convolution_backward.
    mine.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                      CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
    // mixed per-tensor dtypes: claimed so that conv_query declines each in ATen's words (it runs none)
    mine.mixed_dtypes = 1;
    // fused post-ops: each op as its ATen op after at::convolution (libtorch_post_ops.cpp)
    mine.post_op_kinds = convcheck_libtorch::kPostOpKinds;
    mine.eltwise_algorithms = convcheck_libtorch::kEltwiseAlgorithms;
    mine.binary_algorithms = convcheck_libtorch::kBinaryAlgorithms;
    return support::fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    if (support::quantization_of(*desc) != nullptr)
        return aten_errors([&] { return convcheck_libtorch::quantized_query(*desc, out); });
    if (const std::string why = support::dense_only(*desc, "libtorch"); !why.empty()) return support::unsupported(out, why);
    if (const std::string why = inexpressible(*desc); !why.empty()) return support::invalid_argument(why);
    if (const std::string why = convcheck_libtorch::mixed_dtypes_missing(*desc); !why.empty())
        return support::unsupported(out, why);
    const std::string why = not_computable(*desc);
    return why.empty() ? support::supported(out) : support::unsupported(out, why);
}

void check_computable(const convcheck_conv_desc& d) {
    if (const std::string why = inexpressible(d); !why.empty()) throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, why);
    std::string why = convcheck_libtorch::mixed_dtypes_missing(d);
    if (why.empty()) why = not_computable(d);
    if (!why.empty()) throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "prepare of an unsupported case: " + why);
}

// The prepared case: the adaptation and the arguments of at::convolution. ATen has no separate
// planning step; the weights never move (both filter formats are strided views), so nothing of
// them is kept.
struct Prepared : convcheck_conv_plan {
    Prepared(const convcheck_plugin& plugin, const convcheck_conv_desc& desc)
        : convcheck_conv_plan(desc), num_threads(plugin.num_threads), type(scalar_type(desc)), adaptation(plan_for(desc)),
          l(support::library_desc(desc, adaptation)), g(l), ops_copy(support::post_ops_of(desc)) {
        check_computable(desc);
    }

    convcheck_error* execute(const convcheck_conv_args& args) override {
        return aten_errors([&] { return run(args); });
    }

    convcheck_error* run(const convcheck_conv_args& args) {
        convcheck_libtorch::use_threads(num_threads);
        support::LibraryBuffers buffers(desc, adaptation, args);
        const at::Tensor src = over(buffers.src(), g.src_dims, support::activation_order(l), type);
        const at::Tensor weights = over(buffers.weights(), g.wei_dims, support::weights_order(l), type);
        const c10::optional<at::Tensor> bias =
            desc.has_bias ? c10::optional<at::Tensor>(over(buffers.bias(), {l.out_channels}, {0}, type)) : c10::nullopt;
        at::Tensor result =
            at::convolution(src, weights, bias, g.strides, g.pads, g.dilations, false, g.no_output_padding, l.groups);
        // the post-ops, each an ATen op on the result (needs the spec's dst shape: an operand has it); an f32
        // operand promotes a bf16 result to f32, which the copy rounds to dst's dtype once
        const bool post_ops = ops_copy.get() != nullptr && has_output_size(l) && result.sizes() == at::IntArrayRef(g.dst_dims);
        if (post_ops) result = convcheck_libtorch::apply_post_ops(desc, *ops_copy.get(), args, g.dst_dims, result).to(type);
        const std::string implementation =
            std::string("libtorch:") +
            backend_name(select_backend(src, weights, bias ? at::OptionalIntArrayRef(bias->sizes()) : c10::nullopt,
                                        g.strides, g.pads, g.dilations, false, g.no_output_padding, l.groups, false)) +
            support::adaptation_note(desc, adaptation) + (post_ops ? " + " + std::to_string(ops_copy.get()->count) + " ATen post-op(s)" : "");
        // A result of another shape than the spec's dst (or any result where the spec defines no
        // output size) is not copied: success with nothing written and the shape ATen returned
        // named, so the runner sees what ATen computed (unwritten outputs; for an invalid case,
        // accepted_invalid) instead of a refusal ATen did not make.
        if (!has_output_size(l)) {
            support::write_implementation(&args, implementation + " (at::convolution returned shape " +
                                                     c10::str(result.sizes()) + " " + c10::toString(result.scalar_type()) +
                                                     ", the spec's dst is undefined: nothing written)");
            return nullptr;
        }
        const std::string not_copied =
            copy_result(result, buffers.dst(), g.dst_dims, support::activation_order(l), type, "at::convolution", "dst");
        if (not_copied.empty()) buffers.return_dst();
        support::write_implementation(&args, implementation + not_copied);
        return nullptr;
    }

    const int num_threads;
    const at::ScalarType type;
    const support::Adaptation adaptation;
    const convcheck_conv_desc l;  // the case ATen computes
    const TorchArguments g;
    const support::PostOpsCopy ops_copy;  // the chain, or none
};

convcheck_error* backward_execute(convcheck_plugin* plugin, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    if (const std::string why = support::dense_only(desc, "libtorch"); !why.empty())
        return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    return aten_errors([&] {
        check_computable(desc);
        if (!has_output_size(desc))
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT,
                                       "the libtorch plugin cannot express a backward pass with a stride below 1: diff_dst "
                                       "has the spec's dst shape, which is undefined there");
        convcheck_libtorch::use_threads(plugin->num_threads);
        return convcheck_libtorch::backward_compute(desc, scalar_type(desc), at::kCPU, "libtorch", args);
    });
}

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const support::PrepareInputs& inputs) {
    if (support::quantization_of(desc) != nullptr) return convcheck_libtorch::quantized_plan(plugin->num_threads, desc, inputs);
    return std::make_unique<Prepared>(*plugin, desc);
}

convcheck_error* cc_backward_query(convcheck_plugin* plugin, const convcheck_cc_desc& desc, convcheck_support* out) {
    return convcheck_libtorch::cc_backward_query(plugin->cc, desc, out);
}
convcheck_error* cc_backward_execute(convcheck_plugin* plugin, const convcheck_cc_desc& desc,
                                     const convcheck_cc_backward_args& args) {
    return convcheck_libtorch::cc_backward_execute(plugin->cc, desc, args);
}

const convcheck_api api = [] {
    support::takes_mixed_dtypes<support::PrepareTag<prepare>> = true;  // declined in ATen's words at query
    convcheck_api a = support::basic_api(create, destroy, describe);
    support::add_conv<prepare>(a, conv_query);
    // per-output-channel weights zero points (ABI 1.8): a per_channel_affine qint8 tensor on QNNPACK (quint8 src)
    support::add_quantized<prepare>(support::kQuantizedWeightsZeroPoints);
    support::add_post_ops<prepare>(convcheck_libtorch::post_ops_accepts);
    support::add_backward<prepare, conv_query, backward_execute>(a);  // the same query: ATen's limits are the same
    support::add_conv_transposed<convcheck_libtorch::transposed_query, convcheck_libtorch::transposed_execute>(a);
    a.cc_query = [](convcheck_plugin* plugin, const convcheck_cc_desc* desc, convcheck_support* out) {
        return convcheck_libtorch::cc_query(plugin->cc, desc, out);
    };
    a.cc_execute = [](convcheck_plugin* plugin, const convcheck_cc_desc* desc, const convcheck_cc_args* args) {
        return convcheck_libtorch::cc_execute(plugin->cc, desc, args);
    };
    support::add_cc_backward<cc_backward_query, cc_backward_execute>(a);  // through torch autograd
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
