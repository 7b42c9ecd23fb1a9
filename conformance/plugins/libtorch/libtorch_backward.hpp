// The libtorch plugins' backward passes (docs/passes.md) through at::convolution_backward, on the CPU (the libtorch
// plugin) or a CUDA device (the libtorch_cuda plugin), and the at::convolution arguments they share with the
// forward pass (libtorch_backward.cpp).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>
#include <torch/version.h>

#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_support.hpp"

namespace convcheck_libtorch {

// The name of an ATen ConvBackend, for the implementation string.
const char* backend_name(at::native::ConvBackend b);

// ATen's choice of kernel for at::convolution's arguments (at::native::select_conv_backend), need_backward: as for
// inputs that require gradients. ATen 1.x takes IntArrayRefs (and ConvParams for a backward); ATen 2.x SymInts.
at::native::ConvBackend select_backend(const at::Tensor& src, const at::Tensor& weights, at::OptionalIntArrayRef bias_sizes,
                                       const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                                       const std::vector<int64_t>& dilations, bool transposed,
                                       const std::vector<int64_t>& output_padding, int64_t groups, bool need_backward);

// The spec's output size on every axis is defined (strides >= 1); otherwise ATen decides alone.
bool has_output_size(const convcheck_conv_desc& d);

// The arguments of at::convolution (and at::convolution_backward) for the library's case `l`.
struct TorchArguments {
    explicit TorchArguments(const convcheck_conv_desc& l);
    std::vector<int64_t> src_dims, dst_dims, wei_dims, strides, dilations, pads, no_output_padding;
};

// The adaptation of a case for ATen: it takes strided tensors in either format, so only the pads it cannot express
// move.
convcheck_plugin_support::Adaptation plan_for(const convcheck_conv_desc& d);

// Copies an ATen result (on any device) into the runner's (or the adaptation's) buffer when its shape and type are
// exactly the expected ones (copy_ would broadcast anything smaller); "" then, else what ATen returned, for the
// implementation string (nothing written).
std::string copy_result(const at::Tensor& result, void* out, const std::vector<int64_t>& dims, const std::vector<int>& physical,
                        at::ScalarType type, const char* call, const char* tensor);

// Backward data or backward weights (+ bias) of `desc` in `type` on `device`: the runner's tensors moved there, the
// gradients moved back. The caller has checked that ATen can be handed the case (and that it has an output size).
// `plugin` prefixes the implementation string ("libtorch", "libtorch_cuda:cuda:0").
convcheck_error* backward_compute(const convcheck_conv_desc& desc, at::ScalarType type, const at::Device& device,
                                  const std::string& plugin, const convcheck_conv_args& args);

}  // namespace convcheck_libtorch
