// Internal: PyTorch's own wording, shared by its convolution (pytorch.cpp) and its transposed
// convolution (pytorch_transposed.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace convcheck::reference::dialects::pytorch::detail {

// "[1, 2, 3]", as Python prints a list.
std::string python_list(const std::vector<std::int64_t>& v);
// One value or `rank` values; otherwise ATen's "expected stride to be a single integer value or a list
// of 2 values to match the convolution dimensions, but got stride=[1, 2, 3]" (refused).
std::vector<std::int64_t> expand(const char* name, const std::vector<std::int64_t>& v, int rank, std::int64_t fallback);
// "2 x 4", as ATen prints sizes.
std::string times(const std::vector<std::int64_t>& v);
// The shape keys (dialect.hpp) with the module's own name for the kernel: k or kernel_size, not both.
ConvShapes read_module_shapes(dialects::detail::Reader& reader, const AttributeSet& attributes);

}  // namespace convcheck::reference::dialects::pytorch::detail
