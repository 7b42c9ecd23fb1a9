// The libtorch plugin's tensors over runner memory and ATen's errors as the plugin's (libtorch_plugin.cpp,
// libtorch_transposed.cpp).
#pragma once

#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/from_blob.h>

#include <string>
#include <vector>

#include "convcheck/plugin_support.hpp"

namespace convcheck_libtorch {

namespace support = convcheck_plugin_support;

// A tensor over runner memory, logical dims `dims`, in the memory order `physical`. ATen's own
// storage-size check runs first, where its error can still be caught (libtorch_plugin.cpp, "invalid").
inline at::Tensor over(const void* data, const std::vector<int64_t>& dims, const std::vector<int>& physical, at::ScalarType t) {
    const std::vector<int64_t> strides = support::dense_strides(dims, physical);
    at::detail::computeStorageNbytes(dims, strides, c10::elementSize(t));
    return at::from_blob(const_cast<void*>(data), dims, strides, at::TensorOptions().dtype(t));
}

// The ATen type of a float dtype the plugins claim (f32, f16, bf16, f64).
inline at::ScalarType scalar_type_of(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F16: return at::kHalf;
        case CONVCHECK_BF16: return at::kBFloat16;
        case CONVCHECK_F64: return at::kDouble;
        default: return at::kFloat;
    }
}

// ATen's errors (TORCH_CHECK's c10::Error) as the plugin's error, in ATen's words without the C++
// backtrace.
template <typename Body>
convcheck_error* aten_errors(Body&& body) {
    try {
        return body();
    } catch (const c10::NotImplementedError& e) {
        return support::make_error(std::string("ATen refused: ") + e.what_without_backtrace(), CONVCHECK_ERROR_UNIMPLEMENTED);
    } catch (const c10::Error& e) {
        return support::make_error(std::string("ATen refused: ") + e.what_without_backtrace());
    }
}

}  // namespace convcheck_libtorch
