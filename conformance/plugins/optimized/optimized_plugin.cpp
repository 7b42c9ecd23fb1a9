// The optimized implementation as a plugin (libconvcheck_plugin_optimized.so): discrete convolution
// through ConvPlan, its backward passes through BackwardDataPlan and BackwardWeightsPlan
// (docs/passes.md), and CC through CcPlan (its backward pass through CcBackwardPlan), f32 accumulation. Options (--backend-option):
//   path=<scalar|im2col_gemm|gemm_1x1|blocked_avx2|blocked_avx512|depthwise_avx2|depthwise_avx512>
//       forces one discrete-convolution path (for backward data, the path of its phases; backward
//       weights takes scalar, blocked_avx2, blocked_avx512); a case it does not apply to is "unsupported"
//   cc_method=<polyphase|chunked> forces one CC method, likewise
//   requantization=<double_rounding|single_rounding|nearest_even_f32|nearest_even_f32_with_zero_point> the rule its quantized convolution
//       (ABI 1.5, QuantizedPlan) follows and declares; nearest_even_f32_with_zero_point (oneDNN's) by default
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/abi/abi_quantized.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/plugin_cc_backward.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_scales.hpp"
#include "convcheck/plugin_backward.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/optimized/backward_plan.hpp"
#include "convcheck/optimized/cc_backward_plan.hpp"
#include "convcheck/optimized/cc_plan.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "convcheck/optimized/quantized_plan.hpp"
#include "convcheck/optimized/transposed_plan.hpp"

namespace {

using namespace convcheck_plugin_support;
namespace opt = convcheck::optimized;

struct Instance {
    opt::Options conv;
    opt::CcOptions cc;
    opt::QuantizedOptions quantized;
};

convcheck_error* parse_options(const std::string& text, Instance& in) {
    std::stringstream items(text);
    for (std::string item; std::getline(items, item, ',');) {
        if (item.empty()) continue;
        const auto eq = item.find('=');
        const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
        if (key == "path") {
            if (!opt::parse_path(value, &in.conv.forced_path))
                return invalid_argument("optimized: path='" + value + "' is not a path name (scalar, im2col_gemm, ...)");
        } else if (key == "cc_method") {
            if (value == "polyphase") in.cc.forced_method = opt::CcMethod::polyphase;
            else if (value == "chunked") in.cc.forced_method = opt::CcMethod::chunked;
            else return invalid_argument("optimized: cc_method='" + value + "' is not polyphase or chunked");
        } else if (key == "requantization") {
            if (!opt::parse_quantized_rounding(value, &in.quantized.rounding))
                return invalid_argument("optimized: requantization='" + value +
                                        "' is not double_rounding, single_rounding, nearest_even_f32 or "
                                        "nearest_even_f32_with_zero_point");
        } else {
            return invalid_argument("optimized: unknown option '" + key + "' (path, cc_method, requantization)");
        }
    }
    return nullptr;
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("create", [&]() -> convcheck_error* {
        auto instance = std::make_unique<Instance>();
        if (CONVCHECK_HAS_FIELD(args, convcheck_create_args, num_threads)) {
            instance->conv.threads = args->num_threads;
            instance->cc.threads = args->num_threads;
            instance->quantized.threads = args->num_threads;
        }
        if (CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options)
            if (auto* e = parse_options(args->options, *instance)) return e;
        *out = reinterpret_cast<convcheck_plugin*>(instance.release());
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }
Instance& instance_of(convcheck_plugin* p) { return *reinterpret_cast<Instance*>(p); }

// ABI 1.5's name of the rule the quantized plans follow.
int32_t abi_rule(opt::QuantizedRounding r) {
    switch (r) {
        case opt::QuantizedRounding::double_rounding: return CONVCHECK_REQUANTIZATION_DOUBLE_ROUNDING;
        case opt::QuantizedRounding::single_rounding: return CONVCHECK_REQUANTIZATION_SINGLE_ROUNDING;
        case opt::QuantizedRounding::nearest_even_f32: return CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32;
        case opt::QuantizedRounding::nearest_even_f32_with_zero_point:
            return CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT;
    }
    return CONVCHECK_REQUANTIZATION_UNNAMED;
}

convcheck_error* describe(convcheck_plugin* plugin, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "optimized";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CC | CONVCHECK_OP_CONV_TRANSPOSED | CONVCHECK_OP_CC_BACKWARD;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16) |
                  CONVCHECK_BIT(CONVCHECK_F64) |  // f64: claimed so that query declines it in the plugin's words
                  CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32) |
                  CONVCHECK_BIT(CONVCHECK_F8_E4M3) | CONVCHECK_BIT(CONVCHECK_F8_E5M2);  // fp8: widened to f32 (dense_form)
    // quantized convolution (QuantizedPlan): dense NCX/NXC with OIX/XIO weights, exact int32 sums
    mine.requantization = abi_rule(instance_of(plugin).quantized.rounding);
    // post-ops (ABI 1.6/1.7): relu, clip, linear and sum on a quantized case (QuantizedPlan's general output), those
    // and the binary ops on a float case (widened, float_post_ops below); the binary ops on a quantized case are declined
    mine.post_op_kinds = CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE) | CONVCHECK_BIT(CONVCHECK_POST_OP_SUM) |
                         CONVCHECK_BIT(CONVCHECK_POST_OP_BINARY);
    mine.eltwise_algorithms =
        CONVCHECK_BIT(CONVCHECK_ELTWISE_RELU) | CONVCHECK_BIT(CONVCHECK_ELTWISE_CLIP) | CONVCHECK_BIT(CONVCHECK_ELTWISE_LINEAR);
    mine.binary_algorithms = (1u << (CONVCHECK_BINARY_DIV + 1)) - 1;  // add, mul, max, min, sub, div
    mine.integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    // OXI and strided tensors through dense copies (dense_form below): the implementation reads neither
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO) | CONVCHECK_BIT(CONVCHECK_OXI);
    mine.accumulation_dtype = CONVCHECK_F32;
    // per-tensor dtypes on the forward pass: widened to f32 and rounded once to dst's type (dense_form below)
    mine.mixed_dtypes = 1;
    mine.strided_tensors =
        CONVCHECK_BIT(CONVCHECK_TENSOR_SRC) | CONVCHECK_BIT(CONVCHECK_TENSOR_WEIGHTS) | CONVCHECK_BIT(CONVCHECK_TENSOR_DST);
    // the backward passes take dense OIX/XIO tensors (a strided or OXI backward case is declined at query)
    mine.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                      CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
    return fill_info(info, mine);
}

// The case as the optimized implementation takes it: dense tensors, OIX or XIO weights. ABI 1.2's
// strided tensors and OXI weights (the plugin claims them) are copied into that form, element by
// element (copy_tensor, core/include/convcheck/core/memory_layout.hpp), and the result copied out into dst's own layout,
// its gaps untouched; the implementation string then says " [dense copies]".
// Per-tensor dtypes (ABI 1.2's mixed_dtypes, forward) run as an f32 case: src, weights and bias widened to f32
// (exact), the f32 result rounded once to dst's type: the sum is the f32 accumulation the implementation does for
// every dtype, and dst's one rounding is the output's.
// fp8 (ABI 1.7) runs the same way: the implementation has no fp8 kernels, and every fp8 value is an f32 (exact).
// So do fused post-ops on a float case (ABI 1.6): the implementation computes the convolution with its bias in f32,
// the plugin applies the chain to that result in double (float_post_ops) and rounds once to dst's type.
// So do scales on a float case (ABI 1.7, docs/scales.md): the implementation computes the sum without the bias in
// f32, the plugin multiplies it by src_scale * weights_scale(oc), adds the bias, applies the chain and divides by the
// dst scale, in double, and rounds once to dst's type.
bool runs_widened(const convcheck::ConvDescriptor& d) {
    return d.mixed() || d.has_fp8() || !d.post_ops.empty() || d.scales.present();
}

convcheck::ConvDescriptor dense_form(convcheck::ConvDescriptor d) {
    d.src_strides.clear(), d.weights_strides.clear(), d.dst_strides.clear();
    if (d.filter_format == convcheck::FilterFormat::oxi) d.filter_format = convcheck::FilterFormat::oix;
    if (runs_widened(d)) d.dtype = convcheck::DataType::f32, d.dtype_overrides = {};
    d.post_ops.clear();  // applied by the plugin to the implementation's result
    if (d.scales.present()) d.has_bias = false, d.scales = {};  // the bias comes after the scales (run)
    return d;
}

// Each element's offset in `d`'s layout of tensor `role`, in canonical (NCX / OIX) order.
std::vector<std::int64_t> element_offsets(const convcheck::ConvDescriptor& d, convcheck::TensorRole role) {
    std::vector<std::int64_t> offsets;
    convcheck::for_each_element(d, role, [&](std::int64_t, std::int64_t offset) { offsets.push_back(offset); });
    return offsets;
}

// Tensor `role` of `from` (its own dtype, format and strides) as f32, dense in `to`'s layout.
std::vector<float> widened(const convcheck::ConvDescriptor& from, convcheck::DataType type, const void* data,
                           const convcheck::ConvDescriptor& to, convcheck::TensorRole role) {
    const std::vector<std::int64_t> to_offsets = element_offsets(to, role);
    std::vector<float> out(to_offsets.size());
    convcheck::for_each_element(from, role, [&](std::int64_t flat, std::int64_t offset) {
        out[static_cast<std::size_t>(to_offsets[static_cast<std::size_t>(flat)])] =
            static_cast<float>(convcheck::load_as_double(data, type, offset));
    });
    return out;
}

// The bias of `d` in its own dtype, as f32 (none: null).
std::vector<float> widened_bias(const convcheck::ConvDescriptor& d, const void* bias) {
    std::vector<float> out;
    if (bias == nullptr) return out;
    for (std::int64_t i = 0; i < d.bias_elements(); ++i)
        out.push_back(static_cast<float>(convcheck::load_as_double(bias, d.bias_dtype(), i)));
    return out;
}

// Why the plugin declines a float case's chain (an op other than relu, clip, linear, sum and binary), or "".
std::string float_post_ops_unsupported(const convcheck_conv_desc&, const convcheck_post_ops& ops) {
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        const bool eltwise = is_relu_clip_or_linear(op);
        if (!eltwise && op.kind != CONVCHECK_POST_OP_SUM && op.kind != CONVCHECK_POST_OP_BINARY)
            return "the optimized plugin's float post-ops are relu, clip, linear, sum and binary (op " + std::to_string(k) +
                   " is none of them)";
    }
    return "";
}

// A float case's chain on output value v (the implementation's f32 result with its bias) of output channel oc, in
// double and in order, as oneDNN defines the post-ops: prior is dst's value before the call (a sum reads it), `at` the
// output's offset dense in dst's data format (where a full operand holds its value).
double float_post_ops(const convcheck::ConvDescriptor& d, const convcheck_conv_args& args, double v, double prior,
                      std::int64_t oc, std::int64_t at) {
    for (std::size_t k = 0; k < d.post_ops.size(); ++k) {
        const convcheck::PostOp& op = d.post_ops[k];
        if (op.kind == convcheck::PostOpKind::sum) {
            v += double(op.scale) * (prior - double(op.zero_point));
        } else if (op.kind == convcheck::PostOpKind::eltwise) {
            if (op.eltwise == convcheck::EltwiseAlgorithm::relu) v = v > 0 ? v : double(op.alpha) * v;
            else if (op.eltwise == convcheck::EltwiseAlgorithm::clip) v = std::min(double(op.beta), std::max(double(op.alpha), v));
            else v = double(op.alpha) * v + double(op.beta);  // linear
        } else {  // binary
            const void* operand = post_op_operand(args, static_cast<int64_t>(k));
            if (operand == nullptr)
                throw PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, "post_op_operands: op " + std::to_string(k) + " has no operand");
            const std::int64_t i = op.broadcast == convcheck::OperandBroadcast::per_tensor ? 0
                                   : op.broadcast == convcheck::OperandBroadcast::per_oc   ? oc
                                                                                         : at;
            const auto t = static_cast<int32_t>(op.operand_type);
            const double b = t == CONVCHECK_U8 || t == CONVCHECK_S8 || t == CONVCHECK_S32
                                 ? double(load_integer(operand, t, i))
                                 : convcheck::load_as_double(operand, static_cast<convcheck::DataType>(t), i);
            switch (op.binary) {
                case convcheck::BinaryAlgorithm::add: v = v + b; break;
                case convcheck::BinaryAlgorithm::mul: v = v * b; break;
                case convcheck::BinaryAlgorithm::max: v = std::max(v, b); break;
                case convcheck::BinaryAlgorithm::min: v = std::min(v, b); break;
                case convcheck::BinaryAlgorithm::sub: v = v - b; break;
                case convcheck::BinaryAlgorithm::div: v = v / b; break;
            }
        }
    }
    return v;
}

// A copy of one tensor in the dense form, or none when the runner's is in it already.
struct DenseCopy {
    std::vector<unsigned char> bytes;
    std::vector<float> floats;  // a mixed case's tensor, widened
    const void* in(const convcheck::ConvDescriptor& from, const convcheck::ConvDescriptor& to, convcheck::TensorRole role,
                   const void* data) {
        if (runs_widened(from)) {
            const convcheck::DataType type =
                role == convcheck::TensorRole::src ? from.src_dtype() : from.weights_dtype();
            floats = widened(from, type, data, to, role);
            return floats.data();
        }
        if (convcheck::layout_of(from, role).strides == convcheck::layout_of(to, role).strides &&
            (role != convcheck::TensorRole::weights || from.filter_format == to.filter_format))
            return data;
        const auto elements = role == convcheck::TensorRole::src ? to.src_elements() : to.weights_elements();
        bytes.assign(static_cast<std::size_t>(elements * convcheck::size_of(to.dtype)), 0);
        convcheck::copy_tensor(from, data, to, bytes.data(), role);
        return bytes.data();
    }
};

// ABI 1.7's general output of a quantized case (quantization.h): a float dst or post-ops. The plugin computes the
// exact s32 accumulator with a QuantizedPlan whose scales are 1 (its dst the accumulator itself), then, in f32,
//   v = f32(acc) * (src_scale * weights_scale(oc)), the post-ops in order, x = v / dst_scale + dst_zero_point (oc's)
// and stores x as f32, or its nearest integer (ties to even) saturated to [dst_min, dst_max].
bool general_output(const convcheck::QuantizedDescriptor& q) { return q.float_dst || !q.conv.post_ops.empty(); }

// Why the plugin declines a quantized case of the general output, or "".
std::string general_unsupported(const convcheck::QuantizedDescriptor& q) {
    if (q.f32_bias) return "quantized convolution: the optimized plugin's quantized bias is s32 (no f32 bias)";
    if (q.float_dst && *q.float_dst != convcheck::DataType::f32)
        return "quantized convolution: the optimized plugin's float dst is f32";
    if (q.rounded_s32() && q.conv.post_ops.empty())
        return "quantized convolution: an s32 dst with scales and no post-ops; the optimized plugin's s32 dst is the "
               "accumulator";
    for (const convcheck::PostOp& op : q.conv.post_ops)
        if (!(op.kind == convcheck::PostOpKind::sum ||
              (op.kind == convcheck::PostOpKind::eltwise &&
               (op.eltwise == convcheck::EltwiseAlgorithm::relu || op.eltwise == convcheck::EltwiseAlgorithm::clip ||
                op.eltwise == convcheck::EltwiseAlgorithm::linear))))
            return "quantized convolution: the optimized plugin's post-ops are relu, clip, linear and sum";
    return "";
}

// The accumulator's descriptor: q with every scale 1, no dst zero point (per tensor or per channel), an s32 dst of its whole range, no post-ops.
convcheck::QuantizedDescriptor accumulator_of(convcheck::QuantizedDescriptor q) {
    q.dst = convcheck::IntegerType::s32, q.float_dst.reset();
    q.src_scale = q.weights_scale = q.dst_scale = 1.0f, q.per_channel_scales = false, q.channel_scales.clear();
    q.dst_zero_point = 0, q.dst_min = convcheck::lowest(q.dst), q.dst_max = convcheck::highest(q.dst);
    q.per_channel_dst_zero_points = false, q.dst_zero_points.clear();  // (src zero points, per channel too, stay)
    q.conv.post_ops.clear();
    return q;
}

// f64 is claimed so that query declines it in the plugin's words.
constexpr const char* kNoF64 =
    "the optimized plugin computes in f32 (its kernels widen f16, bf16 and fp8 into f32 registers and accumulate "
    "there): it has no f64 kernels, and an f64 case computed in f32 would lose 29 bits of every input";

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (quantization_of(*desc) != nullptr) {  // add_conv's gate checked its form
            const convcheck::runner::QuantizedCase c = convcheck::runner::quantized_from_abi(*desc);
            convcheck::validate(c.q);
            if (const std::string why = opt::why_layout_unsupported(c.q.conv); !why.empty())
                return unsupported(out, "quantized convolution: " + why);
            if (const std::string why = general_unsupported(c.q); !why.empty()) return unsupported(out, why);
            // zpt=s32 (ABI 1.8): the int16 path holds x - zero point in 16 bits
            const auto farthest = [](const std::vector<std::int32_t>& points, std::int32_t one, convcheck::IntegerType t) {
                std::int64_t most = 0;
                for (std::int64_t z : points.empty() ? std::vector<std::int32_t>{one} : points)
                    most = std::max({most, convcheck::highest(t) - z, z - convcheck::lowest(t)});
                return most;
            };
            if (farthest(c.q.src_zero_points, c.q.src_zero_point, c.q.src) > 32767 ||
                farthest(c.q.weights_zero_points, c.q.weights_zero_point, c.q.weights) > 32767)
                return unsupported(out, "quantized convolution: a zero point so far outside its tensor's type that x - zero "
                                        "point leaves the optimized plan's int16");
            return supported(out);
        }
        const convcheck::ConvDescriptor d = convcheck::runner::from_abi(*desc);
        convcheck::validate(d);
        if (d.dtype == convcheck::DataType::f64) return unsupported(out, kNoF64);
        if (d.mixed() && d.pass != convcheck::Pass::forward)
            return unsupported(out, "per-tensor dtypes on a backward pass: the optimized backward plans take one dtype");
        if (d.has_fp8() && d.pass != convcheck::Pass::forward)
            return unsupported(out, "fp8 on a backward pass: the optimized backward plans take f32, f16 and bf16");
        if (const std::string why = opt::why_too_large(dense_form(d)); !why.empty()) return unsupported(out, why);
        const opt::Path forced = instance_of(plugin).conv.forced_path;
        if (forced != opt::Path::automatic)
            if (const std::string why = opt::why_unavailable(dense_form(d), forced); !why.empty())
                return unsupported(out, why);
        return supported(out);
    });
}

// A ConvPlan packs the weights when it is built: with the weights at prepare it is built once;
// without them, at every execute. A backward pass (made by conv_execute_any, with the call's weights)
// holds a BackwardDataPlan or BackwardWeightsPlan instead, on the runner's dense buffers.
struct Plan : convcheck_conv_plan {
    Plan(const convcheck_conv_desc& desc, const PrepareInputs& inputs, const opt::Options& options)
        : convcheck_conv_plan(desc), d(convcheck::runner::from_abi(desc)), dense(dense_form(d)), options(options) {
        convcheck::validate(d);
        if (d.pass == convcheck::Pass::backward_data) {
            if (inputs.weights == nullptr) throw PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, "backward data needs the weights");
            data.emplace(d, inputs.weights, options);
        } else if (d.pass == convcheck::Pass::backward_weights) {
            weights_gradient.emplace(d, options);
        } else if (inputs.weights != nullptr) {
            DenseCopy weights;
            const std::vector<float> bias = runs_widened(d) ? widened_bias(d, inputs.bias) : std::vector<float>();
            plan.emplace(dense, weights.in(d, dense, convcheck::TensorRole::weights, inputs.weights),
                         !dense.has_bias ? nullptr : runs_widened(d) && inputs.bias ? bias.data() : inputs.bias, options);
        }
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        if (data || weights_gradient) {
            if (auto* e = check_backward_args(desc, &args)) return e;
            if (data) {
                data->execute(args.dst, args.diff_src);
                write_implementation(&args, data->implementation());
            } else {
                weights_gradient->execute(args.src, args.dst, args.diff_weights, args.diff_bias);
                write_implementation(&args, weights_gradient->implementation());
            }
            return nullptr;
        }
        if (plan) return run(*plan, args);
        DenseCopy weights;
        const std::vector<float> bias = runs_widened(d) ? widened_bias(d, args.bias) : std::vector<float>();
        return run(opt::ConvPlan(dense, weights.in(d, dense, convcheck::TensorRole::weights, args.weights),
                                 !dense.has_bias ? nullptr : runs_widened(d) && args.bias ? bias.data() : args.bias, options),
                   args);
    }
    convcheck_error* run(const opt::ConvPlan& p, const convcheck_conv_args& args) const {
        DenseCopy src;
        const void* src_data = src.in(d, dense, convcheck::TensorRole::src, args.src);
        const bool dst_moves = !d.dst_strides.empty() || runs_widened(d);
        std::vector<unsigned char> dst(dst_moves ? static_cast<std::size_t>(dense.dst_elements() * convcheck::size_of(dense.dtype)) : 0);
        p.execute(src_data, dst_moves ? dst.data() : args.dst);
        if (runs_widened(d)) {  // the f32 result (after the post-ops) rounded once to dst's type, into dst's layout
            const std::vector<std::int64_t> dense_offsets = element_offsets(dense, convcheck::TensorRole::dst);
            const float* result = reinterpret_cast<const float*>(dst.data());
            std::int64_t spatial = 1;
            for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
            convcheck::for_each_element(d, convcheck::TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
                const std::int64_t at = dense_offsets[static_cast<std::size_t>(flat)];
                const std::int64_t oc = (flat / spatial) % d.out_channels;
                double v = result[at];
                if (d.scales.present())  // src_scale * weights_scale(oc) * sum, then the bias
                    v = double(d.scales.src) * double(d.scales.weights_of(oc)) * v +
                        (d.has_bias ? convcheck::load_as_double(args.bias, d.bias_dtype(), oc) : 0.0);
                if (!d.post_ops.empty())  // dst's prior value read before this output is written
                    v = float_post_ops(d, args, v, convcheck::load_as_double(args.dst, d.dst_dtype(), offset), oc, at);
                if (d.scales.dst != 1.0f) v /= double(d.scales.dst);  // the dst scale after the post-ops
                convcheck::store_from_double(args.dst, d.dst_dtype(), offset, v);
            });
        } else if (dst_moves) {
            convcheck::copy_tensor(dense, dst.data(), d, args.dst, convcheck::TensorRole::dst);
        }
        const bool copied = dst_moves || src_data != args.src || !(d == dense);
        write_implementation(&args, std::string(p.path_name()) + (copied ? " [dense copies]" : ""));
        return nullptr;
    }
    const convcheck::ConvDescriptor d, dense;
    const opt::Options options;
    std::optional<opt::ConvPlan> plan;
    std::optional<opt::BackwardDataPlan> data;
    std::optional<opt::BackwardWeightsPlan> weights_gradient;
};

// A quantized case (ABI 1.5): read at prepare (the runner's extension is valid then only); a QuantizedPlan packs
// the weights, once with the weights at prepare, else at every execute.
struct QuantizedPlan : convcheck_conv_plan {
    QuantizedPlan(const convcheck_conv_desc& desc, const PrepareInputs& inputs, const opt::QuantizedOptions& options)
        : convcheck_conv_plan(desc), c(convcheck::runner::quantized_from_abi(desc)), general(general_output(c.q)),
          options(options) {
        if (inputs.weights != nullptr) plan.emplace(make(inputs.weights, inputs.bias));
    }
    opt::QuantizedPlan make(const void* weights, const void* bias) const {
        static const float one[] = {1.0f};
        if (general) return opt::QuantizedPlan(accumulator_of(c.q), one, weights, static_cast<const std::int32_t*>(bias), options);
        return opt::QuantizedPlan(c.q, c.weights_scales, weights, static_cast<const std::int32_t*>(bias), options);
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        const opt::QuantizedPlan& p = plan ? *plan : once.emplace(make(args.weights, args.bias));
        if (!general) {
            p.execute(args.src, args.dst);
        } else {
            const convcheck::ConvDescriptor& d = c.q.conv;
            std::vector<std::int32_t> acc(static_cast<std::size_t>(d.dst_elements()));
            p.execute(args.src, acc.data());  // dense, in dst's format: the same offsets as dst
            std::int64_t spatial = 1;
            for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
            const int32_t t = tensor_dtypes(desc).dst;
            convcheck::for_each_element(d, convcheck::TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
                const auto oc = static_cast<std::size_t>((flat / spatial) % d.out_channels);
                const float scale = c.q.src_scale * c.weights_scales[c.weights_scales.size() == 1 ? 0 : oc];
                float v = static_cast<float>(acc[static_cast<std::size_t>(offset)]) * scale;
                const float prior = t == CONVCHECK_F32 ? static_cast<const float*>(args.dst)[offset]
                                                       : static_cast<float>(load_integer(args.dst, t, offset));
                for (const convcheck::PostOp& op : d.post_ops) {
                    if (op.kind == convcheck::PostOpKind::sum) v = v + op.scale * (prior - static_cast<float>(op.zero_point));
                    else if (op.eltwise == convcheck::EltwiseAlgorithm::relu) v = v > 0.0f ? v : op.alpha * v;
                    else if (op.eltwise == convcheck::EltwiseAlgorithm::clip) v = std::min(op.beta, std::max(op.alpha, v));
                    else v = op.alpha * v + op.beta;  // linear
                }
                const std::int32_t zp = c.dst_zero_points.size() == 1 ? c.dst_zero_points[0] : c.dst_zero_points[oc];
                const float x = v / c.q.dst_scale + static_cast<float>(zp);
                if (t == CONVCHECK_F32) {
                    static_cast<float*>(args.dst)[offset] = x;
                } else {  // saturated in double, so that s32's ends are exact
                    const double clamped = std::min(std::max(double(x), double(c.q.dst_min)), double(c.q.dst_max));
                    store_integer(args.dst, t, offset, static_cast<std::int64_t>(std::nearbyint(clamped)));
                }
            });
        }
        write_implementation(&args, p.implementation() + (general ? "+general_output_f32" : ""));
        return nullptr;
    }
    const convcheck::runner::QuantizedCase c;
    const bool general;
    const opt::QuantizedOptions options;
    std::optional<opt::QuantizedPlan> plan, once;
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const PrepareInputs& inputs) {
    if (quantization_of(desc) != nullptr) return std::make_unique<QuantizedPlan>(desc, inputs, instance_of(plugin).quantized);
    return std::make_unique<Plan>(desc, inputs, instance_of(plugin).conv);
}

// The backward passes (docs/passes.md): add_backward checks the pass, the one dtype, no extension and
// the buffers; here dense OIX/XIO tensors and a forced path that applies (why_backward_unavailable).
// Executed through prepare + execute (Plan holds the backward plan).
convcheck_error* backward_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    const convcheck::ConvDescriptor d = convcheck::runner::from_abi(*desc);
    convcheck::validate(d);
    if (d.dtype == convcheck::DataType::f64) return unsupported(out, kNoF64);
    if (const std::string why = opt::why_backward_unsupported(d); !why.empty()) return unsupported(out, why);
    if (const std::string why = opt::why_backward_unavailable(d, instance_of(plugin).conv.forced_path); !why.empty())
        return unsupported(out, why);
    return supported(out);
}

convcheck_error* backward_execute(convcheck_plugin* plugin, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    return prepare(plugin, desc, PrepareInputs{args.weights, nullptr})->execute(args);
}

// Transposed convolution (docs/transposed.md): the backward data plan of the forward convolution it
// transposes, the bias around it (optimized/transposed_plan.hpp); dense OIX/XIO tensors.
convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& desc,
                                  convcheck_support* out) {
    const convcheck::TransposedDescriptor t = convcheck::runner::from_abi(desc);
    convcheck::validate(t);
    if (t.dtype == convcheck::DataType::f64) return unsupported(out, kNoF64);
    if (const std::string why = opt::why_transposed_unsupported(t); !why.empty()) return unsupported(out, why);
    convcheck::ConvDescriptor f = t.forward();
    f.pass = convcheck::Pass::backward_data;
    if (const std::string why = opt::why_backward_unavailable(f, instance_of(plugin).conv.forced_path); !why.empty())
        return unsupported(out, why);
    return supported(out);
}

convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& desc,
                                    const convcheck_conv_args& args) {
    const opt::TransposedPlan plan(convcheck::runner::from_abi(desc), args.weights, args.bias, instance_of(plugin).conv);
    plan.execute(args.src, args.dst);
    write_implementation(&args, "transposed " + plan.implementation());
    return nullptr;
}

convcheck_error* cc_query(convcheck_plugin* plugin, const convcheck_cc_desc* desc, convcheck_support* out) {
    return guarded("cc_query", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype))
            return invalid_argument("cc_desc: NULL or smaller than ABI 1.0's convcheck_cc_desc");
        const convcheck::CcDescriptor d = convcheck::runner::from_abi(*desc);
        convcheck::validate(d);
        const opt::CcMethod forced = instance_of(plugin).cc.forced_method;
        if (forced != opt::CcMethod::automatic)
            if (const std::string why = opt::why_unavailable(d, forced); !why.empty()) return unsupported(out, why);
        return supported(out);
    });
}

convcheck_error* cc_execute(convcheck_plugin* plugin, const convcheck_cc_desc* desc, const convcheck_cc_args* args) {
    return guarded("cc_execute", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype) || args == nullptr ||
            args->src == nullptr || args->dst == nullptr)
            return invalid_argument("cc_execute: NULL descriptor or buffers");
        const convcheck::CcDescriptor d = convcheck::runner::from_abi(*desc);
        const opt::CcPlan plan(d, args->theta, static_cast<const float*>(args->bias), instance_of(plugin).cc);
        plan.execute(static_cast<const float*>(args->src), static_cast<float*>(args->dst));
        write_implementation(args, "cc_" + std::string(opt::to_string(plan.method())));
        return nullptr;
    });
}

// The CC backward pass (ABI 1.4): CcBackwardPlan, the method the forward would choose (or the forced one).
convcheck_error* cc_backward_query(convcheck_plugin* plugin, const convcheck_cc_desc& desc, convcheck_support* out) {
    const convcheck::CcDescriptor d = convcheck::runner::from_abi(desc);
    convcheck::validate(d);
    const opt::CcMethod forced = instance_of(plugin).cc.forced_method;
    if (forced == opt::CcMethod::polyphase && d.kernel != convcheck::CcKernel::internal_net)
        return unsupported(out, "method=polyphase: the CC backward's polyphase method is for kernel=net only");
    if (forced != opt::CcMethod::automatic)
        if (const std::string why = opt::why_unavailable(d, forced); !why.empty()) return unsupported(out, why);
    return supported(out);
}

convcheck_error* cc_backward_execute(convcheck_plugin* plugin, const convcheck_cc_desc& desc,
                                     const convcheck_cc_backward_args& args) {
    const convcheck::CcDescriptor d = convcheck::runner::from_abi(desc);
    const opt::CcBackwardPlan plan(d, args.theta, instance_of(plugin).cc);
    plan.execute(static_cast<const float*>(args.src), static_cast<const float*>(args.diff_dst),
                 static_cast<float*>(args.diff_src), args.diff_theta, static_cast<float*>(args.diff_bias));
    write_implementation(&args, "cc_backward_" + std::string(opt::to_string(plan.method())));
    return nullptr;
}

const convcheck_api api = [] {
    convcheck_api a = basic_api(create, destroy, describe);
    takes_mixed_dtypes<PrepareTag<prepare>> = true;  // forward: widened to f32, dst rounded once (dense_form)
    add_conv<prepare>(a, conv_query);
    // ABI 1.5: QuantizedPlan; 1.7's general output (general_unsupported) and per-channel zero points on its int16 path
    add_quantized<prepare>(kQuantizedGeneralOutput | kQuantizedChannelZeroPoints | kQuantizedWeightsZeroPoints |
                           kQuantizedS32ZeroPoints);
    add_post_ops<prepare>(float_post_ops_unsupported);  // a float case's chain (ABI 1.6/1.7), widened
    // a float case's scales (ABI 1.7), every form, widened: applied in double to the f32 sum (Plan::run)
    add_scales<prepare>([](const convcheck_conv_desc&, const convcheck_scales&) { return std::string(); });
    add_backward<prepare, backward_query, backward_execute>(a);  // the backward passes beside the forward
    add_conv_transposed<transposed_query, transposed_execute>(a);
    a.cc_query = cc_query;
    a.cc_execute = cc_execute;
    add_cc_backward<cc_backward_query, cc_backward_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
