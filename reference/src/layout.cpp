// The edges of the reference: dtype widening, layout reorders, and the rounding of the exact
// result to the output type. No arithmetic of the convolution happens here. Each tensor is read and
// written in its own data type (src_dtype() .. dst_dtype(): a backward pass's gradients take the type of
// the tensor they are the gradient of).
#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/core/memory_layout.hpp"

namespace convcheck::reference {

// Every reorder walks the tensor in canonical order (NCX, OIX) and reads or writes the element
// where the descriptor's format and strides put it (core/include/convcheck/core/memory_layout.hpp): a strided tensor's
// gaps are never read and never written. An f32 tensor laid out densely in canonical order (element i at
// offset i) is converted in one loop: the same conversions, without the walk's odometer and a dtype switch per element.

bool dense_canonical_f32(const ConvDescriptor& d, TensorRole role) {
    if (dtype_of(d, role) != DataType::f32) return false;
    const MemoryLayout l = canonical_layout(d, role);
    return l.strides == dense_strides(l.dims);
}

std::vector<double> src_to_ncx(const ConvDescriptor& d, const void* src) {
    std::vector<double> out(static_cast<std::size_t>(d.src_elements()));
    for_each_element(d, TensorRole::src, [&](std::int64_t i, std::int64_t at) { out[i] = load_as_double(src, d.src_dtype(), at); });
    return out;
}

std::vector<double> dst_to_ncx(const ConvDescriptor& d, const void* dst) {
    std::vector<double> out(static_cast<std::size_t>(d.dst_elements()));
    if (dense_canonical_f32(d, TensorRole::dst)) {
        const float* values = static_cast<const float*>(dst);
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = values[i];
        return out;
    }
    for_each_element(d, TensorRole::dst, [&](std::int64_t i, std::int64_t at) { out[i] = load_as_double(dst, d.dst_dtype(), at); });
    return out;
}

void ncx_to_src(const ConvDescriptor& d, std::span<const double> src_ncx, void* src) {
    if (dense_canonical_f32(d, TensorRole::src)) {
        float* values = static_cast<float*>(src);
        for (std::size_t i = 0; i < src_ncx.size(); ++i) values[i] = static_cast<float>(src_ncx[i]);
        return;
    }
    for_each_element(d, TensorRole::src, [&](std::int64_t i, std::int64_t at) { store_from_double(src, d.src_dtype(), at, src_ncx[i]); });
}

std::vector<double> weights_to_oix(const ConvDescriptor& d, const void* weights) {
    std::vector<double> out(static_cast<std::size_t>(d.weights_elements()));
    for_each_element(d, TensorRole::weights,
                     [&](std::int64_t i, std::int64_t at) { out[i] = load_as_double(weights, d.weights_dtype(), at); });
    return out;
}

void oix_to_weights(const ConvDescriptor& d, std::span<const double> weights_oix, void* weights) {
    for_each_element(d, TensorRole::weights,
                     [&](std::int64_t i, std::int64_t at) { store_from_double(weights, d.weights_dtype(), at, weights_oix[i]); });
}

std::vector<double> bias_to_double(const ConvDescriptor& d, const void* bias) {
    std::vector<double> out;
    if (!d.has_bias) return out;
    out.resize(d.out_channels);
    for (std::int64_t o = 0; o < d.out_channels; ++o) out[o] = load_as_double(bias, d.bias_dtype(), o);
    return out;
}

void round_dst_to_output(const ConvDescriptor& d, std::span<const double> dst_ncx, void* dst) {
    // store_from_double rounds once, to nearest even, straight from double
    for_each_element(d, TensorRole::dst, [&](std::int64_t i, std::int64_t at) { store_from_double(dst, d.dst_dtype(), at, dst_ncx[i]); });
}

}  // namespace convcheck::reference
