// Where each element of a tensor lies in memory: its dims in the descriptor's format, and one
// stride per dim (in elements). Dense (row-major in the format's order) unless the descriptor gives
// strides of its own (ConvDescriptor::src_strides and friends): permuted views (a NCX tensor whose
// memory is NXC), padded rows (a row pitch wider than the row), any tensor cut out of a larger one.
//
// The rules a stride list must keep (validate_strides, ConvError naming attribute, value, rule):
//   - one stride per dim of the tensor (rank + 2);
//   - every stride >= 1 (a negative stride walks backwards, a zero one broadcasts: both refused);
//   - no two elements share memory: sorted by stride (dims of extent 1 aside), each stride is larger
//     than the span of all smaller ones, sum (dim_j - 1) * stride_j;
//   - the span (1 + sum (dim - 1) * stride) times the element size fits 64 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

enum class TensorRole : int { src = 0, weights = 1, dst = 2 };
std::string_view to_string(TensorRole role);  // "src", "weights", "dst"
// The tensor's data type: d.src_dtype(), d.weights_dtype() or d.dst_dtype().
DataType dtype_of(const ConvDescriptor& d, TensorRole role);

// A tensor's dims and strides, both in the tensor's own format order (outermost first).
struct MemoryLayout {
    std::vector<std::int64_t> dims;
    std::vector<std::int64_t> strides;

    bool dense() const;
    // Elements from the first to one past the last: 1 + sum (dim - 1) * stride (0 for an empty tensor).
    std::int64_t span() const;
    // The element offset of the element at `index` (one coordinate per dim, format order).
    std::int64_t offset(const std::vector<std::int64_t>& index) const;
};

// Row-major strides of `dims`: the last dim has stride 1.
std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& dims);

// The tensor's layout under descriptor d: its dims (src_dims() and friends) and d's strides for it,
// or dense strides when d gives none.
MemoryLayout layout_of(const ConvDescriptor& d, TensorRole role);
// The strides d gives for `role` (empty: dense).
const std::vector<std::int64_t>& strides_of(const ConvDescriptor& d, TensorRole role);
// True when d gives non-dense strides for any tensor.
bool has_strides(const ConvDescriptor& d);

// Throws ConvError (attribute "ss", "ws" or "ds" and the stride list) for the first rule broken.
void validate_strides(const ConvDescriptor& d, TensorRole role);

// Calls fn(flat, offset) for every element in canonical order — NCX ([N][C][spatial...]) for src and
// dst, OIX ([O][I/G][spatial...]) for weights — with `flat` its index in that canonical order and
// `offset` its element offset in memory under d's format and strides.
template <typename Fn>
void for_each_element(const ConvDescriptor& d, TensorRole role, Fn fn);

// The tensor's dims and strides permuted to canonical order (NCX or OIX).
MemoryLayout canonical_layout(const ConvDescriptor& d, TensorRole role);

// Copies every element of tensor `role` from `from_data`, laid out as descriptor `from` says, to
// `to_data`, laid out as `to` says (same problem, same dtype; formats and strides may differ): the
// bytes of each element, unchanged; the gaps of `to` untouched.
void copy_tensor(const ConvDescriptor& from, const void* from_data, const ConvDescriptor& to, void* to_data,
                 TensorRole role);

// For each element offset in [0, span) of the tensor: true when no element lies there (a gap).
std::vector<bool> gap_map(const ConvDescriptor& d, TensorRole role);

// "1x2x3x4"
std::string strides_text(const std::vector<std::int64_t>& strides);

template <typename Fn>
void for_each_element(const ConvDescriptor& d, TensorRole role, Fn fn) {
    const MemoryLayout l = canonical_layout(d, role);
    const std::size_t n = l.dims.size();
    std::vector<std::int64_t> index(n, 0);
    std::int64_t total = 1;
    for (auto v : l.dims) total *= v;
    std::int64_t offset = 0;
    for (std::int64_t flat = 0; flat < total; ++flat) {
        fn(flat, offset);
        // the odometer: the innermost canonical axis turns fastest
        for (std::size_t a = n; a-- > 0;) {
            if (++index[a] < l.dims[a]) {
                offset += l.strides[a];
                break;
            }
            offset -= (l.dims[a] - 1) * l.strides[a];
            index[a] = 0;
        }
    }
}

}  // namespace convcheck
