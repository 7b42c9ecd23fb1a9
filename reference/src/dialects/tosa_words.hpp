// Internal: TOSA's own names and rule texts, shared by CONV2D/CONV3D/DEPTHWISE_CONV2D (tosa.cpp) and
// TRANSPOSE_CONV2D (tosa_transposed.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace convcheck::reference::dialects::tosa::detail {

// The spec's names per spatial axis, outermost first.
struct AxisNames {
    std::string letter;                  // stride_<letter>, dilation_<letter>: d, y, x
    std::string size;                    // I<size>, K<size>, O<size>: D, H, W
    std::string pad_begin, pad_end;      // pad_d0 / pad_d1, pad_top / pad_bottom, pad_left / pad_right
};
std::vector<AxisNames> axis_names(int rank);

// "ERROR_IF(stride_y < 1 || stride_x < 1)" for the rank's axes.
std::string any_below(const std::vector<AxisNames>& names, const std::string& prefix, const char* bound);

// `count` values, or empty (every value `fallback`); otherwise refused in convcheck's words
// ("the attribute has shape <shape>").
std::vector<std::int64_t> per_axis(const std::string& name, const std::vector<std::int64_t>& v, int count,
                                   std::int64_t fallback, const std::string& shape);

}  // namespace convcheck::reference::dialects::tosa::detail
