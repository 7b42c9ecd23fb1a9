// The memory layout of a plugin's tensors, for plugin authors (installed beside plugin.h and
// plugin_support.hpp, which includes it; C++17): the dense strides of a data or filter format and
// whether the caller gave ABI 1.2 memory strides. Needs only plugin.h and the standard library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/plugin.h"

namespace convcheck_plugin_support {

// Strides (in elements) of a dense buffer whose dims are listed logically in `dims` and laid out
// in memory in the order `physical` (outermost first; each entry an index into dims).
inline std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims, const std::vector<int>& physical) {
    std::vector<int64_t> strides(dims.size());
    int64_t step = 1;
    for (auto it = physical.rbegin(); it != physical.rend(); ++it) {
        strides[*it] = step;
        step *= dims[*it];
    }
    return strides;
}

// Memory order of logical {N, C, spatial...} for the runner's data format: NCX as listed, NXC
// with C last.
inline std::vector<int> activation_order(const convcheck_conv_desc& d) {
    std::vector<int> physical{0};
    if (d.data_format == CONVCHECK_NCX) physical.push_back(1);
    for (int a = 0; a < d.rank; ++a) physical.push_back(2 + a);
    if (d.data_format == CONVCHECK_NXC) physical.push_back(1);
    return physical;
}

// Memory order of logical {O, I/G, k...} for the runner's filter format: OIX as listed, XIO as
// [k...][I/G][O], OXI (ABI 1.2) as [O][k...][I/G].
inline std::vector<int> weights_order(const convcheck_conv_desc& d) {
    std::vector<int> physical;
    if (d.filter_format == CONVCHECK_OIX) {
        for (int i = 0; i < d.rank + 2; ++i) physical.push_back(i);
    } else if (d.filter_format == CONVCHECK_OXI) {
        physical.push_back(0);
        for (int a = 0; a < d.rank; ++a) physical.push_back(2 + a);
        physical.push_back(1);
    } else {
        for (int a = 0; a < d.rank; ++a) physical.push_back(2 + a);
        physical.push_back(1);
        physical.push_back(0);
    }
    return physical;
}

// ABI 1.2 memory layout: true when the descriptor gives strides for any tensor (a non-zero entry).
inline bool has_strides(const convcheck_conv_desc& d) {
    if (d.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, dst_strides)) return false;
    for (int i = 0; i < 5; ++i)
        if (d.src_strides[i] != 0 || d.weights_strides[i] != 0 || d.dst_strides[i] != 0) return true;
    return false;
}

// Why a plugin that takes dense tensors only declines `d` ("" when d is dense): the runner sends
// strides only to a plugin that claims them (plugin_info.strided_tensors), so this answers a caller
// that did not ask first.
inline std::string dense_only(const convcheck_conv_desc& d, const char* plugin) {
    if (!has_strides(d)) return "";
    return std::string("the ") + plugin + " plugin takes dense tensors only (no memory strides)";
}

}  // namespace convcheck_plugin_support
