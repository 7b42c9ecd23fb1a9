// Internal: ONNX's own wording, shared by Conv (onnx.cpp) and ConvTranspose (onnx_transposed.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference::dialects::onnx::detail {

// `rank` values, or empty (every axis `fallback`); otherwise "Attribute <name> has incorrect length".
std::vector<std::int64_t> per_axis(const std::string& name, const std::vector<std::int64_t>& v, int rank,
                                   std::int64_t fallback);

// The pads attribute's values: [x1_begin, x2_begin, ..., x1_end, x2_end, ...].
std::vector<std::int64_t> pads_list(const SpatialDims& begin, const SpatialDims& end, int rank);

}  // namespace convcheck::reference::dialects::onnx::detail
