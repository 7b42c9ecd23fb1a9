// The libtorch plugins' backward passes (libtorch_backward.hpp): at::convolution_backward, ATen's own backward of
// at::convolution (what autograd calls for it), with the output mask of the pass: grad_input for backward data,
// grad_weight and (with has_bias) grad_bias for backward weights. The tensor the pass does not read (src for
// backward data, weights for backward weights) is passed as zeros of its shape: ATen needs its sizes, and its values
// enter no gradient the mask asks for. The same adaptation as the forward pass: an explicit zero's gradient is
// dropped, a cropped element's is 0. On a CUDA device the runner's tensors are moved there (`.to(device)`) and the
// gradients back; on the CPU `.to` returns the tensor itself, so the libtorch plugin's tests run this very code.
#include "libtorch_backward.hpp"

#include <ATen/Context.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/zeros.h>

#include "libtorch_tensors.hpp"

namespace convcheck_libtorch {

namespace support = convcheck_plugin_support;

const char* backend_name(at::native::ConvBackend b) {
    using B = at::native::ConvBackend;
    switch (b) {
        case B::Empty: return "Empty";
        case B::Mkldnn: return "Mkldnn";
        case B::MkldnnEmpty: return "MkldnnEmpty";
        case B::NnpackSpatial: return "NnpackSpatial";
        case B::Slow2d: return "Slow2d";
        case B::Slow3d: return "Slow3d";
        case B::SlowDilated2d: return "SlowDilated2d";
        case B::SlowDilated3d: return "SlowDilated3d";
        case B::Winograd3x3Depthwise: return "Winograd3x3Depthwise";
        case B::Xnnpack2d: return "Xnnpack2d";
        case B::Cudnn: return "Cudnn";
        case B::CudaDepthwise2d: return "CudaDepthwise2d";
        case B::CudaDepthwise3d: return "CudaDepthwise3d";
        case B::CudnnTranspose: return "CudnnTranspose";
        case B::SlowTranspose2d: return "SlowTranspose2d";
        case B::SlowTranspose3d: return "SlowTranspose3d";
        default: return "other";
    }
}

at::native::ConvBackend select_backend(const at::Tensor& src, const at::Tensor& weights, at::OptionalIntArrayRef bias_sizes,
                                       const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                                       const std::vector<int64_t>& dilations, bool transposed,
                                       const std::vector<int64_t>& output_padding, int64_t groups, bool need_backward) {
#if TORCH_VERSION_MAJOR >= 2
    // ATen 2: the public overload takes SymInts, expands a 1-D case to 2-D itself, and asks for a backward when grad
    // mode is on and an input requires a gradient (tensors detached here: the caller's stay as they are)
    const at::AutoGradMode grad_mode(need_backward);
    const at::Tensor s = need_backward ? src.detach().requires_grad_(true) : src;
    const at::Tensor w = need_backward ? weights.detach().requires_grad_(true) : weights;
    const auto sym = [](const std::vector<int64_t>& v) { return c10::fromIntArrayRefSlow(v); };
    const at::OptionalSymIntArrayRef bias =
        bias_sizes ? at::OptionalSymIntArrayRef(c10::fromIntArrayRefSlow(*bias_sizes)) : at::OptionalSymIntArrayRef{};
    return at::native::select_conv_backend(s, w, std::nullopt, sym(strides), sym(pads), sym(dilations), transposed,
                                           sym(output_padding), c10::SymInt(groups), bias);
#else
    if (!need_backward) {  // the public overload, as at::convolution calls it
        const c10::optional<at::Tensor> bias =
            bias_sizes ? c10::optional<at::Tensor>(at::empty(*bias_sizes, src.options())) : c10::nullopt;
        return at::native::select_conv_backend(src, weights, bias, strides, pads, dilations, transposed, output_padding,
                                               groups);
    }
    // ATen 1: the overload with need_backward takes ConvParams, and a 1-D case as the 2-D view ATen computes
    at::native::ConvParams params{strides, pads, dilations, transposed, output_padding, static_cast<int>(groups),
                                  at::globalContext().benchmarkCuDNN(), at::globalContext().deterministicCuDNN(),
                                  at::globalContext().userEnabledCuDNN(), at::globalContext().allowTF32CuDNN()};
    if (src.dim() != 3) return at::native::select_conv_backend(src, weights, bias_sizes, true, params);
    for (auto* v : {&params.stride, &params.padding, &params.dilation, &params.output_padding})
        v->insert(v->begin(), v == &params.stride || v == &params.dilation ? 1 : 0);
    return at::native::select_conv_backend(src.unsqueeze(2), weights.unsqueeze(2), bias_sizes, true, params);
#endif
}

bool has_output_size(const convcheck_conv_desc& d) {
    for (int a = 0; a < d.rank; ++a)
        if (d.strides[a] < 1) return false;
    return true;
}

TorchArguments::TorchArguments(const convcheck_conv_desc& l) {
    src_dims = {l.batch, l.in_channels};
    dst_dims = {l.batch, l.out_channels};
    wei_dims = {l.out_channels, l.in_channels / l.groups};
    for (int a = 0; a < l.rank; ++a) {
        src_dims.push_back(l.input_size[a]);
        if (has_output_size(l)) dst_dims.push_back(support::output_size(l, a));
        wei_dims.push_back(l.kernel_size[a]);
        strides.push_back(l.strides[a]);
        dilations.push_back(l.dilations[a]);
        pads.push_back(l.pads_begin[a]);  // == pads_end[a] >= 0
    }
    no_output_padding.assign(l.rank, 0);
}

support::Adaptation plan_for(const convcheck_conv_desc& d) {
    return support::plan_adaptation(d, {d.data_format, d.filter_format, false, false, support::PadsRule::symmetric_nonnegative});
}

std::string copy_result(const at::Tensor& result, void* out, const std::vector<int64_t>& dims, const std::vector<int>& physical,
                        at::ScalarType type, const char* call, const char* tensor) {
    if (result.sizes() != at::IntArrayRef(dims) || result.scalar_type() != type)
        return std::string(" (") + call + " returned shape " + c10::str(result.sizes()) + " " +
               c10::toString(result.scalar_type()) + ", the spec's " + tensor + " is " + c10::str(at::IntArrayRef(dims)) +
               ": nothing written)";
    over(out, dims, physical, type).copy_(result.to(at::kCPU));
    return "";
}

namespace {

// The backend at::convolution_backward dispatches to: ATen's own selection with need_backward.
std::string implementation(const convcheck_conv_desc& l, const TorchArguments& g, const at::Tensor& src,
                           const at::Tensor& weights, const at::OptionalIntArrayRef bias) {
    return backend_name(select_backend(src, weights, bias, g.strides, g.pads, g.dilations, false, g.no_output_padding,
                                       l.groups, true));
}

}  // namespace

convcheck_error* backward_compute(const convcheck_conv_desc& desc, at::ScalarType type, const at::Device& device,
                                  const std::string& plugin, const convcheck_conv_args& args) {
    const support::Adaptation adaptation = plan_for(desc);
    const convcheck_conv_desc l = support::library_desc(desc, adaptation);  // the case ATen computes
    const TorchArguments g(l);
    support::LibraryBuffers buffers(desc, adaptation, args);
    const bool data_pass = support::prop_kind(desc) == CONVCHECK_BACKWARD_DATA;
    const auto options = at::TensorOptions().dtype(type).device(device);
    const at::Tensor diff_dst = over(buffers.dst(), g.dst_dims, support::activation_order(l), type).to(device);
    const at::Tensor src =
        data_pass ? at::zeros(g.src_dims, options) : over(buffers.src(), g.src_dims, support::activation_order(l), type).to(device);
    const at::Tensor weights = data_pass ? over(buffers.weights(), g.wei_dims, support::weights_order(l), type).to(device)
                                         : at::zeros(g.wei_dims, options);
    const std::vector<int64_t> bias_sizes{l.out_channels};
    const at::OptionalIntArrayRef bias = desc.has_bias && !data_pass ? at::OptionalIntArrayRef(bias_sizes) : c10::nullopt;
    const auto [diff_src, diff_weights, diff_bias] =
        at::convolution_backward(diff_dst, src, weights, bias, g.strides, g.pads, g.dilations, false, g.no_output_padding,
                                 l.groups, {data_pass, !data_pass, !data_pass && desc.has_bias});
    // As in the forward pass, a gradient of another shape than the spec's is not copied (nor returned through the
    // adaptation): nothing of it is written, and the string says why.
    std::string not_copied =
        data_pass ? copy_result(diff_src, buffers.diff_src(), g.src_dims, support::activation_order(l), type,
                                "at::convolution_backward", "diff_src")
                  : copy_result(diff_weights, buffers.diff_weights(), g.wei_dims, support::weights_order(l), type,
                                "at::convolution_backward", "diff_weights");
    if (not_copied.empty()) buffers.return_gradients();
    if (!data_pass && desc.has_bias)
        not_copied += copy_result(diff_bias, buffers.diff_bias(), bias_sizes, {0}, type, "at::convolution_backward", "diff_bias");
    support::write_implementation(&args, plugin + ":" + implementation(l, g, src, weights, bias) +
                                             support::adaptation_note(desc, adaptation) + not_copied);
    return nullptr;
}

}  // namespace convcheck_libtorch
