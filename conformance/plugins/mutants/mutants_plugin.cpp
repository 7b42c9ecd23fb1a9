// The mutants plugin's ABI glue (see mutants.hpp): create reads `mutant=<name>` (a name of
// mutants.def) and `prop_kinds=backward` (describe then claims the two backward passes of discrete
// convolution and not the forward one: a backend of gradients and transposed convolution, which must
// still get every transposed case; docs/transposed.md), execute runs mutants_conv.cpp, mutants_backward.cpp, mutants_transposed.cpp or mutants_cc.cpp with that mutant.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/plugin_cc_backward.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/plugin_scales.hpp"
#include "convcheck/plugin_backward.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "mutants_impl.hpp"

namespace {

using namespace convcheck_plugin_support;
using convcheck::mutants::kMutants;
using convcheck::mutants::Mutant;

// The passes describe claims (prop_kinds=all, the default, or prop_kinds=backward).
constexpr uint32_t kAllPasses = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                                CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
constexpr uint32_t kBackwardPasses = CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) | CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);

struct Instance {
    Mutant mutant = Mutant::none;
    uint32_t prop_kinds = kAllPasses;
    int threads = 0;  // create's num_threads (0: the default)
    const convcheck_thread_pool* pool = nullptr;  // the runner's (ABI 1.2), or NULL
};

Mutant mutant_of(convcheck_plugin* plugin) { return reinterpret_cast<Instance*>(plugin)->mutant; }
std::string implementation_name(Mutant m) { return "mutant_" + std::string(kMutants[static_cast<int>(m)].name); }

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("create", [&]() -> convcheck_error* {
        auto* instance = new Instance{};
        instance->threads = args->num_threads;
        instance->pool = read_thread_pool(args);
        const std::string options =
            CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
        // comma-separated items (--backend-option, repeatable): mutant=<name>, prop_kinds=all|backward
        for (std::size_t begin = 0; begin < options.size();) {
            const std::size_t end = std::min(options.find(',', begin), options.size());
            const std::string item = options.substr(begin, end - begin);
            begin = end + 1;
            bool known = false;
            for (std::size_t i = 0; i < std::size(kMutants); ++i)
                if (item == "mutant=" + std::string(kMutants[i].name)) {
                    instance->mutant = static_cast<Mutant>(i);
                    known = true;
                }
            if (item == "prop_kinds=all" || item == "prop_kinds=backward") {
                instance->prop_kinds = item == "prop_kinds=all" ? kAllPasses : kBackwardPasses;
                known = true;
            }
            if (!known) {
                delete instance;
                return invalid_argument("mutants: unknown option '" + item +
                                        "' (want mutant=<name> of mutants.def, or prop_kinds=all or prop_kinds=backward)");
            }
        }
        *out = reinterpret_cast<convcheck_plugin*>(instance);
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin* plugin, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "mutants";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CC | CONVCHECK_OP_CONV_TRANSPOSED | CONVCHECK_OP_CC_BACKWARD;
    // f64: the forward pass, summed in double (mutants_conv.cpp); the backward and transposed loops decline it
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16) |
                  CONVCHECK_BIT(CONVCHECK_F64) | CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32) |
                  CONVCHECK_BIT(CONVCHECK_F8_E4M3) | CONVCHECK_BIT(CONVCHECK_F8_E5M2);  // 1.7: fp8, read exactly
    // quantized convolution (ABI 1.5; mutants_quantized.cpp): gemmlowp's double rounding, an s32 accumulator
    mine.requantization = CONVCHECK_REQUANTIZATION_DOUBLE_ROUNDING;
    if (mutant_of(plugin) == Mutant::q_zero_point_after_rounding)  // declares the zero point added before rounding
        mine.requantization = CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT;
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    // post-ops (ABI 1.6/1.7): relu, clip, linear and sum on a quantized case (mutants_quantized.cpp), and those and
    // the binary ops on a float case (mutants_post_ops.cpp); conv_query declines the binary ops on a quantized case
    mine.post_op_kinds = CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE) | CONVCHECK_BIT(CONVCHECK_POST_OP_SUM) |
                         CONVCHECK_BIT(CONVCHECK_POST_OP_BINARY);
    mine.eltwise_algorithms =
        CONVCHECK_BIT(CONVCHECK_ELTWISE_RELU) | CONVCHECK_BIT(CONVCHECK_ELTWISE_CLIP) | CONVCHECK_BIT(CONVCHECK_ELTWISE_LINEAR);
    mine.binary_algorithms = (1u << (CONVCHECK_BINARY_DIV + 1)) - 1;  // add, mul, max, min, sub, div
    if (mutant_of(plugin) == Mutant::honest_s16_pairs || mutant_of(plugin) == Mutant::q_s16_pairs_declared_exact)
        mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S16_PAIRS;  // declared (quantization.h), and judged by it
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO) | CONVCHECK_BIT(CONVCHECK_OXI);
    mine.accumulation_dtype = CONVCHECK_F32;
    mine.strided_tensors =
        CONVCHECK_BIT(CONVCHECK_TENSOR_SRC) | CONVCHECK_BIT(CONVCHECK_TENSOR_WEIGHTS) | CONVCHECK_BIT(CONVCHECK_TENSOR_DST);
    mine.prop_kinds = reinterpret_cast<Instance*>(plugin)->prop_kinds;
    mine.mixed_dtypes = 1;  // the forward pass reads each tensor in its own dtype (mutants_problem.hpp)
    return fill_info(info, mine);
}

// The rule of the spec the descriptor breaks (validate()'s words), or "" when it is valid. Every
// mutant but invalid_accepted refuses such a descriptor, as a backend must (the invalid suite).
std::string broken_rule(const convcheck_conv_desc& desc, Mutant m) {
    if (m == Mutant::invalid_accepted) return "";
    convcheck_conv_desc geometry = desc;  // a quantized case's geometry: its integer dtypes are not the rules'
    if (quantization_of(desc) != nullptr)
        geometry.dtype = geometry.src_dtype = geometry.weights_dtype = geometry.bias_dtype = geometry.dst_dtype = CONVCHECK_F32,
        geometry.next = nullptr;
    try {
        convcheck::validate(convcheck::runner::from_abi(geometry));
    } catch (const convcheck::ConvError& e) {
        return e.what();
    }
    return "";
}

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (const convcheck_quantization* q = quantization_of(*desc)) {  // add_conv's gate checked its form
            const std::string why = convcheck::mutants::quantized_general_unsupported(*desc, *q);
            return why.empty() ? supported(out) : unsupported(out, why);
        }
        if ((desc->dtype < 0 || desc->dtype > 3) && desc->dtype != CONVCHECK_DTYPE_MIXED &&
            desc->dtype != CONVCHECK_F8_E4M3 && desc->dtype != CONVCHECK_F8_E5M2)
            return unsupported(out, std::string("dtype ") + dtype_name(desc->dtype));
        if (const std::string why = broken_rule(*desc, mutant_of(plugin)); !why.empty())
            return unsupported(out, "invalid descriptor: " + why);
        return supported(out);
    });
}

// The mutants prepare nothing: the plan remembers the mutant and the thread count and computes at each
// execute. An invalid descriptor is refused at prepare (so by the one-shot conv_execute too), unless the
// mutant is invalid_accepted.
// workspace_overrun and honest_workspace_pool report a dst-sized workspace and compute in the
// runner's (their own when there is none: the one-shot call), then copy it to dst.
struct Plan : convcheck_conv_plan {
    Plan(const convcheck_conv_desc& desc, Mutant mutant, const Instance& instance)
        : convcheck_conv_plan(desc), mutant(mutant), threads(instance.threads), pool(instance.pool),
          post_ops(post_ops_of(after_scales(desc))), scales(scales_of(desc)) {
        if (const convcheck_quantization* q = quantization_of(desc)) quantization = std::make_unique<QuantizationCopy>(*q);
    }
    bool in_workspace() const { return mutant == Mutant::workspace_overrun || mutant == Mutant::honest_workspace_pool; }
    // dst's whole span, gaps included (a strided dst's gaps go through the workspace unchanged)
    uint64_t dst_bytes() const {
        return static_cast<uint64_t>(convcheck::mutants::dst_span(desc)) * dtype_bytes(tensor_dtypes(desc).dst);
    }
    uint64_t workspace_bytes() const override { return in_workspace() ? dst_bytes() : 0; }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        for (int64_t k = 0; post_ops.get() != nullptr && k < post_ops.get()->count; ++k)
            if (post_ops.get()->ops[k].kind == CONVCHECK_POST_OP_BINARY && post_op_operand(args, k) == nullptr)
                return invalid_argument("post_op_operands: op " + std::to_string(k) + " (binary) has no operand");
        if (quantization) {
            convcheck::mutants::compute_quantized(desc, quantization->q, args, mutant);
        } else if (!in_workspace()) {
            convcheck::mutants::compute_conv(desc, args, mutant, threads, post_ops.get(), scales.get());
        } else {
            const uint64_t bytes = dst_bytes();
            std::vector<unsigned char> own;
            void* workspace = given_workspace(args, bytes);
            if (workspace == nullptr) own.resize(bytes + 64), workspace = own.data();  // + 64: the overrun stays in it
            std::memcpy(workspace, args.dst, bytes);  // a strided dst's gaps go back as they came
            convcheck_conv_args into = args;
            into.dst = workspace;
            const convcheck_conv_desc image = one_image(desc);
            const convcheck_thread_pool* tasks = mutant == Mutant::honest_workspace_pool ? pool : nullptr;
            parallel_for(tasks, static_cast<std::size_t>(desc.batch), [&](std::size_t n) {
                convcheck_conv_args one = image_args(desc, into, static_cast<int64_t>(n));
                const std::vector<const void*> operands = image_operands(args, static_cast<int64_t>(n));
                if (!operands.empty()) one.post_op_operands = operands.data();
                convcheck::mutants::compute_conv(image, one, Mutant::none, 1, post_ops.get(), scales.get());
            });
            std::memcpy(args.dst, workspace, bytes);
            if (mutant == Mutant::workspace_overrun) static_cast<volatile unsigned char*>(workspace)[bytes] = 0xEE;
        }
        write_implementation(&args, implementation_name(mutant));
        return nullptr;
    }
    // Image n's post-op operands: a full operand's values from image n's first on (dense in dst's data format),
    // the others as given; empty without a chain.
    std::vector<const void*> image_operands(const convcheck_conv_args& args, int64_t n) const {
        std::vector<const void*> operands;
        for (int64_t k = 0; post_ops.get() != nullptr && k < post_ops.get()->count; ++k) {
            const convcheck_post_op& op = post_ops.get()->ops[k];
            const auto* given = static_cast<const unsigned char*>(post_op_operand(args, k));
            const bool full = op.kind == CONVCHECK_POST_OP_BINARY && op.operand_broadcast == CONVCHECK_OPERAND_FULL;
            const int32_t t = operand_dtype_of(op);
            const uint64_t bytes = t == CONVCHECK_U8 || t == CONVCHECK_S8 ? 1 : t == CONVCHECK_S32 ? 4 : dtype_bytes(t);
            const auto image = static_cast<uint64_t>(dst_elements(one_image(desc)));
            operands.push_back(full ? given + static_cast<uint64_t>(n) * image * bytes : given);
        }
        return operands;
    }
    const Mutant mutant;
    const int threads;
    const convcheck_thread_pool* const pool;
    std::unique_ptr<QuantizationCopy> quantization;  // a quantized case's (ABI 1.5)
    const PostOpsCopy post_ops;                      // a float case's (ABI 1.6), or none
    const ScalesCopy scales;                         // a float case's (ABI 1.7), or none
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const PrepareInputs&) {
    if (const std::string why = broken_rule(desc, mutant_of(plugin)); !why.empty())
        throw std::invalid_argument("invalid descriptor: " + why);
    return std::make_unique<Plan>(desc, mutant_of(plugin), *reinterpret_cast<Instance*>(plugin));
}

// The backward passes (mutants_backward.cpp), beside the forward through add_backward (which declines a
// descriptor of more than one dtype or with an extension, and checks the buffers): dense tensors in NCX/NXC and
// OIX/XIO only; anything else is declined at query with the reason and refused at execute.
std::string backward_unsupported(const convcheck_conv_desc& desc, Mutant m) {
    if (desc.dtype < 0 || desc.dtype > 2) return std::string("dtype ") + dtype_name(desc.dtype);
    if (const std::string why = broken_rule(desc, m); !why.empty()) return "invalid descriptor: " + why;
    const convcheck::ConvDescriptor d = convcheck::runner::from_abi(desc);
    if (convcheck::has_strides(d) || d.filter_format == convcheck::FilterFormat::oxi)
        return "the mutants' backward passes take dense tensors in NCX/NXC and OIX/XIO only";
    return "";
}

convcheck_error* backward_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (const std::string why = backward_unsupported(*desc, mutant_of(plugin)); !why.empty()) return unsupported(out, why);
    return supported(out);
}

convcheck_error* backward_execute(convcheck_plugin* plugin, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    if (const std::string why = backward_unsupported(desc, mutant_of(plugin)); !why.empty())
        return make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    convcheck::mutants::compute_backward(desc, args, mutant_of(plugin));
    write_implementation(&args, implementation_name(mutant_of(plugin)));
    return nullptr;
}

// Transposed convolution (mutants_transposed.cpp): a valid descriptor, else declined (every mutant).
convcheck_error* transposed_query(convcheck_plugin*, const convcheck_conv_transposed_desc& desc, convcheck_support* out) {
    try {
        convcheck::validate(convcheck::runner::from_abi(desc));
    } catch (const convcheck::ConvError& e) {
        return unsupported(out, std::string("invalid descriptor: ") + e.what());
    }
    if (desc.dtype == CONVCHECK_F64) return unsupported(out, "dtype f64: the mutants' transposed loop sums in float");
    return supported(out);
}

convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& desc,
                                    const convcheck_conv_args& args) {
    convcheck::validate(convcheck::runner::from_abi(desc));  // throws ConvError -> an invalid-argument error
    convcheck::mutants::compute_transposed(desc, args, mutant_of(plugin));
    write_implementation(&args, implementation_name(mutant_of(plugin)));
    return nullptr;
}

convcheck_error* cc_query(convcheck_plugin*, const convcheck_cc_desc* desc, convcheck_support* out) {
    return guarded("cc_query", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype))
            return invalid_argument("cc_desc: NULL or smaller than ABI 1.0's convcheck_cc_desc");
        if (desc->dtype != CONVCHECK_F32) return unsupported(out, std::string("CC dtype ") + dtype_name(desc->dtype));
        return supported(out);
    });
}

convcheck_error* cc_execute(convcheck_plugin* plugin, const convcheck_cc_desc* desc, const convcheck_cc_args* args) {
    return guarded("cc_execute", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype) || args == nullptr ||
            args->src == nullptr || args->dst == nullptr)
            return invalid_argument("cc_execute: NULL descriptor or buffers");
        convcheck::mutants::compute_cc(*desc, *args, mutant_of(plugin));
        write_implementation(args, implementation_name(mutant_of(plugin)));
        return nullptr;
    });
}

// The CC backward pass (mutants_cc_backward.cpp, ABI 1.4); add_cc_backward checks the call first.
convcheck_error* cc_backward_query(convcheck_plugin*, const convcheck_cc_desc& desc, convcheck_support* out) {
    if (desc.dtype != CONVCHECK_F32) return unsupported(out, std::string("CC dtype ") + dtype_name(desc.dtype));
    return supported(out);
}

convcheck_error* cc_backward_execute(convcheck_plugin* plugin, const convcheck_cc_desc& desc,
                                     const convcheck_cc_backward_args& args) {
    convcheck::mutants::compute_cc_backward(desc, args, mutant_of(plugin));
    write_implementation(&args, implementation_name(mutant_of(plugin)));
    return nullptr;
}

const convcheck_api api = [] {
    convcheck_api a = basic_api(create, destroy, describe);
    takes_mixed_dtypes<PrepareTag<prepare>> = true;
    add_conv<prepare>(a, conv_query);
    // ABI 1.7's general output and per-channel src and dst zero points too; conv_query declines what it lacks
    add_quantized<prepare>(kQuantizedGeneralOutput | kQuantizedChannelZeroPoints | kQuantizedWeightsZeroPoints |
                           kQuantizedS32ZeroPoints);
    add_post_ops<prepare>(convcheck::mutants::float_post_ops_unsupported);  // a float case's chain (ABI 1.6/1.7)
    // a float case's scales (ABI 1.7; mutants_conv.cpp's store): every form
    add_scales<prepare>([](const convcheck_conv_desc&, const convcheck_scales&) { return std::string(); });
    add_backward<prepare, backward_query, backward_execute>(a);
    add_conv_transposed<transposed_query, transposed_execute>(a);
    a.cc_query = cc_query;
    a.cc_execute = cc_execute;
    add_cc_backward<cc_backward_query, cc_backward_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
