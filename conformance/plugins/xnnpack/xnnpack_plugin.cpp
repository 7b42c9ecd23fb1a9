// convcheck plugin for XNNPACK (libxnnpack, the operator API of the 2022-02 snapshot Debian ships):
// 2-D convolution, f32 and f16, groups, dilation, explicit pads; transposed convolution through its
// deconvolution operator (ABI 1.3; xnnpack_transposed.cpp); quantized convolution through its qs8, qc8 and qu8
// operators (ABI 1.5; xnnpack_quantized.cpp).
//
// The translation (xnnpack.h, xnn_create_convolution2d_nhwc_f32 / _f16 and _nchw_f32):
//   pads        input_padding_top/right/bottom/left = pads_begin[0], pads_end[1], pads_end[0],
//               pads_begin[1]; they are unsigned: a negative pad is a crop of the input (adaptation).
//   strides     subsampling_height/width; dilations dilation_height/width, 1-based like ours.
//   groups      groups, group_input_channels = C/G, group_output_channels = O/G; the channel strides
//               of the dense tensors are C and O.
//   weights     XNNPACK reads [G][O/G][kh][kw][I/G] ("OHWI per group") in both operators: OIX or XIO
//               is reordered into it (a permutation of elements, part of calling the backend); bias [O].
//   data        NHWC is XNNPACK's general layout. NCX f32 goes to XNNPACK's NCHW operator where it
//               takes the case, else it is reordered to NHWC and the result back (adaptation).
//   rank 1      2-D with a unit axis (adaptation). Rank 3 with kernel depth 1: 2-D on the gathered
//               depth slices, depth folded into the batch (adaptation). Other 3-D and bf16: XNNPACK
//               has neither (declined).
//   output      no clamping: output_min/max = -inf/+inf, unless the case carries a post-op chain.
//   post-ops    (ABI 1.6) XNNPACK's convolution operators fuse one thing after the bias: the clamp to
//               [output_min, output_max]. A chain of one op that is that clamp runs there: clip:alpha:beta as
//               output_min = alpha, output_max = beta, relu (alpha 0) as [0, +inf]; the f16 operator rounds both
//               bounds to f16, which changes no result (the output is rounded to f16 and the rounding is
//               monotone). XNNPACK refuses a range whose lower bound is not below its upper bound; every other
//               chain is declined (xnnpack_post_ops.cpp). NaN: XNNPACK's clamp makes no NaN promise
//               (google/XNNPACK#441), and no runner mode sends NaN into a post-op chain (probe and stress decline
//               post-op cases), so the claim covers finite values; docs/post-ops.md says so.
//   mixes       claimed (mixed_dtypes) so that conv_query declines each in XNNPACK's words: its convolution
//               operators take one type for input, filter, bias and output (xnnpack_post_ops.cpp).
//   invalid     what XNNPACK's parameters can hold is passed as it is (zero sizes, strides and
//               dilations), so that XNNPACK's own checks accept or refuse it; what they cannot hold is
//               refused by the plugin (CONVCHECK_ERROR_INVALID_ARGUMENT, "cannot express"): groups 0 or
//               channels not divisible by the groups (XNNPACK takes C/G and O/G), negative values of its
//               unsigned parameters, a tensor with more bytes than size_t holds.
//   threads     a pthreadpool of create_args.num_threads threads (0: one per logical processor),
//               started at the instance's first prepare, never at load time (plugin.h, "Processes and
//               threads"); no pool is started for a case that is only queried.
// The adaptations are conformance/plugins/common/include/convcheck/adaptation/adaptation.hpp; the implementation string names
// the ones that ran. XNNPACK may read up to XNN_EXTRA_BYTES past the end of an input array
// (xnnpack.h); the runner's buffers are exactly sized, so the inputs go through padded copies.
#include <pthreadpool.h>
#include <xnnpack.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "convcheck/adaptation/negative_parameter.hpp"
#include "xnnpack_post_ops.hpp"
#include "xnnpack_quantized.hpp"
#include "xnnpack_transposed.hpp"
#include "convcheck/plugin_quantized.hpp"

#ifndef CONVCHECK_XNNPACK_VERSION
#define CONVCHECK_XNNPACK_VERSION "unknown"
#endif

namespace support = convcheck_plugin_support;

struct convcheck_plugin {
    size_t num_threads = 0;  // create_args.num_threads
    pthreadpool_t threadpool = nullptr;

    // The instance's pool, started on first use (calls on one instance come from one thread at a
    // time: plugin.h). pthreadpool_create(0) uses every logical processor; 1 runs on the calling thread.
    pthreadpool_t pool() {
        if (threadpool == nullptr) threadpool = pthreadpool_create(num_threads);
        if (threadpool == nullptr)
            throw convcheck_plugin_support::PluginError(CONVCHECK_ERROR_OUT_OF_MEMORY,
                                                        "pthreadpool_create(" + std::to_string(num_threads) + ") failed");
        return threadpool;
    }
};

namespace {

const char* status_name(xnn_status s) {
    switch (s) {
        case xnn_status_success: return "success";
        case xnn_status_uninitialized: return "uninitialized";
        case xnn_status_invalid_parameter: return "invalid_parameter";
        case xnn_status_invalid_state: return "invalid_state";
        case xnn_status_unsupported_parameter: return "unsupported_parameter";
        case xnn_status_unsupported_hardware: return "unsupported_hardware";
        case xnn_status_out_of_memory: return "out_of_memory";
    }
    return "unknown status";
}

// The ABI's error code for an XNNPACK status.
int32_t error_code_of(xnn_status s) {
    switch (s) {
        case xnn_status_out_of_memory: return CONVCHECK_ERROR_OUT_OF_MEMORY;
        case xnn_status_invalid_parameter: return CONVCHECK_ERROR_INVALID_ARGUMENT;
        case xnn_status_unsupported_parameter:
        case xnn_status_unsupported_hardware: return CONVCHECK_ERROR_UNIMPLEMENTED;
        default: return CONVCHECK_ERROR_INTERNAL;
    }
}

// What XNNPACK cannot compute, as a reason in its own words; "" when it can (after adaptation).
std::string not_computable(const convcheck_conv_desc& d) {
    if (d.dtype != CONVCHECK_F32 && d.dtype != CONVCHECK_F16)
        return std::string("XNNPACK has convolution operators for f32 and f16 only (xnnpack.h: xnn_create_convolution2d_nhwc_f32, "
                           "_f16, and quantized qc8/qs8/qu8; no bf16 or f64), not ") + support::dtype_name(d.dtype);
    if (d.rank == 3 && d.kernel_size[0] != 1)
        return "XNNPACK has no 3-D convolution (xnnpack.h: xnn_create_convolution2d_nhwc_* and _nchw_f32 only); a kernel "
               "depth of " + std::to_string(d.kernel_size[0]) + " sums across depth slices (kernel depth 1 runs as 2-D)";
    if (d.rank < 1 || d.rank > 3) return "rank " + std::to_string(d.rank) + " is not a convolution rank";
    return "";
}


// What the plugin cannot hand XNNPACK as the spec states it (runner's descriptor, before adaptation);
// "" when it can. XNNPACK's counts and geometry are size_t / uint32_t, its weights are per group
// ([G][O/G][kh][kw][I/G], group_input_channels = C/G) and its tensors are arrays in memory.
std::string inexpressible(const convcheck_conv_desc& d) {
    const std::string cannot = "the xnnpack plugin cannot express ";
    if (d.groups <= 0)
        return cannot + "groups = " + std::to_string(d.groups) + " to XNNPACK: its groups is uint32_t and it takes "
               "group_input_channels = C/G and group_output_channels = O/G, which have no value";
    if (d.in_channels % d.groups != 0 || d.out_channels % d.groups != 0)
        return cannot + "C = " + std::to_string(d.in_channels) + ", O = " + std::to_string(d.out_channels) + " with groups = " +
               std::to_string(d.groups) + " to XNNPACK: it takes group_input_channels = C/G and group_output_channels = "
               "O/G with channel strides C and O, so a truncated C/G would be a smaller, valid problem";
    if (const auto negative = support::first_negative(d))
        return cannot + negative->name + " = " + std::to_string(negative->value) +
               (negative->per_axis ? " to XNNPACK: its sizes, kernel, subsampling and dilation parameters are unsigned"
                                   : " to XNNPACK: it is a size_t there");
    if (d.rank == 3 && d.kernel_size[0] == 1 && d.strides[0] == 0)
        return cannot + "a depth stride of 0 to XNNPACK: its depth->batch adaptation needs the output depth, which the "
               "spec's output size defines for strides >= 1 only";
    // The arrays the plugin hands XNNPACK: element counts times element bytes, in size_t.
    size_t src = support::element_bytes(d.dtype), weights = src;
    bool fits = support::multiply_into(&src, {d.batch, d.in_channels}) &&
                support::multiply_into(&weights, {d.out_channels, d.in_channels / d.groups});
    for (int a = 0; a < d.rank && fits; ++a)
        fits = support::multiply_into(&src, {d.input_size[a]}) && support::multiply_into(&weights, {d.kernel_size[a]});
    if (!fits)
        return cannot + "this case to XNNPACK: its src or weights has more bytes than size_t holds, so no array of it "
               "can be handed to XNNPACK";
    return "";
}

// The parameters of the adapted case that do not fit XNNPACK's uint32_t arguments; "" when all fit.
std::string too_large(const convcheck_conv_desc& l) {
    for (int a = 0; a < 2; ++a)
        for (int64_t v : {l.kernel_size[a], l.strides[a], l.dilations[a], l.pads_begin[a], l.pads_end[a]})
            if (v > UINT32_MAX)
                return "the xnnpack plugin cannot express " + std::to_string(v) +
                       " to XNNPACK (declined): its kernel, stride, dilation and pad parameters are uint32_t";
    if (l.groups > UINT32_MAX)
        return "the xnnpack plugin cannot express groups = " + std::to_string(l.groups) + " to XNNPACK (declined): it is uint32_t there";
    return "";
}

// XNNPACK's weights order for both operators, [G][O/G][kh][kw][I/G]: of the logical {O, I/G, kh, kw},
// O outermost (G and O/G are contiguous in O), then kh, kw, then I/G.
const std::vector<int> kXnnpackWeightsOrder{0, 2, 3, 1};

struct Plan {
    support::Adaptation adaptation;
    convcheck_conv_desc library;  // the case XNNPACK computes: 2-D, non-negative pads, NHWC (or NCHW)
    bool nchw = false;            // xnn_create_convolution2d_nchw_f32 takes it natively
    convcheck_xnnpack::OutputRange range;  // output_min / output_max: the clamp of a post-op chain, else +-inf
};

// Creates the operator for the adapted case (XNNPACK packs the weights here); returns the status.
xnn_status create_operator(const Plan& plan, const void* weights, const void* bias, xnn_operator_t* op) {
    const convcheck_conv_desc& l = plan.library;
    const uint32_t top = l.pads_begin[0], left = l.pads_begin[1], bottom = l.pads_end[0], right = l.pads_end[1];
    const size_t group_in = l.in_channels / l.groups, group_out = l.out_channels / l.groups;
    if (plan.nchw)
        return xnn_create_convolution2d_nchw_f32(
            top, right, bottom, left, l.kernel_size[0], l.kernel_size[1], l.strides[0], l.strides[1], l.dilations[0],
            l.dilations[1], l.groups, group_in, group_out, l.in_channels, l.out_channels, static_cast<const float*>(weights),
            static_cast<const float*>(bias), plan.range.min, plan.range.max, 0, op);
    if (l.dtype == CONVCHECK_F32)
        return xnn_create_convolution2d_nhwc_f32(
            top, right, bottom, left, l.kernel_size[0], l.kernel_size[1], l.strides[0], l.strides[1], l.dilations[0],
            l.dilations[1], l.groups, group_in, group_out, l.in_channels, l.out_channels, static_cast<const float*>(weights),
            static_cast<const float*>(bias), plan.range.min, plan.range.max, 0, op);
    return xnn_create_convolution2d_nhwc_f16(top, right, bottom, left, l.kernel_size[0], l.kernel_size[1], l.strides[0],
                                             l.strides[1], l.dilations[0], l.dilations[1], l.groups, group_in, group_out,
                                             l.in_channels, l.out_channels, weights, bias, plan.range.min, plan.range.max, 0, op);
}

// Asks XNNPACK whether it creates the operator, with zero weights and bias (f32 and f16 zero are
// all-zero bytes).
xnn_status try_create(const Plan& plan) {
    const convcheck_conv_desc& l = plan.library;
    const size_t bytes = support::element_bytes(l.dtype);
    const size_t weights = l.out_channels * (l.in_channels / l.groups) * l.kernel_size[0] * l.kernel_size[1] * bytes;
    std::vector<unsigned char> zeros(weights + l.out_channels * bytes + XNN_EXTRA_BYTES, 0);
    xnn_operator_t op = nullptr;
    const xnn_status s = create_operator(plan, zeros.data(), l.has_bias ? zeros.data() : nullptr, &op);
    if (op != nullptr) xnn_delete_operator(op);
    return s;
}

Plan adapted(const convcheck_conv_desc& d, const support::LibraryForm& form, bool nchw) {
    Plan plan;
    plan.range = convcheck_xnnpack::output_range(d);
    plan.adaptation = support::plan_adaptation(d, form);
    plan.library = support::library_desc(d, plan.adaptation);
    plan.nchw = nchw;
    return plan;
}

// XNNPACK's pads are unsigned, so negative ones become crops; rank 1 is 2-D with a unit axis; rank
// 3 with kernel depth 1 is 2-D on the gathered depth slices, folded into the batch (NHWC). NCX
// f32 data goes to XNNPACK's own NCHW operator where it creates one (it has kernels for 1x1 and for
// 3x3 / 5x5 depthwise with set pads; otherwise "only selected convolution parameters are
// supported"), else it is reordered to NHWC.
Plan plan_for(const convcheck_conv_desc& d) {
    support::LibraryForm form{CONVCHECK_NXC, d.filter_format, true, true, support::PadsRule::nonnegative};
    if (d.dtype == CONVCHECK_F32 && d.data_format == CONVCHECK_NCX && d.rank < 3) {
        form.data_format = CONVCHECK_NCX;
        const Plan nchw = adapted(d, form, true);
        if (too_large(nchw.library).empty() && try_create(nchw) == xnn_status_success) return nchw;
        form.data_format = CONVCHECK_NXC;
    }
    return adapted(d, form, false);
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("xnnpack create", [&]() -> convcheck_error* {
        int num_threads = 0;
        if (auto* e = support::read_create_args(args, &num_threads)) return e;
        const xnn_status s = xnn_initialize(nullptr);
        if (s != xnn_status_success)
            return support::make_error(std::string("xnn_initialize: ") + status_name(s), error_code_of(s));
        auto plugin = new convcheck_plugin();
        plugin->num_threads = static_cast<size_t>(num_threads);  // the pool starts at the first prepare
        *out = plugin;
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) {
    if (plugin == nullptr) return;
    if (plugin->threadpool != nullptr) pthreadpool_destroy(plugin->threadpool);
    delete plugin;
    xnn_deinitialize();
}

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "xnnpack";
    mine.version = CONVCHECK_XNNPACK_VERSION;
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CONV_TRANSPOSED;
    // Everything is claimed: conv_query says per case what XNNPACK cannot compute, in its words.
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16) |
                  CONVCHECK_BIT(CONVCHECK_F64) |  // bf16 and f64: claimed so that query declines them in XNNPACK's words
                  CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32);
    // quantized (xnnpack_quantized.cpp): the x86 kernels' "fp32" requantization rounds, then adds the zero point
    mine.requantization = CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32;
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    // OXI (ABI 1.2) is XNNPACK's own weights order, [O][kh][kw][I/G]: its copy is in order
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO) | CONVCHECK_BIT(CONVCHECK_OXI);
    mine.accumulation_dtype = CONVCHECK_F32;  // f32; f16 cases declare their own in conformance/data
    // mixed per-tensor dtypes: claimed so that conv_query declines each in XNNPACK's words (it runs none)
    mine.mixed_dtypes = 1;
    // ABI 1.6: fused post-ops, the operators' output clamp alone: relu (alpha 0) and clip, as a chain of one op
    mine.post_op_kinds = CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE);
    mine.eltwise_algorithms = CONVCHECK_BIT(CONVCHECK_ELTWISE_RELU) | CONVCHECK_BIT(CONVCHECK_ELTWISE_CLIP);
    return support::fill_info(info, mine);
}

std::string refusal(xnn_status s) {
    std::string why = std::string("XNNPACK refused the operator: xnn_status_") + status_name(s);
    if (s == xnn_status_unsupported_hardware) why += " (no kernels for this dtype on this CPU)";
    return why;
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    return support::guarded("xnnpack conv_query", [&]() -> convcheck_error* {
        if (support::quantization_of(*desc) != nullptr) return convcheck_xnnpack::quantized_query(*desc, out);
        if (const std::string why = support::dense_only(*desc, "XNNPACK"); !why.empty()) return support::unsupported(out, why);
        if (const std::string why = inexpressible(*desc); !why.empty()) return support::invalid_argument(why);
        if (const std::string why = convcheck_xnnpack::mixed_dtypes_missing(*desc); !why.empty())
            return support::unsupported(out, why);
        if (const std::string why = not_computable(*desc); !why.empty()) return support::unsupported(out, why);
        Plan plan = plan_for(*desc);
        if (const std::string why = too_large(plan.library); !why.empty()) return support::unsupported(out, why);
        const xnn_status s = try_create(plan);  // ask XNNPACK itself
        if (s == xnn_status_success) return support::supported(out);
        if (s == xnn_status_invalid_parameter && plan.range.clamps()) {  // the clamp, or something else?
            const convcheck_xnnpack::OutputRange range = plan.range;
            plan.range = {};
            if (try_create(plan) == xnn_status_success) return support::unsupported(out, convcheck_xnnpack::range_refused(*desc, range));
        }
        return support::unsupported(out, refusal(s));
    });
}

using Operator = std::unique_ptr<xnn_operator, decltype(&xnn_delete_operator)>;

// The prepared case: the adaptation, and the operator (XNNPACK packs the weights when it creates
// one): created at prepare when the weights come with it, else at every execute.
struct Prepared : convcheck_conv_plan {
    Prepared(convcheck_plugin& plugin, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc) {
        if (const std::string why = inexpressible(desc); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, why);
        std::string why = convcheck_xnnpack::mixed_dtypes_missing(desc);
        if (why.empty()) why = not_computable(desc);
        if (why.empty()) {
            plan = plan_for(desc);
            why = too_large(plan.library);
        }
        if (!why.empty()) throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "prepare of an unsupported case: " + why);
        threadpool = plugin.pool();
        if (inputs.weights != nullptr) op = make_operator(inputs.weights, inputs.bias);
    }

    Operator make_operator(const void* runner_weights, const void* runner_bias) const {
        const convcheck_conv_desc& l = plan.library;
        const size_t bytes = support::element_bytes(l.dtype);
        std::vector<unsigned char> weights(l.out_channels * (l.in_channels / l.groups) * l.kernel_size[0] *
                                               l.kernel_size[1] * bytes + XNN_EXTRA_BYTES, 0);
        support::weights_in_order(desc, plan.adaptation, runner_weights, kXnnpackWeightsOrder, weights.data());
        std::vector<unsigned char> bias;  // with XNN_EXTRA_BYTES after it, like every input XNNPACK reads
        if (l.has_bias) {
            bias.assign(l.out_channels * bytes + XNN_EXTRA_BYTES, 0);
            std::memcpy(bias.data(), runner_bias, l.out_channels * bytes);
        }
        xnn_operator_t made = nullptr;
        const xnn_status s = create_operator(plan, weights.data(), l.has_bias ? bias.data() : nullptr, &made);
        Operator owned(made, xnn_delete_operator);
        if (s != xnn_status_success) throw support::PluginError(error_code_of(s), "xnn_create_convolution2d: " + refusal(s));
        return owned;
    }

    convcheck_error* execute(const convcheck_conv_args& args) override {
        Operator fresh(nullptr, xnn_delete_operator);
        if (!op) fresh = make_operator(args.weights, args.bias);
        xnn_operator_t o = op ? op.get() : fresh.get();
        const convcheck_conv_desc& l = plan.library;
        support::LibraryBuffers buffers(desc, plan.adaptation, args, XNN_EXTRA_BYTES);
        const auto* src = buffers.src();
        void* dst = buffers.dst();
        xnn_status s;
        if (plan.nchw)
            s = xnn_setup_convolution2d_nchw_f32(o, l.batch, l.input_size[0], l.input_size[1], static_cast<const float*>(src),
                                                 static_cast<float*>(dst), threadpool);
        else if (l.dtype == CONVCHECK_F32)
            s = xnn_setup_convolution2d_nhwc_f32(o, l.batch, l.input_size[0], l.input_size[1], static_cast<const float*>(src),
                                                 static_cast<float*>(dst), threadpool);
        else
            s = xnn_setup_convolution2d_nhwc_f16(o, l.batch, l.input_size[0], l.input_size[1], src, dst, threadpool);
        if (s == xnn_status_success) s = xnn_run_operator(o, threadpool);
        if (s != xnn_status_success)
            return support::make_error(std::string("xnn_setup/run_operator: ") + status_name(s), error_code_of(s));
        buffers.return_dst();
        support::write_implementation(&args, std::string("xnnpack:convolution2d_") + (plan.nchw ? "nchw_" : "nhwc_") +
                                                 support::dtype_name(l.dtype) + plan.range.note() +
                                                 support::adaptation_note(desc, plan.adaptation));
        return nullptr;
    }

    pthreadpool_t threadpool = nullptr;  // the instance's, which outlives its plans
    Plan plan;
    Operator op{nullptr, xnn_delete_operator};
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const support::PrepareInputs& inputs) {
    if (support::quantization_of(desc) != nullptr) return convcheck_xnnpack::quantized_plan(plugin->pool(), desc, inputs);
    return std::make_unique<Prepared>(*plugin, desc, inputs);
}

// Transposed convolution on the instance's pool (started here, at the first execute).
convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args) {
    return convcheck_xnnpack::transposed_execute_on(plugin->pool(), t, args);
}

const convcheck_api api = [] {
    support::takes_mixed_dtypes<support::PrepareTag<prepare>> = true;  // declined in XNNPACK's words at query
    convcheck_api a = support::basic_api(create, destroy, describe);
    support::add_conv<prepare>(a, conv_query);
    // per-output-channel weights zero points (ABI 1.8) reach the query, which declines them in the library's words
    support::add_quantized<prepare>(support::kQuantizedWeightsZeroPoints);
    support::add_post_ops<prepare>(convcheck_xnnpack::post_ops_accepts);
    support::add_conv_transposed<convcheck_xnnpack::transposed_query, transposed_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
