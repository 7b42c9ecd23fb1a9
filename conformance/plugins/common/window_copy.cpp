#include "convcheck/adaptation/window_copy.hpp"

#include <cstring>
#include <stdexcept>

#include "convcheck/plugin_support.hpp"

namespace convcheck_plugin_support {

void copy_window(const WindowCopy& c) {
    const size_t rank = c.to_layout.dims.size();
    if (c.from_layout.dims.size() != rank || c.from_layout.physical.size() != rank || c.to_layout.physical.size() != rank ||
        c.offset.size() != rank || (!c.step.empty() && c.step.size() != rank))
        throw std::invalid_argument("copy_window: the layouts and the offset differ in rank");
    const std::vector<int64_t> from_strides = dense_strides(c.from_layout.dims, c.from_layout.physical);
    int64_t total = 1;
    for (int64_t d : c.to_layout.dims) total *= d;
    const auto* from = static_cast<const unsigned char*>(c.from);
    auto* to = static_cast<unsigned char*>(c.to);
    // Walk `to` in its own memory order, so its element n is simply at n; `index` is its logical index.
    std::vector<int64_t> index(rank, 0);
    for (int64_t n = 0; n < total; ++n) {
        int64_t at = 0;
        bool inside = true;
        for (size_t a = 0; a < rank && inside; ++a) {
            const int64_t i = index[a] * (c.step.empty() ? 1 : c.step[a]) + c.offset[a];
            inside = i >= 0 && i < c.from_layout.dims[a];
            at += i * from_strides[a];
        }
        if (inside) std::memcpy(to + n * c.element_bytes, from + at * c.element_bytes, c.element_bytes);
        else std::memset(to + n * c.element_bytes, 0, c.element_bytes);
        for (auto axis = c.to_layout.physical.rbegin(); axis != c.to_layout.physical.rend(); ++axis) {
            if (++index[*axis] < c.to_layout.dims[*axis]) break;
            index[*axis] = 0;
        }
    }
}

}  // namespace convcheck_plugin_support
