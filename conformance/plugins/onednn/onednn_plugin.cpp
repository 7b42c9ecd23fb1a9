// convcheck plugin for oneDNN (libdnnl, the primitive API): convolution, ranks 1-3, forward,
// backward data and backward weights (+ bias) (ABI 1.2 prop_kind; docs/passes.md), f32 and bf16
// (and f16) where this CPU has an implementation, and per-tensor mixes of them in the forward pass
// (bf16 src and weights with an f32 dst, an f32 bias on bf16 data): the query asks oneDNN.
//
// The translation, field by field (oneDNN developer guide, "Convolution"):
//   dilations   oneDNN's are 0-based (0 = dense; dilated extent 1 + (k-1)*(d+1)): we pass d - 1.
//   pads        padding_l = pads_begin, padding_r = pads_end. oneDNN requires padding_l >= 0 and
//               padding_r + stride > 0 (conv_desc_init, src/common/convolution.cpp); a pad outside
//               that rule is a crop of the input (or, when the crop passes the whole input, the
//               axis's padded range as explicit zeros), done before the call (adaptation,
//               conformance/plugins/common/include/convcheck/adaptation/adaptation.hpp; the implementation string says so).
//   groups      weights get a leading G dimension: {G, O/G, I/G, k...}.
//   formats     the runner's buffers are described exactly (NCX/NXC data, OIX/XIO weights, by
//               strides); the primitive picks its own layout (format_tag::any) and we reorder into
//               and out of it with oneDNN reorders, outside the convolution primitive.
//   invalid     a descriptor is passed as it is, so that oneDNN's own checks (conv_desc_init) accept
//               or refuse it; only what the plugin would have to invent a number for is refused by
//               the plugin (CONVCHECK_ERROR_INVALID_ARGUMENT, "cannot express"): groups 0 (the grouped
//               weights are {G, O/G, I/G, k...}) and a stride below 1 (the primitive takes the dst
//               dims, and the spec's output size is defined for strides >= 1 only).
//   plans       (ABI 1.2) conv_prepare builds the primitive and, when the weights come with it,
//               reorders them (and the bias) into the primitive's layouts once; each execute then
//               reorders src in, runs the primitive, and reorders dst out. The one-shot conv_execute
//               is prepare + execute.
//   workspace   (ABI 1.2) the primitive runs in oneDNN's user scratchpad mode: its scratchpad is the
//               runner's workspace (convcheck_conv_args.workspace) when given, else a buffer of the
//               plan's own per execute; workspace_bytes reports the scratchpad's size, so the runner
//               checks oneDNN never writes past what it asked for. (The reorders of src and dst into
//               the primitive's layouts allocate memory of their own, not counted there.)
//   backward    convolution_backward_data / convolution_backward_weights, each created with the
//               forward_training primitive descriptor of the case as its hint; the same
//               adaptation, reorders and scratchpad; through the one-shot conv_execute only.
//   transposed  (ABI 1.3) deconvolution_forward (onednn_transposed.cpp).
//   quantized   (ABI 1.5) int8 convolution_forward with output scales and zero points (onednn_quantized.cpp).
//   post-ops    (ABI 1.6) the chain as the primitive's dnnl::post_ops attribute (onednn_post_ops.cpp); with a
//               sum, dst's prior content goes into the primitive's dst before it runs.
//   scales      (ABI 1.7, a float case's; docs/scales.md) asked of oneDNN as the one multiplier 2.6 has, its
//               output scales (src_scale * weights_scale(oc) / dst_scale); 2.6 refuses output scales other than 1
//               on its float convolutions (unimplemented), and the case is declined in its words (scales_accepts).
//   threads     oneDNN here runs on OpenMP, whose pool is process-wide: the plugin cannot use the
//               runner's thread pool (ABI 1.2; that would need oneDNN's threadpool runtime), and
//               create's num_threads becomes omp_set_num_threads(n) at each execute: a process-wide
//               setting, which is why it sits in execute (the case's own child process) and never
//               at load time (plugin.h, "Processes and threads").
#include <omp.h>

#include <dnnl.hpp>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_backward.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_scales.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "onednn_instance.hpp"
#include "onednn_post_ops.hpp"
#include "onednn_quantized.hpp"
#include "onednn_transposed.hpp"

namespace support = convcheck_plugin_support;
using dnnl::memory;


namespace convcheck_onednn {

memory::desc activation_desc(const convcheck_conv_desc& d, int64_t channels, bool is_dst, memory::data_type type) {
    memory::dims dims{d.batch, channels};
    for (int a = 0; a < d.rank; ++a) dims.push_back(is_dst ? support::output_size(d, a) : d.input_size[a]);
    const std::vector<int> physical = support::activation_order(d);
    memory::dims strides = support::dense_strides(dims, physical);
    // ABI 1.2 memory strides, in the data format's dim order: to {N, C, spatial...}
    const int64_t* given = is_dst ? d.dst_strides : d.src_strides;
    if (support::has_strides(d) && given[0] != 0)
        for (std::size_t i = 0; i < physical.size(); ++i) strides[physical[i]] = given[i];
    return memory::desc(dims, type, strides);
}

memory::desc weights_desc(const convcheck_conv_desc& d, memory::data_type type) {
    const bool grouped = d.groups != 1;  // a group count below 1 reaches oneDNN as it is
    memory::dims dims;
    if (grouped) dims.push_back(d.groups);
    dims.push_back(d.out_channels / d.groups);
    dims.push_back(d.in_channels / d.groups);
    for (int a = 0; a < d.rank; ++a) dims.push_back(d.kernel_size[a]);
    const int g = grouped ? 1 : 0;  // index shift of O/G, I/G when G is present
    std::vector<int> physical;
    if (d.filter_format == CONVCHECK_OIX) {
        for (int i = 0; i < static_cast<int>(dims.size()); ++i) physical.push_back(i);
    } else {
        for (int a = 0; a < d.rank; ++a) physical.push_back(g + 2 + a);
        physical.push_back(g + 1);
        if (grouped) physical.push_back(0);
        physical.push_back(g + 0);
    }
    memory::dims strides = support::dense_strides(dims, physical);
    // ABI 1.2 memory strides, in the filter format's dim order over {O, I/G, k...}: O is G and O/G in oneDNN's
    // grouped dims (o = g * O/G + oc), so G's stride is O/G times O's
    if (support::has_strides(d) && d.weights_strides[0] != 0) {
        const std::vector<int> order = support::weights_order(d);
        memory::dims logical(d.rank + 2);
        for (std::size_t i = 0; i < order.size(); ++i) logical[order[i]] = d.weights_strides[i];
        strides.clear();
        if (grouped) strides.push_back(d.out_channels / d.groups * logical[0]);
        strides.insert(strides.end(), logical.begin(), logical.end());
    }
    return memory::desc(dims, type, strides);
}

}  // namespace convcheck_onednn

namespace {

using convcheck_onednn::data_type_of;

// Each tensor in its own data type (they differ in a mixed-dtype case: oneDNN takes per-tensor types, e.g.
// bf16 src and weights with an f32 dst and bias, and refuses the combinations it has no implementation for).
memory::desc activation_desc(const convcheck_conv_desc& d, int64_t channels, bool is_dst) {
    const support::TensorDtypes t = support::tensor_dtypes(d);
    return convcheck_onednn::activation_desc(d, channels, is_dst, data_type_of(is_dst ? t.dst : t.src));
}
memory::desc weights_desc(const convcheck_conv_desc& d) {
    return convcheck_onednn::weights_desc(d, data_type_of(support::tensor_dtypes(d).weights));
}
memory::data_type bias_type(const convcheck_conv_desc& d) { return data_type_of(support::tensor_dtypes(d).bias); }

memory::dims spatial(const convcheck_conv_desc& d, const int64_t (&values)[3], int64_t minus = 0) {
    memory::dims out;
    for (int a = 0; a < d.rank; ++a) out.push_back(values[a] - minus);
    return out;
}

// What the plugin cannot hand oneDNN without inventing a number; "" when it can pass the case as it
// is. The plugin refuses these itself (invalid argument), saying so, so that a report tells them from
// oneDNN's own refusals.
std::string inexpressible(const convcheck_conv_desc& d) {
    if (d.groups == 0)
        return "the onednn plugin cannot express groups = 0 to oneDNN: its grouped weights are {G, O/G, I/G, k...}, "
               "and O/G, I/G have no value for G = 0";
    for (int a = 0; a < d.rank; ++a)
        if (d.strides[a] < 1)
            return "the onednn plugin cannot express strides[" + std::to_string(a) + "] = " + std::to_string(d.strides[a]) +
                   " to oneDNN: its convolution descriptor takes the dst dims, and the spec's output size "
                   "floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1 is defined for s >= 1 only";
    return "";
}

// Memory strides reach oneDNN as the runner gives them (its memory descriptors take any strides), unless the case's
// pads move into a copy of the data (the adaptation), which is dense: "" when oneDNN takes the case's strides.
std::string strides_not_taken(const convcheck_conv_desc& d);

const convcheck_conv_desc& expressible(const convcheck_conv_desc& d) {
    if (const std::string why = inexpressible(d); !why.empty()) throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, why);
    return d;
}

// oneDNN takes both data and both filter formats (described by strides): only pads outside its
// rule move into the data.
support::Adaptation plan_for(const convcheck_conv_desc& d) {
    return support::plan_adaptation(d, {d.data_format, d.filter_format, false, false, support::PadsRule::onednn});
}

std::string strides_not_taken(const convcheck_conv_desc& d) {
    if (!support::has_strides(d)) return "";
    const support::Adaptation a = plan_for(d);
    if (support::moves_src(d, a) || support::moves_weights(d, a) || support::moves_dst(d, a))
        return "the onednn plugin moves this case's pads (outside oneDNN's rule) into a dense copy of the data, which "
               "has no memory strides";
    return "";
}

// The memory descriptors of the (adapted) case, each in format_tag::any: the primitive picks its
// layouts. The bias (or diff_bias) is empty without has_bias.
struct AnyDescs {
    memory::desc src, weights, bias, dst;
};
AnyDescs any_descs(const convcheck_conv_desc& d) {
    const auto any = [&](const memory::desc& m) { return memory::desc(m.dims(), m.data_type(), memory::format_tag::any); };
    return {any(activation_desc(d, d.in_channels, false)), any(weights_desc(d)),
            d.has_bias ? memory::desc({d.out_channels}, bias_type(d), memory::format_tag::any) : memory::desc(),
            any(activation_desc(d, d.out_channels, true))};
}

// Dilation: oneDNN counts the holes between taps (0 = dense); ours is 1-based (1 = dense).
memory::dims dilations(const convcheck_conv_desc& d) { return spatial(d, d.dilations, 1); }

// The attributes every float primitive gets: the user scratchpad and the case's fpmath mode (ABI 1.7): bf16 is
// oneDNN's fpmath_mode::bf16 ("implicit f32->bf16 conversions allowed"); oneDNN 2.6 has no tf32 mode, so a tf32 case
// runs strict, in f32, which the looser tf32 bound holds too.
dnnl::primitive_attr user_scratchpad(const convcheck_conv_desc& d) {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // the scratchpad comes with each execute
    if (d.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, fpmath_mode) && d.fpmath_mode == CONVCHECK_FPMATH_BF16)
        attr.set_fpmath_mode(dnnl::fpmath_mode::bf16);
    return attr;
}

// The forward primitive descriptor for the (adapted) case, with the post-ops of `ops` when given; throws
// dnnl::error when oneDNN refuses it. forward_inference for the forward pass; forward_training as the hint of a
// backward one.
// With output_scales (mask 0: one value; 1 << 1: one per output channel), the primitive's output scales too.
struct OutputScales {
    int mask = 0;
    std::vector<float> values;
};
dnnl::convolution_forward::primitive_desc make_primitive_desc(const dnnl::engine& engine, const convcheck_conv_desc& d,
                                                              dnnl::prop_kind kind, const convcheck_post_ops* ops,
                                                              const OutputScales* output_scales) {
    const AnyDescs m = any_descs(d);
    const dnnl::convolution_forward::desc conv(kind, dnnl::algorithm::convolution_direct, m.src, m.weights, m.bias, m.dst,
                                               spatial(d, d.strides), dilations(d), spatial(d, d.pads_begin),
                                               spatial(d, d.pads_end));
    dnnl::primitive_attr attr = user_scratchpad(d);
    if (ops != nullptr) attr.set_post_ops(convcheck_onednn::make_post_ops(d, *ops));
    if (output_scales != nullptr) attr.set_output_scales(output_scales->mask, output_scales->values);
    return dnnl::convolution_forward::primitive_desc(conv, attr, engine);
}
dnnl::convolution_forward::primitive_desc make_primitive_desc(convcheck_plugin& p, const convcheck_conv_desc& d,
                                                              dnnl::prop_kind kind = dnnl::prop_kind::forward_inference,
                                                              const convcheck_post_ops* ops = nullptr) {
    return make_primitive_desc(p.engine, d, kind, ops, nullptr);
}

// `what`: the primitive refused, when it is not the forward one the case asks for.
std::string refusal(const dnnl::error& e, const convcheck_conv_desc& d, const std::string& what = "the case") {
    std::string why = "oneDNN refused " + what + " (" + e.what() + ", status " + std::to_string(e.status) + ")";
    const support::TensorDtypes t = support::tensor_dtypes(d);
    const auto any = [&](int32_t dtype) {
        return t.src == dtype || t.weights == dtype || t.dst == dtype || (d.has_bias && t.bias == dtype);
    };
    if (e.status == dnnl_unimplemented) why += convcheck_onednn::dtype_refusal_note(any(CONVCHECK_F16), any(CONVCHECK_BF16));
    return why;
}

// oneDNN's refusal at prepare or execute, as the plugin's error.
[[noreturn]] void throw_refusal(const dnnl::error& e, const convcheck_conv_desc& d, const std::string& what = "the case") {
    throw support::PluginError(e.status == dnnl_out_of_memory ? CONVCHECK_ERROR_OUT_OF_MEMORY : CONVCHECK_ERROR_UNIMPLEMENTED,
                               refusal(e, d, what));
}

// Why a tensor's dtype has no oneDNN data type, or "".
std::string dtype_unsupported(const convcheck_conv_desc& d) {
    const support::TensorDtypes t = support::tensor_dtypes(d);
    for (const int32_t type : {t.src, t.weights, t.dst, d.has_bias ? t.bias : t.src})
        if (data_type_of(type) == memory::data_type::undef)
            return type == CONVCHECK_F64
                       ? std::string("oneDNN 2.6 has no f64 data type: dnnl_data_type_t has f16, bf16, f32, s32, s8 "
                                     "and u8, and dnnl_memory_desc_init_by_tag refuses any other value "
                                     "(dnnl_invalid_arguments, status 2)")
                       : std::string("oneDNN convolution has no ") + support::dtype_name(type);
    return "";
}

void check_dtype(const convcheck_conv_desc& d) {
    if (const std::string why = dtype_unsupported(d); !why.empty())
        throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
}

// The runner's (or the adaptation's) buffers of the library's case `l`, described exactly.
memory user_activations(convcheck_plugin& p, const convcheck_conv_desc& l, bool is_dst, const void* data) {
    return memory(activation_desc(l, is_dst ? l.out_channels : l.in_channels, is_dst), p.engine, const_cast<void*>(data));
}
memory user_weights(convcheck_plugin& p, const convcheck_conv_desc& l, const void* data) {
    return memory(weights_desc(l), p.engine, const_cast<void*>(data));
}
memory user_bias(convcheck_plugin& p, const convcheck_conv_desc& l, const void* data) {
    return memory(memory::desc({l.out_channels}, bias_type(l), memory::format_tag::a), p.engine, const_cast<void*>(data));
}
// An input in the primitive's own layout, when it differs (inputs are only read: by reorders).
memory to_primitive(convcheck_plugin& p, memory user, const memory::desc& wanted) {
    if (user.get_desc() == wanted) return user;
    memory mine(wanted, p.engine);
    dnnl::reorder(user, mine).execute(p.stream, user, mine);
    return mine;
}

// The primitive's scratchpad (user mode) in a call: the runner's workspace, or memory of its own.
void add_scratchpad(convcheck_plugin& p, const dnnl::primitive_desc_base& pd, const convcheck_conv_args& args,
                    std::unordered_map<int, memory>& call) {
    const memory::desc scratchpad = pd.scratchpad_desc();
    if (scratchpad.get_size() == 0) return;
    void* given = support::given_workspace(args, scratchpad.get_size());
    call.emplace(DNNL_ARG_SCRATCHPAD, given ? memory(scratchpad, p.engine, given) : memory(scratchpad, p.engine));
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("onednn create", [&]() -> convcheck_error* {
        int num_threads = 0;
        if (auto* e = support::read_create_args(args, &num_threads)) return e;
        auto plugin = new convcheck_plugin();
        plugin->num_threads = num_threads;
        const dnnl_version_t* v = dnnl_version();
        plugin->version = std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
        *out = plugin;
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete plugin; }

convcheck_error* describe(convcheck_plugin* plugin, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "onednn";
    mine.version = plugin->version.c_str();
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CONV_TRANSPOSED;
    // f16 is claimed as a dtype so that the runner asks: oneDNN itself answers per case in conv_query
    // (2.6 refuses f16 on CPU; a oneDNN with CPU f16 kernels would run it).
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_BF16) | CONVCHECK_BIT(CONVCHECK_F16) |
                  CONVCHECK_BIT(CONVCHECK_F64) |  // f64: claimed so that query declines it in oneDNN's words
                  CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32);
    // quantized convolution (onednn_quantized.cpp): the dst zero point added in f32, then rounded to even
    mine.requantization = CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT;
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    // memory strides on every tensor of the forward pass (oneDNN's memory descriptors take them; conv_query declines
    // them where the pads move into a dense copy, and on the quantized and backward passes)
    mine.strided_tensors = CONVCHECK_BIT(CONVCHECK_TENSOR_SRC) | CONVCHECK_BIT(CONVCHECK_TENSOR_WEIGHTS) |
                           CONVCHECK_BIT(CONVCHECK_TENSOR_DST);
    // Backward data and backward weights (+ bias): oneDNN's backward primitives; conv_query asks
    // oneDNN per case (a dtype this CPU has no implementation for is declined in its words).
    mine.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                      CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
    // mixed per-tensor dtypes (forward): each tensor's own data type goes to oneDNN, which runs the
    // combinations it has (bf16 src and weights with an f32 dst or bias) and refuses the rest in its words
    mine.mixed_dtypes = 1;
    // ABI 1.6: fused post-ops, each op as oneDNN 2.6's post-op of the same formula (onednn_post_ops.cpp); oneDNN
    // accepts or refuses each case's chain at query
    // (ABI 1.7: prelu by append_prelu, log, mish, pow, soft_relu with alpha 1 or -1, operands of every type, which
    // oneDNN takes or refuses; hardsigmoid and hardswish with alpha and beta are declined at query, 2.6 has none)
    mine.post_op_kinds = CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE) | CONVCHECK_BIT(CONVCHECK_POST_OP_SUM) |
                         CONVCHECK_BIT(CONVCHECK_POST_OP_BINARY) | CONVCHECK_BIT(CONVCHECK_POST_OP_PRELU);
    mine.eltwise_algorithms = (1u << (CONVCHECK_ELTWISE_POW + 1)) - 1;
    mine.binary_algorithms = (1u << (CONVCHECK_BINARY_DIV + 1)) - 1;
    return support::fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    return support::guarded("onednn conv_query", [&]() -> convcheck_error* {
        if (support::quantization_of(*desc) != nullptr) return convcheck_onednn::quantized_query(*plugin, *desc, out);
        expressible(*desc);
        if (const std::string why = strides_not_taken(*desc); !why.empty()) return support::unsupported(out, why);
        if (const std::string why = dtype_unsupported(*desc); !why.empty()) return support::unsupported(out, why);
        try {
            make_primitive_desc(*plugin, support::library_desc(*desc, plan_for(*desc)), dnnl::prop_kind::forward_inference,
                                support::post_ops_of(*desc));
        } catch (const dnnl::error& e) {
            return support::unsupported(out, refusal(e, *desc));
        }
        return support::supported(out);
    });
}

// The prepared case: the adaptation, the primitive, and (when the weights came with prepare) the
// weights and bias already in the primitive's layouts.
struct Prepared : convcheck_conv_plan {
    Prepared(convcheck_plugin& plugin, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), plugin(plugin), adaptation(plan_for(expressible(desc))),
          l(support::library_desc(desc, adaptation)), ops_copy(support::post_ops_of(desc)), ops(ops_copy.get()) {
        check_dtype(desc);
        if (const std::string why = strides_not_taken(desc); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        if (ops != nullptr)
            if (const std::string why = convcheck_onednn::post_ops_accepts(desc, *ops); !why.empty())
                throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        try {
            pd = make_primitive_desc(plugin, l, dnnl::prop_kind::forward_inference, ops);
        } catch (const dnnl::error& e) {
            throw_refusal(e, desc);
        }
        primitive = dnnl::convolution_forward(pd);
        // Weights never move in the adaptation (oneDNN takes both filter formats), so the runner's
        // weights are the library's.
        if (inputs.weights != nullptr) {
            weights = to_primitive(plugin, user_weights(plugin, l, inputs.weights), pd.weights_desc());
            if (desc.has_bias) bias = to_primitive(plugin, user_bias(plugin, l, inputs.bias), pd.bias_desc());
            plugin.stream.wait();
        }
    }

    convcheck_error* execute(const convcheck_conv_args& args) override {
        if (plugin.num_threads > 0) omp_set_num_threads(plugin.num_threads);
        support::LibraryBuffers buffers(desc, adaptation, args);
        memory user_dst = user_activations(plugin, l, true, buffers.dst());
        memory src = to_primitive(plugin, user_activations(plugin, l, false, buffers.src()), pd.src_desc());
        memory dst = user_dst.get_desc() == pd.dst_desc() ? user_dst : memory(pd.dst_desc(), plugin.engine);
        // a sum post-op reads dst's prior content: into the primitive's layout first
        if (ops != nullptr && convcheck_onednn::has_sum(*ops) && dst != user_dst)
            dnnl::reorder(user_dst, dst).execute(plugin.stream, user_dst, dst);
        std::unordered_map<int, memory> call{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
        if (ops != nullptr) convcheck_onednn::add_post_op_operands(plugin.engine, l, *ops, args, call);
        call.emplace(DNNL_ARG_WEIGHTS,
                     weights ? *weights : to_primitive(plugin, user_weights(plugin, l, buffers.weights()), pd.weights_desc()));
        if (desc.has_bias)
            call.emplace(DNNL_ARG_BIAS, bias ? *bias : to_primitive(plugin, user_bias(plugin, l, buffers.bias()), pd.bias_desc()));
        add_scratchpad(plugin, pd, args, call);
        primitive.execute(plugin.stream, call);
        if (dst != user_dst) dnnl::reorder(dst, user_dst).execute(plugin.stream, dst, user_dst);
        plugin.stream.wait();
        buffers.return_dst();
        support::write_implementation(&args, std::string("onednn:") + pd.impl_info_str() +
                                                 support::adaptation_note(desc, adaptation));
        return nullptr;
    }

    // The primitive's scratchpad (user mode): the runner's workspace, or the plan's per execute.
    uint64_t workspace_bytes() const override { return pd.scratchpad_desc().get_size(); }
    uint64_t plan_bytes() const override {
        return (weights ? weights->get_desc().get_size() : 0) + (bias ? bias->get_desc().get_size() : 0);
    }

    convcheck_plugin& plugin;
    const support::Adaptation adaptation;
    const convcheck_conv_desc l;  // the case oneDNN computes
    // the post-ops extension (ABI 1.6), or NULL: a copy, as the plan may outlive the runner's descriptor
    const support::PostOpsCopy ops_copy;
    const convcheck_post_ops* ops;
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward primitive;
    std::optional<memory> weights, bias;  // in the primitive's layouts, when prepared with the weights
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const support::PrepareInputs& inputs) {
    if (support::quantization_of(desc) != nullptr) return convcheck_onednn::quantized_plan(*plugin, desc, inputs);
    return std::make_unique<Prepared>(*plugin, desc, inputs);
}

// The backward passes (docs/passes.md): oneDNN's convolution_backward_data and
// convolution_backward_weights (with diff_bias when has_bias) primitives, each created with the
// forward_training primitive descriptor of the same case as its hint (oneDNN's "Convolution"
// guide). As in the forward pass: the same adaptation (a pad outside oneDNN's rule is a crop of
// src, and a cropped element's diff_src is exactly 0: it is read by no output), the runner's
// buffers described exactly, the primitive's own layouts (format_tag::any) reached by reorders,
// the scratchpad in user mode. Backward passes run through the one-shot conv_execute only.
struct Backward {
    Backward(convcheck_plugin& plugin, const convcheck_conv_desc& desc)
        : plugin(plugin), desc(desc), adaptation(plan_for(expressible(desc))), l(support::library_desc(desc, adaptation)) {
        check_dtype(desc);
        dnnl::convolution_forward::primitive_desc hint;
        try {
            hint = make_primitive_desc(plugin, l, dnnl::prop_kind::forward_training);
        } catch (const dnnl::error& e) {
            throw_refusal(e, desc, "the forward_training convolution that a backward primitive takes as its hint");
        }
        const bool data_pass = support::prop_kind(desc) == CONVCHECK_BACKWARD_DATA;
        try {
            const AnyDescs m = any_descs(l);
            const memory::dims strides = spatial(l, l.strides), pl = spatial(l, l.pads_begin), pr = spatial(l, l.pads_end);
            if (data_pass) {
                const dnnl::convolution_backward_data::primitive_desc data(
                    {dnnl::algorithm::convolution_direct, m.src, m.weights, m.dst, strides, dilations(l), pl, pr},
                    user_scratchpad(l), plugin.engine, hint);
                pd = data;
            } else {
                const dnnl::convolution_backward_weights::primitive_desc weights(
                    {dnnl::algorithm::convolution_direct, m.src, m.weights, m.bias, m.dst, strides, dilations(l), pl, pr},
                    user_scratchpad(l), plugin.engine, hint);
                pd = weights;
            }
        } catch (const dnnl::error& e) {
            throw_refusal(e, desc, data_pass ? "convolution_backward_data" : "convolution_backward_weights");
        }
    }

    void execute(const convcheck_conv_args& args) {
        if (plugin.num_threads > 0) omp_set_num_threads(plugin.num_threads);
        support::LibraryBuffers buffers(desc, adaptation, args);
        std::unordered_map<int, memory> call;
        std::vector<std::pair<memory, memory>> outputs;  // (the primitive's, the runner's) where they differ
        const auto output = [&](int arg, memory user, const memory::desc& wanted) {
            const memory mine = user.get_desc() == wanted ? user : memory(wanted, plugin.engine);
            call.emplace(arg, mine);
            if (mine != user) outputs.emplace_back(mine, user);
        };
        call.emplace(DNNL_ARG_DIFF_DST, to_primitive(plugin, user_activations(plugin, l, true, buffers.dst()), pd.diff_dst_desc()));
        if (support::prop_kind(desc) == CONVCHECK_BACKWARD_DATA) {
            call.emplace(DNNL_ARG_WEIGHTS, to_primitive(plugin, user_weights(plugin, l, buffers.weights()), pd.weights_desc()));
            output(DNNL_ARG_DIFF_SRC, user_activations(plugin, l, false, buffers.diff_src()), pd.diff_src_desc());
        } else {
            call.emplace(DNNL_ARG_SRC, to_primitive(plugin, user_activations(plugin, l, false, buffers.src()), pd.src_desc()));
            output(DNNL_ARG_DIFF_WEIGHTS, user_weights(plugin, l, buffers.diff_weights()), pd.diff_weights_desc());
            if (desc.has_bias) output(DNNL_ARG_DIFF_BIAS, user_bias(plugin, l, buffers.diff_bias()), pd.diff_weights_desc(1));
        }
        add_scratchpad(plugin, pd, args, call);
        dnnl::primitive(pd).execute(plugin.stream, call);  // created here: a query needs only pd
        for (auto& [mine, user] : outputs) dnnl::reorder(mine, user).execute(plugin.stream, mine, user);
        plugin.stream.wait();
        buffers.return_gradients();
        support::write_implementation(&args, std::string("onednn:") + pd.impl_info_str() +
                                                 support::adaptation_note(desc, adaptation));
    }

    convcheck_plugin& plugin;
    const convcheck_conv_desc& desc;
    const support::Adaptation adaptation;
    const convcheck_conv_desc l;  // the case oneDNN computes
    dnnl::primitive_desc pd;  // convolution_backward_data's or _weights'
};

convcheck_error* backward_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (const std::string why = support::dense_only(*desc, "oneDNN"); !why.empty()) return support::unsupported(out, why);
    try {
        Backward(*plugin, *desc);
    } catch (const support::PluginError& e) {
        if (e.code() != CONVCHECK_ERROR_UNIMPLEMENTED) throw;
        return support::unsupported(out, e.what());
    }
    return support::supported(out);
}

convcheck_error* backward_execute(convcheck_plugin* plugin, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    if (const std::string why = support::dense_only(desc, "oneDNN"); !why.empty())
        return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    Backward(*plugin, desc).execute(args);
    return nullptr;
}

// ABI 1.7: a float case's scales (docs/scales.md). oneDNN 2.6's one multiplier of a float convolution is its output
// scales, which scale the result before the post-ops (a dst scale divides after them): the plugin asks oneDNN for the
// case's primitive with src_scale * weights_scale(oc) / dst_scale as output scales (mask 0, or 1 << 1 per output
// channel) and declines in oneDNN's words when it refuses, as 2.6 does for every output scale other than 1 on a float
// convolution (unimplemented). Where it would accept them, the plugin declines too: it passes no scales to oneDNN.
std::string scales_accepts(const convcheck_conv_desc& desc, const convcheck_scales& s) {
    const convcheck_conv_desc rest = support::after_scales(desc);
    if (const std::string why = dtype_unsupported(rest); !why.empty()) return why;
    OutputScales output{s.weights_scale_count == 1 ? 0 : 1 << 1, {}};
    for (int64_t oc = 0; oc < s.weights_scale_count; ++oc)
        output.values.push_back(static_cast<float>(double(s.src_scale) * double(support::weights_scale(s, oc)) /
                                                   double(s.dst_scale)));
    static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    try {
        make_primitive_desc(engine, support::library_desc(rest, plan_for(expressible(rest))),
                            dnnl::prop_kind::forward_inference, support::post_ops_of(rest), &output);
    } catch (const dnnl::error& e) {
        return refusal(e, rest, "the case with output scales (set_output_scales mask " + std::to_string(output.mask) + ")");
    }
    return "oneDNN accepts output scales for this case, but the plugin passes no scales to oneDNN (its float "
           "convolutions refused them where the plugin was made)";
}

const convcheck_api api = [] {
    convcheck_api a = support::basic_api(create, destroy, describe);
    support::takes_mixed_dtypes<support::PrepareTag<prepare>> = true;  // forward: each tensor's own data type
    support::add_conv<prepare>(a, conv_query);
    // an f32 bias, ABI 1.7's general output and per-channel zero points (onednn_quantized.cpp); per-output-channel
    // weights zero points (1.8) reach its query, which declines them in oneDNN's words; per-output-channel dst scales
    // (1.9) go into its per-channel output scales
    support::add_quantized<prepare>(support::kQuantizedF32Bias | support::kQuantizedGeneralOutput |
                                    support::kQuantizedChannelZeroPoints | support::kQuantizedWeightsZeroPoints |
                                    support::kQuantizedS32ZeroPoints | support::kQuantizedDstScales);
    support::add_post_ops<prepare>(convcheck_onednn::post_ops_accepts);
    support::add_scales<prepare>(scales_accepts);  // asked of oneDNN, declined in its words (scales_accepts)
    support::add_backward<prepare, backward_query, backward_execute>(a);
    support::add_conv_transposed<convcheck_onednn::transposed_query, convcheck_onednn::transposed_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
