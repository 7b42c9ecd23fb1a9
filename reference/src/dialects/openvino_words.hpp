// Internal: OpenVINO's own wording, shared by Convolution-1 (openvino.cpp) and
// ConvolutionBackpropData-1 (openvino_transposed.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace convcheck::reference::dialects::openvino::detail {

// ov::Strides as OpenVINO prints it in its messages: "Strides{1, 0}".
inline std::string strides_text(const std::vector<std::int64_t>& v) {
    std::string s = "Strides{";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "}";
}

}  // namespace convcheck::reference::dialects::openvino::detail
