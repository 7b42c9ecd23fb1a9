// The torch CC layer: method choice, forward, and the backward through torch autograd (cc_torch.hpp).
#include "convcheck/libtorch/cc_torch.hpp"

#include <ATen/ops/cat.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <stdexcept>
#include <vector>

#include "cc_grid.hpp"
#include "cc_methods.hpp"

namespace convcheck_libtorch::cc {

std::string_view to_string(CcMethod m) {
    switch (m) {
        case CcMethod::automatic: return "automatic";
        case CcMethod::standard: return "standard";
        case CcMethod::discrete_convs: return "discrete_convs";
    }
    return "?";
}

bool parse_method(std::string_view text, CcMethod* out) {
    if (text == "standard") *out = CcMethod::standard;
    else if (text == "discrete_convs") *out = CcMethod::discrete_convs;
    else return false;
    return true;
}

std::string why_unavailable(const CcDescriptor& d, CcMethod m) {
    if (!exact_grid_fits(d))
        return "the libtorch CC computes an exact scale's grid as int64 numerators over 2p converted to double once; "
               "this layer's reach 8 (out q + (in + k) p) >= 2^53, where that conversion is no longer exact";
    if (m == CcMethod::discrete_convs && (!d.scale[0].is_rational() || !d.scale[1].is_rational()))
        return "cc_method=discrete_convs needs a rational scale on both axes (the paper's \"by discrete convs\": the "
               "grid of p/q is periodic); this layer has the real scale " +
               d.scale[d.scale[0].is_rational() ? 1 : 0].to_string();
    return "";
}

CcMethod chosen_method(const CcDescriptor& d, CcMethod forced) {
    if (forced != CcMethod::automatic) return forced;
    const std::int64_t phases = discrete_conv_phases(d);
    return phases > 0 && phases <= kMaxAutomaticPhases ? CcMethod::discrete_convs : CcMethod::standard;
}

namespace {

// The layer's output rows [row0, row0 + rows) with the bias, on the padded input.
at::Tensor layer_rows(const CcDescriptor& d, const at::Tensor& padded, const AxisWindows& h, const AxisWindows& w,
                      const CcParameters& p, CcMethod method, std::int64_t row0, std::int64_t rows) {
    at::Tensor out = method == CcMethod::discrete_convs ? discrete_convs(d, padded, h, w, p.theta)
                                                        : standard_rows(d, padded, h, w, p.theta, row0, rows);
    if (d.has_bias) out = out + p.bias.view({1, d.out_channels, 1, 1});
    return out;
}

// The output rows a method computes at a time: the standard method's memory rule (or the caller's
// rows); the discrete convolutions hold no per-pixel weights and run whole.
std::int64_t chunk_rows(const CcDescriptor& d, CcMethod method, std::int64_t rows_per_chunk) {
    if (method == CcMethod::discrete_convs) return d.output_size[0];
    return rows_per_chunk > 0 ? rows_per_chunk : standard_chunk_rows(d);
}

void check_method(const CcDescriptor& d, CcMethod method) {
    if (method == CcMethod::automatic) throw std::logic_error("cc_forward: choose the method first (chosen_method)");
    if (const std::string why = why_unavailable(d, method); !why.empty()) throw std::invalid_argument(why);
}

}  // namespace

at::Tensor cc_forward(const CcDescriptor& d, const at::Tensor& src, const CcParameters& p, CcMethod method,
                      std::int64_t rows_per_chunk) {
    check_method(d, method);
    const AxisWindows h = axis_windows(d, 0), w = axis_windows(d, 1);
    const at::Tensor padded = zero_padded(src, h, w);
    const std::int64_t OH = d.output_size[0], step = chunk_rows(d, method, rows_per_chunk);
    if (step >= OH) return layer_rows(d, padded, h, w, p, method, 0, OH);
    std::vector<at::Tensor> chunks;
    for (std::int64_t row0 = 0; row0 < OH; row0 += step)
        chunks.push_back(layer_rows(d, padded, h, w, p, method, row0, std::min(step, OH - row0)));
    return at::cat(chunks, 2);
}

CcGradients cc_backward(const CcDescriptor& d, const at::Tensor& src, const CcParameters& p, const at::Tensor& diff_dst,
                        CcMethod method, std::int64_t rows_per_chunk) {
    check_method(d, method);
    const torch::autograd::AutoGradMode grad_on(true);
    // the leaves: copies of the inputs that require their gradient
    const at::Tensor x = src.detach().clone().set_requires_grad(true);
    CcParameters leaves;
    std::vector<at::Tensor> inputs{x};
    if (p.theta.defined()) inputs.push_back(leaves.theta = p.theta.detach().clone().set_requires_grad(true));
    if (d.has_bias) inputs.push_back(leaves.bias = p.bias.detach().clone().set_requires_grad(true));
    std::vector<at::Tensor> sums(inputs.size());
    const AxisWindows h = axis_windows(d, 0), w = axis_windows(d, 1);
    const at::Tensor padded = zero_padded(x, h, w);
    // chunk by chunk, as the forward: each chunk's graph (its weights) is freed before the next is built;
    // the padding's node is shared, so the graph is retained between chunks
    const std::int64_t OH = d.output_size[0], step = chunk_rows(d, method, rows_per_chunk);
    for (std::int64_t row0 = 0; row0 < OH; row0 += step) {
        const std::int64_t rows = std::min(step, OH - row0);
        const at::Tensor out = layer_rows(d, padded, h, w, leaves, method, row0, rows);
        const auto grads = torch::autograd::grad({out}, inputs, {diff_dst.narrow(2, row0, rows)},
                                                 /*retain_graph=*/true, /*create_graph=*/false, /*allow_unused=*/true);
        for (std::size_t i = 0; i < inputs.size(); ++i)
            if (grads[i].defined()) sums[i] = sums[i].defined() ? sums[i] + grads[i] : grads[i];
    }
    // a leaf no chunk reached (an empty output) has the zero gradient
    std::size_t next = 0;
    auto take = [&] {
        const std::size_t i = next++;
        return sums[i].defined() ? sums[i] : at::zeros_like(inputs[i]);
    };
    CcGradients g;
    g.diff_src = take();
    if (p.theta.defined()) g.diff_theta = take();
    if (d.has_bias) g.diff_bias = take();
    return g;
}

namespace {

at::Tensor over_f32(const float* data, at::IntArrayRef sizes) {
    return at::from_blob(const_cast<float*>(data), sizes, at::TensorOptions().dtype(at::kFloat));
}

}  // namespace

CcMethod cc_backward_buffers(const CcDescriptor& d, CcMethod method, const float* src, const float* theta,
                             const float* diff_dst, float* diff_src, float* diff_theta, float* diff_bias) {
    const CcMethod chosen = chosen_method(d, method);
    const bool net = d.kernel == convcheck::CcKernel::internal_net;
    if (src == nullptr || diff_dst == nullptr || diff_src == nullptr || (net && (theta == nullptr || diff_theta == nullptr)) ||
        (d.has_bias && diff_bias == nullptr))
        throw std::invalid_argument("cc_backward_buffers: a buffer the layer needs is NULL");
    CcParameters p;
    if (net) p.theta = over_f32(theta, {d.theta_elements()});
    if (d.has_bias) p.bias = at::zeros({d.out_channels}, at::TensorOptions().dtype(at::kFloat));
    const CcGradients g = cc_backward(d, over_f32(src, d.src_dims()), p, over_f32(diff_dst, d.dst_dims()), chosen);
    over_f32(diff_src, d.src_dims()).copy_(g.diff_src);
    if (net) over_f32(diff_theta, {d.theta_elements()}).copy_(g.diff_theta);
    if (d.has_bias) over_f32(diff_bias, {d.out_channels}).copy_(g.diff_bias);
    return chosen;
}

}  // namespace convcheck_libtorch::cc
