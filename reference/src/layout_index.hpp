// Internal: where an element of a tensor lies in a buffer of the descriptor's own format. The layout
// edges (layout.cpp) and the one-output reference (convolution_output.cpp) share these two formulas.
#pragma once

#include <cstdint>

#include "descriptor.hpp"

namespace convcheck::reference::detail {

// Index of (n, c, x) in an activation buffer of format `format`, x the flat spatial index.
inline std::int64_t activation_index(DataFormat format, std::int64_t n, std::int64_t c, std::int64_t x,
                                     std::int64_t channels, std::int64_t spatial) {
    return format == DataFormat::ncx ? (n * channels + c) * spatial + x : (n * spatial + x) * channels + c;
}

// Index of (o, i, k) in a weights buffer of format `format`, k the flat kernel index.
inline std::int64_t weights_index(FilterFormat format, std::int64_t o, std::int64_t i, std::int64_t k,
                                  std::int64_t out_channels, std::int64_t in_per_group, std::int64_t kernel) {
    return format == FilterFormat::oix ? (o * in_per_group + i) * kernel + k : (k * in_per_group + i) * out_channels + o;
}

}  // namespace convcheck::reference::detail
