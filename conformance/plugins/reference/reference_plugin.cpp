// The reference as a plugin: the runner reaches every implementation through the ABI, its own too.
// Computes in double (reference reading 1) and rounds once to the output type, so it declares f64
// accumulation; each tensor is read in its own dtype (mixed per-tensor dtypes, forward). Discrete convolution (reading 1), its backward passes (reference/backward.hpp),
// transposed convolution (reference/transposed.hpp), CC (the four blocks, seed 004) and CC's backward pass
// (reference/cc/backward.hpp, ABI 1.4); quantized convolution (ABI 1.5: the literal integer sum, requantized by the
// rule of the option requantization=<double_rounding|single_rounding|nearest_even_f32|
// nearest_even_f32_with_zero_point>, nearest_even_f32_with_zero_point (ONNX's) by default; reference_quantized.cpp;
// with the option sum=f32, a u8 or s8 dst is computed in f32 as an ONNX QDQ model computes it).
#include <algorithm>
#include <memory>
#include <string>

#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/post_ops.hpp"
#include "convcheck/reference/transposed.hpp"
#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/plugin_backward.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_cc_backward.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_scales.hpp"
#include "reference_post_ops.hpp"
#include "reference_quantized.hpp"

namespace {

using namespace convcheck_plugin_support;

struct Instance {
    const convcheck_thread_pool* pool = nullptr;  // the runner's (ABI 1.2), or NULL: one thread
    // ONNX's reference QLinearConv: the zero point added in float, then rounded to even
    convcheck::reference::Requantization rule = convcheck::reference::Requantization::nearest_even_f32_with_zero_point;
    bool f32_sum = false;  // sum=f32: quantized cases as an ONNX QDQ model computes them (reference_quantized.hpp)
};

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("create", [&]() -> convcheck_error* {
        auto instance = std::make_unique<Instance>();
        instance->pool = read_thread_pool(args);
        const std::string options =
            CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
        for (std::size_t at = 0; at < options.size();) {  // comma-separated key=value
            const std::size_t end = std::min(options.find(',', at), options.size());
            const std::string option = options.substr(at, end - at), key = "requantization=";
            at = end + 1;
            if (option == "sum=f32") {
                instance->f32_sum = true;
            } else if (option.rfind(key, 0) != 0 || !reference_plugin::parse_rule(option.substr(key.size()), &instance->rule)) {
                return invalid_argument("the reference plugin takes the options requantization=<double_rounding|"
                                        "single_rounding|nearest_even_f32|nearest_even_f32_with_zero_point> and sum=f32; "
                                        "got '" + option + "'");
            }
        }
        *out = reinterpret_cast<convcheck_plugin*>(instance.release());
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin* plugin, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "reference";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CC | CONVCHECK_OP_CONV_TRANSPOSED | CONVCHECK_OP_CC_BACKWARD;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16) |
                  CONVCHECK_BIT(CONVCHECK_F64) | CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32) |
                  CONVCHECK_BIT(CONVCHECK_F8_E4M3) | CONVCHECK_BIT(CONVCHECK_F8_E5M2);  // 1.7: fp8, read exactly
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO) | CONVCHECK_BIT(CONVCHECK_OXI);
    mine.accumulation_dtype = CONVCHECK_F64;
    mine.requantization = reference_plugin::abi_rule(reinterpret_cast<Instance*>(plugin)->rule);
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;  // int64, which holds every s32 sum exactly
    // the reference's reorders read and write every element where the strides put it (memory_layout.hpp)
    mine.strided_tensors =
        CONVCHECK_BIT(CONVCHECK_TENSOR_SRC) | CONVCHECK_BIT(CONVCHECK_TENSOR_WEIGHTS) | CONVCHECK_BIT(CONVCHECK_TENSOR_DST);
    mine.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                      CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
    // forward: each tensor in its own float dtype, the exact sum rounded once to dst's (the backward
    // passes take one dtype: add_backward's gate)
    mine.mixed_dtypes = 1;
    // ABI 1.6: every post-op, applied in double before the one rounding (reference/post_ops.hpp); 1.7: prelu, the
    // eltwise algorithms to POW, every operand type
    mine.post_op_kinds = CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE) | CONVCHECK_BIT(CONVCHECK_POST_OP_SUM) |
                         CONVCHECK_BIT(CONVCHECK_POST_OP_BINARY) | CONVCHECK_BIT(CONVCHECK_POST_OP_PRELU);
    mine.eltwise_algorithms = (1u << (CONVCHECK_ELTWISE_POW + 1)) - 1;
    mine.binary_algorithms = (1u << (CONVCHECK_BINARY_DIV + 1)) - 1;
    return fill_info(info, mine);
}

// The plugin widens src and weights to double and keeps value, magnitude and term count per output
// (reference::convolution): a case whose copies pass this is declined at query, with the reason, rather
// than allocated (the large suite's tensors would need tens of GiB).
constexpr double kMaxWidenedBytes = 4.0 * (1 << 30);

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (quantization_of(*desc) != nullptr) {  // add_conv's gate checked its form
            const std::string why =
                reference_plugin::quantized_unsupported(*desc, reinterpret_cast<Instance*>(plugin)->rule,
                                                     reinterpret_cast<Instance*>(plugin)->f32_sum);
            return why.empty() ? supported(out) : unsupported(out, why);
        }
        const convcheck::ConvDescriptor d = convcheck::runner::from_abi(*desc);
        convcheck::validate(d);  // throws ConvError -> error value
        const double widened = 8.0 * (double(d.src_elements()) + double(d.weights_elements()) + double(d.bias_elements())) +
                               24.0 * double(d.dst_elements());
        if (widened > kMaxWidenedBytes)
            return unsupported(out, "the reference plugin widens every tensor to double: this case needs " +
                                        std::to_string(static_cast<long long>(widened / (1 << 20))) +
                                        " MiB of copies, more than its 4096 MiB");
        return supported(out);
    });
}

// The plan is the validated descriptor: the reference has nothing to prepare, and reads the
// weights at each execute. The images of a batch are independent: with the runner's thread pool
// each is one task (every output is still the same f64 sum, rounded once).
struct Plan : convcheck_conv_plan {
    Plan(const convcheck_conv_desc& desc, const convcheck_thread_pool* pool)
        : convcheck_conv_plan(desc), d(convcheck::runner::from_abi(desc)), image(convcheck::runner::from_abi(one_image(desc))),
          pool(pool) {
        convcheck::validate(d);  // throws ConvError (std::invalid_argument) -> an invalid-argument error
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        if (!d.post_ops.empty() || d.scales.present()) return execute_with_post_ops(args);
        parallel_for(pool, static_cast<std::size_t>(d.batch), [&](std::size_t n) {
            const convcheck_conv_args one = image_args(desc, args, static_cast<int64_t>(n));
            const auto result = convcheck::reference::convolution(image, one.src, one.weights, one.bias);
            convcheck::reference::round_dst_to_output(image, result.dst, one.dst);
        });
        write_implementation(&args, "reference_f64_summation");
        return nullptr;
    }
    // ABI 1.6: the whole batch at once; dst_prev is read before dst is written. 1.7: the scales (reference::convolution
    // scales the sum and adds the bias; the dst scale divides after the post-ops).
    convcheck_error* execute_with_post_ops(const convcheck_conv_args& args) {
        namespace ref = convcheck::reference;
        ref::PostOpData data;
        data.operands = convcheck_reference_plugin::post_op_operands(d, args);
        if (convcheck::has_sum(d.post_ops)) data.prior_dst = ref::dst_to_ncx(d, args.dst);
        auto result = ref::convolution(d, args.src, args.weights, args.bias);
        ref::apply_post_ops(d, data, result.dst);
        ref::apply_dst_scale(d, result.dst);
        ref::round_dst_to_output(d, result.dst, args.dst);
        write_implementation(&args, d.post_ops.empty() ? "reference_f64_summation_scales" : "reference_f64_summation_post_ops");
        return nullptr;
    }
    const convcheck::ConvDescriptor d, image;
    const convcheck_thread_pool* const pool;
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const PrepareInputs&) {
    const Instance& instance = *reinterpret_cast<Instance*>(plugin);
    if (quantization_of(desc) != nullptr) return reference_plugin::quantized_plan(desc, instance.rule, instance.f32_sum);
    return std::make_unique<Plan>(desc, instance.pool);
}

// The backward passes (docs/passes.md): the spec-literal sums of reference/backward.hpp in double,
// each gradient rounded once to the dtype. add_backward checks the pass, the one dtype and the
// buffers before these are called.
// Like the forward (conv_query), a case whose copies in double pass kMaxWidenedBytes is declined at query:
// the inputs widened 8(S+W+D) and the gradients with their magnitudes and term counts 24G.
convcheck_error* backward_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    const convcheck::ConvDescriptor d = convcheck::runner::from_abi(*desc);
    convcheck::validate(d);  // throws ConvError -> error value
    const double gradients = d.pass == convcheck::Pass::backward_data
                                 ? double(d.src_elements())
                                 : double(d.weights_elements()) + double(d.bias_elements());
    const double widened =
        8.0 * (double(d.src_elements()) + double(d.weights_elements()) + double(d.dst_elements())) + 24.0 * gradients;
    if (widened > kMaxWidenedBytes)
        return unsupported(out, "the reference plugin widens every tensor to double: this case needs " +
                                    std::to_string(static_cast<long long>(widened / (1 << 20))) +
                                    " MiB of copies, more than its 4096 MiB");
    return supported(out);
}

convcheck_error* backward_execute(convcheck_plugin*, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    const convcheck::ConvDescriptor d = convcheck::runner::from_abi(desc);
    convcheck::validate(d);
    namespace ref = convcheck::reference;
    if (d.pass == convcheck::Pass::backward_data) {
        ref::ncx_to_src(d, ref::backward_data(d, args.dst, args.weights).values, args.diff_src);
    } else {
        ref::GradientResult bias;
        ref::oix_to_weights(d, ref::backward_weights(d, args.src, args.dst, d.has_bias ? &bias : nullptr).values,
                            args.diff_weights);
        if (d.has_bias) ref::round_bias_to_output(d, bias.values, args.diff_bias);
    }
    write_implementation(&args, "reference_f64_summation");
    return nullptr;
}

// Transposed convolution (docs/transposed.md): the backward data sum of the forward convolution it
// transposes plus the bias, in double, rounded once to the dtype.
convcheck_error* transposed_query(convcheck_plugin*, const convcheck_conv_transposed_desc& desc, convcheck_support* out) {
    convcheck::validate(convcheck::runner::from_abi(desc));  // throws ConvError -> error value
    return supported(out);
}

convcheck_error* transposed_execute(convcheck_plugin*, const convcheck_conv_transposed_desc& desc,
                                    const convcheck_conv_args& args) {
    const convcheck::TransposedDescriptor t = convcheck::runner::from_abi(desc);
    const auto result = convcheck::reference::transposed_convolution(t, args.src, args.weights, args.bias);
    convcheck::reference::round_transposed_to_output(t, result.dst, args.dst);
    write_implementation(&args, "reference_f64_summation");
    return nullptr;
}

convcheck_error* cc_query(convcheck_plugin*, const convcheck_cc_desc* desc, convcheck_support* out) {
    return guarded("cc_query", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype))
            return invalid_argument("cc_desc: NULL or smaller than ABI 1.0's convcheck_cc_desc");
        convcheck::validate(convcheck::runner::from_abi(*desc));
        return supported(out);
    });
}

convcheck_error* cc_execute(convcheck_plugin*, const convcheck_cc_desc* desc, const convcheck_cc_args* args) {
    return guarded("cc_execute", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype) || args == nullptr ||
            args->src == nullptr || args->dst == nullptr)
            return invalid_argument("cc_execute: NULL descriptor or buffers");
        const convcheck::CcDescriptor d = convcheck::runner::from_abi(*desc);
        const auto result = convcheck::reference::cc::continuous_convolution(
            d, static_cast<const float*>(args->src), args->theta, static_cast<const float*>(args->bias));
        float* dst = static_cast<float*>(args->dst);
        for (std::size_t i = 0; i < result.dst.size(); ++i) dst[i] = static_cast<float>(result.dst[i]);
        return nullptr;
    });
}

// The CC backward pass (docs/cc-backward.md): the literal chain rule of reference/cc/backward.hpp in
// double, each gradient rounded once to f32.
convcheck_error* cc_backward_query(convcheck_plugin*, const convcheck_cc_desc& desc, convcheck_support* out) {
    convcheck::validate(convcheck::runner::from_abi(desc));  // throws ConvError -> error value
    return supported(out);
}

convcheck_error* cc_backward_execute(convcheck_plugin*, const convcheck_cc_desc& desc,
                                     const convcheck_cc_backward_args& args) {
    const convcheck::CcDescriptor d = convcheck::runner::from_abi(desc);
    const auto r = convcheck::reference::cc::cc_backward(d, static_cast<const float*>(args.src), args.theta,
                                                         static_cast<const float*>(args.diff_dst));
    auto store = [](const std::vector<double>& values, void* to) {
        float* f = static_cast<float*>(to);
        for (std::size_t i = 0; i < values.size(); ++i) f[i] = static_cast<float>(values[i]);
    };
    store(r.diff_src, args.diff_src);
    if (d.kernel == convcheck::CcKernel::internal_net) store(r.diff_theta, args.diff_theta);
    if (d.has_bias) store(r.diff_bias, args.diff_bias);
    write_implementation(&args, "reference_f64_chain_rule");
    return nullptr;
}

const convcheck_api api = [] {
    convcheck_api a = basic_api(create, destroy, describe);
    takes_mixed_dtypes<PrepareTag<prepare>> = true;  // the reference reads each tensor in its own dtype
    add_conv<prepare>(a, conv_query);
    add_post_ops<prepare>([](const convcheck_conv_desc&, const convcheck_post_ops&) { return std::string(); });
    // ABI 1.7: a float case's scales, every form (from_abi reads them)
    add_scales<prepare>([](const convcheck_conv_desc&, const convcheck_scales&) { return std::string(); });
    // ABI 1.5 (reference_quantized.cpp), an f32 bias, 1.7's general output and per-channel zero points, 1.9's
    // per-output-channel dst scales
    add_quantized<prepare>(kQuantizedF32Bias | kQuantizedGeneralOutput | kQuantizedChannelZeroPoints |
                           kQuantizedWeightsZeroPoints | kQuantizedS32ZeroPoints | kQuantizedDstScales);
    add_backward<prepare, backward_query, backward_execute>(a);  // the backward passes beside the forward
    add_conv_transposed<transposed_query, transposed_execute>(a);
    a.cc_query = cc_query;
    a.cc_execute = cc_execute;
    add_cc_backward<cc_backward_query, cc_backward_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
