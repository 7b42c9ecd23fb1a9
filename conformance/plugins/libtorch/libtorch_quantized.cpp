// The libtorch plugin's quantized convolution (libtorch_quantized.hpp): the ops of PyTorch's quantized models,
// quantized::convNd_prepack then quantized::conv1d / conv2d / conv3d (or their _relu forms), called through the
// dispatcher as TorchScript calls them, on the QNNPACK engine (Debian's libtorch 1.13 has qnnpack and onednn, no
// fbgemm: torch.backends.quantized.supported_engines). The translation (PyTorch 1.13, aten/src/ATen/native/
// quantized/cpu/qconv.cpp, PackedConvWeightsQnnp::apply):
//   types       src quint8 (QNNPACK's own kernels) or qint8 (PyTorch sends a 1-D or 2-D qint8 convolution to
//               XNNPACK's qs8/qc8 operators, apply_impl_xnnp); weights qint8 (QNNPACK adds 128 to them and to
//               their zero points); dst the src's type (the op returns the activation's type). No s32 dst.
//   zero points the tensors' own: src per tensor (QNNPACK's padding buffer holds it, so padding taps add 0), weights
//               per tensor (per channel when the scales are: the same value in each), or per output channel
//               (ABI 1.8: per_channel_affine, each channel's own, with the scale per tensor repeated where it is
//               one; quint8 src only), dst per tensor.
//   scales      the weights per tensor (per_tensor_affine) or per output channel (per_channel_affine, axis 0);
//               QNNPACK forms M(oc) = f32(src_scale * weights_scale(oc) / dst_scale) (generate_requantization_scales).
//   bias        PyTorch takes a float bias and quantizes it itself at each new input scale
//               (quant_utils::QuantizeBias: scale src_scale * weights_scale(oc), zero point 0, int32). The plugin
//               gives it the float bias that this very function quantizes to the case's int32 bias, and checks it
//               does (float_bias below); a bias without one is refused with its value.
//   range       the whole of dst's range: quantized::convNd; [dst_zero_point, max]: quantized::convNd_relu
//               (activationLimits(RELU) clamps at the zero point); any other [dst_min, dst_max]: quantized::convNd
//               then at::clamp of its quantized result (the quantized clamp kernel: the bounds, given as real
//               values (bound - zero point) * dst_scale, quantized back with the dst's own scale, then min and max
//               of the integers; |bound - zero point| <= 255 comes back exactly from f32), as PyTorch's quantized
//               ReLU6 / Hardtanh after a convolution. The clamp is given the result in contiguous (NCHW) memory:
//               PyTorch 1.13's clamp of a channels-last quint8 tensor (which convNd returns) under QNNPACK,
//               qnnpack_clamp, writes the input's channels-last order into a contiguous output and scrambles the
//               values (docs/backends.md, finding TQ1).
//   rounding    QNNPACK's q8conv kernels convert f32(acc) * M(oc) with round-to-nearest-even (_mm_cvtps_epi32)
//               and add the dst zero point after rounding, saturating; XNNPACK's qs8 fp32 kernels the same: the
//               plugin declares CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32 (measured: docs/backends.md).
//   pads        convNd_prepack takes one non-negative padding per axis, applied on both sides: the equal,
//               non-negative part of the pads goes there, and the rest is done on the integers before PyTorch sees
//               them (the src copied into a tensor of the padded size filled with the src zero point, the padding's
//               value; cropped where a pad is negative). The implementation string says so ("[zero-point padded]",
//               "[cropped]").
#include "libtorch_quantized.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/native/quantized/cpu/QuantUtils.h>
#include <ATen/ops/_make_per_channel_quantized_tensor.h>
#include <ATen/ops/_make_per_tensor_quantized_tensor.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/plugin_quantized.hpp"
#include "libtorch_tensors.hpp"

namespace convcheck_libtorch {

namespace {

namespace support = convcheck_plugin_support;

at::ScalarType integer_type(int32_t dtype) { return dtype == CONVCHECK_U8 ? at::kByte : at::kChar; }
int32_t lowest(int32_t dtype) { return dtype == CONVCHECK_U8 ? 0 : -128; }
int32_t highest(int32_t dtype) { return dtype == CONVCHECK_U8 ? 255 : 127; }
const char* torch_type(int32_t dtype) { return dtype == CONVCHECK_U8 ? "quint8" : dtype == CONVCHECK_S8 ? "qint8" : "int32"; }

bool whole_range(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    return q.dst_min == lowest(d.dst_dtype) && q.dst_max == highest(d.dst_dtype);
}
// quantized::convNd_relu when the range is ReLU's, [zero point, max], and not the whole range.
bool relu_fused(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    return !whole_range(d, q) && q.dst_min == q.dst_zero_point && q.dst_max == highest(d.dst_dtype);
}
// quantized::convNd then at::clamp: any other range.
bool clamped(const convcheck_conv_desc& d, const convcheck_quantization& q) { return !whole_range(d, q) && !relu_fused(d, q); }

// Why the translation does not take the case, or "".
std::string untaken(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    if (const std::string why = support::dense_only(d, "libtorch"); !why.empty()) return why;
    if (d.filter_format != CONVCHECK_OIX && d.filter_format != CONVCHECK_XIO)
        return "the libtorch plugin describes OIX and XIO weights only";
    if (d.rank < 1 || d.rank > 3) return "PyTorch's quantized convolution has spatial ranks 1-3 (quantized::conv1d, conv2d, conv3d)";
    if (d.weights_dtype != CONVCHECK_S8)
        return "PyTorch's quantized convolution takes qint8 weights: quantized::conv2d_prepack of quint8 weights raises "
               "\"expected scalar type QInt8 but found QUInt8\"";
    if (d.dst_dtype != d.src_dtype)
        return std::string("PyTorch's quantized::conv returns a tensor of the activation's type: a ") + torch_type(d.src_dtype) +
               " src gives a " + torch_type(d.src_dtype) + " dst, not " + torch_type(d.dst_dtype) +
               (d.dst_dtype == CONVCHECK_S32 ? " (it has no int32 output)" : "");
    if (d.src_dtype == CONVCHECK_S8 && d.rank == 3)
        return "PyTorch sends qint8 activations to XNNPACK, which it does not use in 3-D: quantized::conv3d raises "
               "\"quantized::conv (xnnpack): Unsupported conv config for dtype KQInt8\"";
    if (d.src_dtype == CONVCHECK_S8 && support::per_channel_weights_zero_points(q))
        return "PyTorch's XNNPACK path (qint8 activations) takes no weights zero point: per channel it ignores it "
               "(measured), not one weights zero point per output channel";
    if (d.src_dtype == CONVCHECK_S8 && q.weights_zero_point != 0)
        return "PyTorch's XNNPACK path (qint8 activations) takes no weights zero point: per tensor it raises \"XNNPACK "
               "Q[SC]8 conv kernels expects kernel zero point to be zero\", per channel it ignores it (measured), not "
               "weights_zero_point " + std::to_string(q.weights_zero_point);
    for (int a = 0; a < d.rank; ++a)
        if (d.input_size[a] + d.pads_begin[a] + d.pads_end[a] < 1)
            return "the padded input is empty on axis " + std::to_string(a) + ": the libtorch plugin cannot hand it to PyTorch";
    return "";
}

// One op of the quantized namespace, called boxed through the dispatcher (as TorchScript calls it).
c10::IValue call(const char* name, const char* overload, torch::jit::Stack stack) {
    const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
    op.callBoxed(&stack);
    return std::move(stack.at(0));
}

std::string spatial_name(const convcheck_conv_desc& d) { return "conv" + std::to_string(d.rank) + "d"; }

// The case's shapes and the convNd_prepack arguments: pads the equal, non-negative part of each axis's pads;
// extra_begin / extra_end the rest (negative: a crop), applied to the src's integers (padded_src).
struct Geometry {
    explicit Geometry(const convcheck_conv_desc& d) {
        src_dims = lib_src_dims = {d.batch, d.in_channels};
        dst_dims = {d.batch, d.out_channels};
        wei_dims = {d.out_channels, d.in_channels / d.groups};
        for (int a = 0; a < d.rank; ++a) {
            const int64_t common = std::max<int64_t>(0, std::min(d.pads_begin[a], d.pads_end[a]));
            src_dims.push_back(d.input_size[a]);
            extra_begin.push_back(d.pads_begin[a] - common);
            extra_end.push_back(d.pads_end[a] - common);
            lib_src_dims.push_back(d.input_size[a] + extra_begin.back() + extra_end.back());
            dst_dims.push_back(support::output_size(d, a));
            wei_dims.push_back(d.kernel_size[a]);
            strides.push_back(d.strides[a]);
            pads.push_back(common);
            dilations.push_back(d.dilations[a]);
        }
    }
    bool padded() const { return std::any_of(extra_begin.begin(), extra_begin.end(), [](int64_t e) { return e > 0; }) ||
                                 std::any_of(extra_end.begin(), extra_end.end(), [](int64_t e) { return e > 0; }); }
    bool cropped() const { return std::any_of(extra_begin.begin(), extra_begin.end(), [](int64_t e) { return e < 0; }) ||
                                  std::any_of(extra_end.begin(), extra_end.end(), [](int64_t e) { return e < 0; }); }
    bool moved() const { return padded() || cropped(); }
    std::string note() const {
        if (!moved()) return "";
        return padded() && cropped() ? " [cropped, zero-point padded]" : padded() ? " [zero-point padded]" : " [cropped]";
    }
    std::vector<int64_t> src_dims, lib_src_dims, dst_dims, wei_dims, strides, pads, dilations, extra_begin, extra_end;
};

// The src integers as PyTorch takes them: with the pads convNd_prepack cannot take applied, the padding holding
// the src zero point.
at::Tensor padded_src(const Geometry& g, const at::Tensor& src, int32_t zero_point) {
    if (!g.moved()) return src;
    at::Tensor out = at::full(g.lib_src_dims, zero_point, at::TensorOptions().dtype(src.scalar_type()));
    at::Tensor from = src, to = out;
    for (std::size_t a = 0; a < g.extra_begin.size(); ++a) {
        const int64_t axis = static_cast<int64_t>(a) + 2, crop_begin = std::max<int64_t>(0, -g.extra_begin[a]);
        const int64_t length = g.src_dims[axis] - crop_begin - std::max<int64_t>(0, -g.extra_end[a]);
        if (length <= 0) return out;  // no element of the input is read
        from = from.narrow(axis, crop_begin, length);
        to = to.narrow(axis, std::max<int64_t>(0, g.extra_begin[a]), length);
    }
    to.copy_(from);
    return out;
}

// The qint8 weights tensor: per_tensor_affine, or per_channel_affine on axis 0 (with the zero point in each channel).
at::Tensor quantized_weights(const convcheck_conv_desc& d, const convcheck_quantization& q, const Geometry& g, const void* data) {
    const at::Tensor w = over(data, g.wei_dims, support::weights_order(d), at::kChar);
    const bool zero_points = support::per_channel_weights_zero_points(q);  // ABI 1.8: one per output channel
    if (q.weights_scale_count == 1 && !zero_points)
        return at::_make_per_tensor_quantized_tensor(w, q.weights_scales[0], q.weights_zero_point);
    std::vector<double> scales;
    std::vector<int64_t> points;
    for (int64_t oc = 0; oc < d.out_channels; ++oc) {
        scales.push_back(support::weights_scale(q, oc));
        points.push_back(support::weights_zero_point(q, oc));
    }
    return at::_make_per_channel_quantized_tensor(w, at::tensor(scales, at::kDouble), at::tensor(points, at::kLong), 0);
}

// The float bias that PyTorch quantizes to the case's int32 bias: quantized::convNd quantizes its float bias with
// quant_utils::QuantizeBias (scale src_scale * weights_scale(oc), f32 arithmetic), so each value starts at the
// f32 nearest b * scale and moves by one f32 step towards b until that very function gives b.
at::Tensor float_bias(const convcheck_conv_desc& d, const convcheck_quantization& q, const at::Tensor& weights,
                      const int32_t* bias) {
    const bool per_channel = q.weights_scale_count != 1 || support::per_channel_weights_zero_points(q);  // the tensor's qscheme
    std::vector<float> values;
    for (int64_t oc = 0; oc < d.out_channels; ++oc)
        values.push_back(static_cast<float>(double(bias[oc]) * (double(support::weights_scale(q, oc)) * double(q.src_scale))));
    at::Tensor result = at::tensor(values, at::kFloat);
    for (int step = 0; step <= 16; ++step) {
        const at::Tensor quantized = quant_utils::QuantizeBias(per_channel, result, weights, q.src_scale).int_repr();
        const int32_t* got = quantized.data_ptr<int32_t>();
        float* f = result.data_ptr<float>();
        int64_t wrong = -1;
        for (int64_t oc = 0; oc < d.out_channels; ++oc) {
            if (got[oc] == bias[oc]) continue;
            wrong = oc;
            f[oc] = std::nextafter(f[oc], got[oc] < bias[oc] ? std::numeric_limits<float>::infinity()
                                                              : -std::numeric_limits<float>::infinity());
        }
        if (wrong < 0) return result;
        if (step == 16)
            throw support::PluginError(
                CONVCHECK_ERROR_UNIMPLEMENTED,
                "PyTorch takes a float bias and quantizes it itself (quant_utils::QuantizeBias, in f32): no float bias "
                "near " + std::to_string(bias[wrong]) + " * " + std::to_string(double(support::weights_scale(q, wrong)) * q.src_scale) +
                    " quantizes to output channel " + std::to_string(wrong) + "'s int32 bias " + std::to_string(bias[wrong]));
    }
    return result;
}

// quantized::convNd_prepack of the case's weights and bias (PyTorch's refusal as the plugin's, UNIMPLEMENTED).
c10::IValue prepack(const convcheck_conv_desc& d, const convcheck_quantization& q, const Geometry& g, const void* weights,
                    const void* bias) {
    try {
        const at::Tensor w = weights != nullptr ? quantized_weights(d, q, g, weights)
                                                : quantized_weights(d, q, g, at::zeros(g.wei_dims, at::kChar).data_ptr());
        const c10::IValue b = bias != nullptr ? c10::IValue(float_bias(d, q, w, static_cast<const int32_t*>(bias))) : c10::IValue();
        return call(("quantized::" + spatial_name(d) + "_prepack").c_str(), "",
                    {w, b, g.strides, g.pads, g.dilations, d.groups});
    } catch (const c10::Error& e) {
        throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, std::string("PyTorch refused: ") + e.what_without_backtrace());
    }
}

struct QuantizedPrepared : convcheck_conv_plan {
    QuantizedPrepared(int num_threads, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), num_threads(num_threads), quantization(*support::quantization_of(desc)), g(desc) {
        if (const std::string why = untaken(desc, quantization.q); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        at::globalContext().setQEngine(at::QEngine::QNNPACK);
        if (inputs.weights != nullptr) packed = prepack(desc, quantization.q, g, inputs.weights, desc.has_bias ? inputs.bias : nullptr);
    }

    convcheck_error* execute(const convcheck_conv_args& args) override {
        return aten_errors([&] { return run(args); });
    }

    convcheck_error* run(const convcheck_conv_args& args) {
        // QNNPACK and XNNPACK run on caffe2's pthreadpool, which at::set_num_threads sizes (once per process here).
        static int threads_set = 0;
        if (num_threads > 0 && threads_set != num_threads) at::set_num_threads(threads_set = num_threads);
        const convcheck_quantization& q = quantization.q;
        const at::ScalarType type = integer_type(desc.src_dtype);
        const at::Tensor src = at::_make_per_tensor_quantized_tensor(
            padded_src(g, over(args.src, g.src_dims, support::activation_order(desc), type), q.src_zero_point), q.src_scale,
            q.src_zero_point);
        const c10::IValue weights = packed ? *packed : prepack(desc, q, g, args.weights, desc.has_bias ? args.bias : nullptr);
        const bool relu = relu_fused(desc, q);
        const std::string op = "quantized::" + spatial_name(desc) + (relu ? "_relu" : "");
        at::Tensor result =
            call(op.c_str(), desc.rank == 1 ? "" : "new", {src, weights, double(q.dst_scale), int64_t{q.dst_zero_point}}).toTensor();
        std::string implementation = "libtorch:" + op + (desc.src_dtype == CONVCHECK_U8 ? " (qnnpack)" : " (qnnpack engine: xnnpack qs8)") + g.note();
        if (clamped(desc, q)) {
            const auto real = [&](int32_t bound) { return double(bound - q.dst_zero_point) * double(q.dst_scale); };
            result = at::clamp(result.contiguous(), real(q.dst_min), real(q.dst_max));  // contiguous: finding TQ1
            implementation += " + at::clamp";
        }
        if (result.sizes() != at::IntArrayRef(g.dst_dims) || result.scalar_type() != c10::toQIntType(type)) {
            implementation += " (returned shape " + c10::str(result.sizes()) + " " + c10::toString(result.scalar_type()) +
                              ", the spec's dst is " + c10::str(at::IntArrayRef(g.dst_dims)) + ": nothing written)";
        } else {
            over(args.dst, g.dst_dims, support::activation_order(desc), type).copy_(result.int_repr());
        }
        support::write_implementation(&args, implementation);
        return nullptr;
    }

    const int num_threads;
    const support::QuantizationCopy quantization;  // the runner's extension is valid during prepare only
    const Geometry g;
    std::optional<c10::IValue> packed;  // the prepacked weights and bias, when they came with prepare
};

}  // namespace

convcheck_error* quantized_query(const convcheck_conv_desc& desc, convcheck_support* out) {
    const convcheck_quantization& q = *support::quantization_of(desc);
    if (const std::string why = untaken(desc, q); !why.empty()) return support::unsupported(out, why);
    at::globalContext().setQEngine(at::QEngine::QNNPACK);
    try {
        prepack(desc, q, Geometry(desc), nullptr, nullptr);  // PyTorch's own checks of the shapes
    } catch (const support::PluginError& e) {
        return support::unsupported(out, e.what());
    }
    return support::supported(out);
}

std::unique_ptr<convcheck_conv_plan> quantized_plan(int num_threads, const convcheck_conv_desc& desc,
                                                    const support::PrepareInputs& inputs) {
    return std::make_unique<QuantizedPrepared>(num_threads, desc, inputs);
}

}  // namespace convcheck_libtorch
