// The one data-movement primitive of the backend plugins' adaptations: copy a window of a dense
// tensor into another dense tensor of the same rank, possibly with another memory order.
// Reorders (NCX <-> NXC, OIX <-> XIO, a backend's own weights order), crops (the window starts
// inside the input) and explicit zero padding (the window reaches outside it) are all this copy.
// Elements are moved as bytes: no arithmetic, no dtype conversion, so the copy is exact in every
// dtype (and keeps NaN payloads and signed zeros).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace convcheck_plugin_support {

// A dense tensor: its logical dims, and the memory order of those dims (outermost first; each
// entry an index into dims). E.g. NXC activations: dims {N, C, H, W}, physical {0, 2, 3, 1}.
struct DenseLayout {
    std::vector<int64_t> dims;
    std::vector<int> physical;
};

struct WindowCopy {
    const void* from = nullptr;
    DenseLayout from_layout;
    void* to = nullptr;
    DenseLayout to_layout;
    // Element i (logical index vector) of `to` is element i * step + offset of `from` (step empty:
    // 1 on every axis); an index outside `from` reads as zero bytes (+0.0 in f32, f16 and bf16).
    std::vector<int64_t> offset;
    size_t element_bytes = 4;
    std::vector<int64_t> step;
};

// Throws std::invalid_argument when the two layouts and the offset do not have the same rank.
void copy_window(const WindowCopy& copy);

}  // namespace convcheck_plugin_support
