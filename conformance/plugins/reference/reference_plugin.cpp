// The reference as a plugin: the runner reaches every implementation through the ABI, its own too.
// Computes in double (reference reading 1) and rounds once to the output type, so it declares f64
// accumulation. Discrete convolution (reading 1), its backward passes (reference/backward.hpp) and
// CC (the four blocks, seed 004).
#include <memory>
#include <string>

#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/convolution.hpp"
#include "abi_descriptor.hpp"
#include "convcheck/plugin_support.hpp"

namespace {

using namespace convcheck_plugin_support;

struct Instance {
    const convcheck_thread_pool* pool = nullptr;  // the runner's (ABI 1.2), or NULL: one thread
};

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("create", [&]() -> convcheck_error* {
        if (CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options && *args->options)
            return invalid_argument(std::string("the reference plugin takes no options, got '") + args->options + "'");
        *out = reinterpret_cast<convcheck_plugin*>(new Instance{read_thread_pool(args)});
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "reference";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CC;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO) | CONVCHECK_BIT(CONVCHECK_OXI);
    mine.accumulation_dtype = CONVCHECK_F64;
    // the reference's reorders read and write every element where the strides put it (memory_layout.hpp)
    mine.strided_tensors =
        CONVCHECK_BIT(CONVCHECK_TENSOR_SRC) | CONVCHECK_BIT(CONVCHECK_TENSOR_WEIGHTS) | CONVCHECK_BIT(CONVCHECK_TENSOR_DST);
    mine.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                      CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
    return fill_info(info, mine);
}

// The plugin widens src and weights to double and keeps value, magnitude and term count per output
// (reference::convolution): a case whose copies pass this is declined at query, with the reason, rather
// than allocated (the large suite's tensors would need tens of GiB).
constexpr double kMaxWidenedBytes = 4.0 * (1 << 30);

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
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
        parallel_for(pool, static_cast<std::size_t>(d.batch), [&](std::size_t n) {
            const convcheck_conv_args one = image_args(desc, args, static_cast<int64_t>(n));
            const auto result = convcheck::reference::convolution(image, one.src, one.weights, one.bias);
            convcheck::reference::round_dst_to_output(image, result.dst, one.dst);
        });
        write_implementation(&args, "reference_f64_summation");
        return nullptr;
    }
    const convcheck::ConvDescriptor d, image;
    const convcheck_thread_pool* const pool;
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const PrepareInputs&) {
    return std::make_unique<Plan>(desc, reinterpret_cast<Instance*>(plugin)->pool);
}

// The backward passes (docs/passes.md): the spec-literal sums of reference/backward.hpp in double,
// each gradient rounded once to the dtype. One dtype for every tensor, no extension.
bool is_backward(const convcheck_conv_desc* desc) {
    return CONVCHECK_HAS_FIELD(desc, convcheck_conv_desc, filter_format) && prop_kind(*desc) != CONVCHECK_FORWARD;
}

convcheck::ConvDescriptor backward_descriptor(const convcheck_conv_desc& desc) {
    const TensorDtypes t = tensor_dtypes(desc);
    if (t.src != desc.dtype || t.weights != desc.dtype || t.bias != desc.dtype || t.dst != desc.dtype || extensions(desc))
        throw PluginError(CONVCHECK_ERROR_UNIMPLEMENTED,
                          "the reference's backward passes take one dtype for every tensor and no extension");
    convcheck::ConvDescriptor d = convcheck::runner::from_abi(desc);
    convcheck::validate(d);
    return d;
}

convcheck_error* conv_query_any(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (!is_backward(desc)) return gated_query<prepare>(plugin, desc, out);
    return guarded("conv_query", [&]() -> convcheck_error* {
        backward_descriptor(*desc);
        return supported(out);
    });
}

convcheck_error* conv_execute_any(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (!is_backward(desc)) return conv_execute_once<prepare>(plugin, desc, args);
    return guarded("conv_execute", [&]() -> convcheck_error* {
        const convcheck::ConvDescriptor d = backward_descriptor(*desc);
        if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, diff_bias) || args->dst == nullptr)
            return invalid_argument("conv_args: a backward pass needs ABI 1.2's diff buffers and diff_dst in dst");
        namespace ref = convcheck::reference;
        if (d.pass == convcheck::Pass::backward_data) {
            if (args->weights == nullptr || args->diff_src == nullptr)
                return invalid_argument("conv_args: backward data needs weights and diff_src");
            ref::ncx_to_src(d, ref::backward_data(d, args->dst, args->weights).values, args->diff_src);
        } else {
            if (args->src == nullptr || args->diff_weights == nullptr || (d.has_bias && args->diff_bias == nullptr))
                return invalid_argument("conv_args: backward weights needs src and diff_weights, and diff_bias with bias");
            ref::GradientResult bias;
            ref::oix_to_weights(d, ref::backward_weights(d, args->src, args->dst, d.has_bias ? &bias : nullptr).values,
                                args->diff_weights);
            if (d.has_bias) ref::round_bias_to_output(d, bias.values, args->diff_bias);
        }
        write_implementation(args, "reference_f64_summation");
        return nullptr;
    });
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

const convcheck_api api = [] {
    convcheck_api a = basic_api(create, destroy, describe);
    add_conv<prepare>(a, conv_query);
    a.conv_query = conv_query_any;  // the forward pass as add_conv made it, the backward passes beside it
    a.conv_execute = conv_execute_any;
    a.cc_query = cc_query;
    a.cc_execute = cc_execute;
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
