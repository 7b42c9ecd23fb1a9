#include "convcheck/core/memory_layout.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace convcheck {

std::string_view to_string(TensorRole role) {
    switch (role) {
        case TensorRole::src: return "src";
        case TensorRole::weights: return "weights";
        case TensorRole::dst: return "dst";
    }
    return "?";
}

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& dims) {
    std::vector<std::int64_t> s(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
    return s;
}

bool MemoryLayout::dense() const {
    const auto d = dense_strides(dims);
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i] > 1 && strides[i] != d[i]) return false;
    return true;
}

std::int64_t MemoryLayout::span() const {
    std::int64_t last = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0) return 0;
        last += (dims[i] - 1) * strides[i];
    }
    return last + 1;
}

std::int64_t MemoryLayout::offset(const std::vector<std::int64_t>& index) const {
    std::int64_t at = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) at += index[i] * strides[i];
    return at;
}

const std::vector<std::int64_t>& strides_of(const ConvDescriptor& d, TensorRole role) {
    switch (role) {
        case TensorRole::src: return d.src_strides;
        case TensorRole::weights: return d.weights_strides;
        case TensorRole::dst: break;
    }
    return d.dst_strides;
}

namespace {

std::vector<std::int64_t> dims_of(const ConvDescriptor& d, TensorRole role) {
    switch (role) {
        case TensorRole::src: return d.src_dims();
        case TensorRole::weights: return d.weights_dims();
        case TensorRole::dst: break;
    }
    return d.dst_dims();
}

const char* key_of(TensorRole role) {
    switch (role) {
        case TensorRole::src: return "ss";
        case TensorRole::weights: return "ws";
        case TensorRole::dst: break;
    }
    return "ds";
}

// For each canonical axis (N, C, spatial... or O, I, spatial...), the axis of the tensor's format.
std::vector<int> canonical_to_format(const ConvDescriptor& d, TensorRole role) {
    const int r = d.rank;
    std::vector<int> map(static_cast<std::size_t>(r + 2));
    if (role == TensorRole::weights) {
        switch (d.filter_format) {
            case FilterFormat::oix:  // [O][I][x...]
                std::iota(map.begin(), map.end(), 0);
                break;
            case FilterFormat::xio:  // [x...][I][O]
                map[0] = r + 1, map[1] = r;
                for (int a = 0; a < r; ++a) map[2 + a] = a;
                break;
            case FilterFormat::oxi:  // [O][x...][I]
                map[0] = 0, map[1] = r + 1;
                for (int a = 0; a < r; ++a) map[2 + a] = 1 + a;
                break;
        }
        return map;
    }
    if (d.data_format == DataFormat::ncx) {
        std::iota(map.begin(), map.end(), 0);
    } else {  // [N][x...][C]
        map[0] = 0, map[1] = r + 1;
        for (int a = 0; a < r; ++a) map[2 + a] = 1 + a;
    }
    return map;
}

}  // namespace

MemoryLayout layout_of(const ConvDescriptor& d, TensorRole role) {
    MemoryLayout l;
    l.dims = dims_of(d, role);
    const auto& given = strides_of(d, role);
    l.strides = given.empty() ? dense_strides(l.dims) : given;
    return l;
}

bool has_strides(const ConvDescriptor& d) {
    for (TensorRole role : {TensorRole::src, TensorRole::weights, TensorRole::dst})
        if (!strides_of(d, role).empty() && !layout_of(d, role).dense()) return true;
    return false;
}

std::string strides_text(const std::vector<std::int64_t>& strides) {
    std::string s;
    for (std::size_t i = 0; i < strides.size(); ++i) s += (i ? "x" : "") + std::to_string(strides[i]);
    return s;
}

void validate_strides(const ConvDescriptor& d, TensorRole role) {
    const auto& given = strides_of(d, role);
    if (given.empty()) return;
    const std::string key = key_of(role), text = strides_text(given);
    const std::string name = key + " (" + std::string(to_string(role)) + " strides)";
    const auto dims = dims_of(d, role);
    if (given.size() != dims.size())
        throw ConvError(name, text,
                        "needs " + std::to_string(dims.size()) + " strides, one per dim of " +
                            std::string(to_string(role)) + " (rank + 2), got " + std::to_string(given.size()));
    for (std::size_t i = 0; i < given.size(); ++i)
        if (given[i] < 1)
            throw ConvError(name, text,
                            "stride " + std::to_string(i) + " is " + std::to_string(given[i]) +
                                ": every stride must be >= 1 (a negative stride walks backwards, a zero one "
                                "makes elements share memory)");
    // sorted by stride, each stride must exceed the span of the smaller ones (extent-1 dims aside)
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i] > 1) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return given[a] < given[b]; });
    std::int64_t reach = 0;  // sum (dim - 1) * stride of the smaller strides
    for (std::size_t i : order) {
        if (given[i] <= reach)
            throw ConvError(name, text,
                            "stride " + std::to_string(i) + " (" + std::to_string(given[i]) +
                                ") is within the span of the smaller strides (" + std::to_string(reach) +
                                "): elements would overlap");
        std::int64_t step;
        if (__builtin_mul_overflow(dims[i] - 1, given[i], &step) || __builtin_add_overflow(reach, step, &reach))
            throw ConvError(name, text, "the span of the tensor overflows 64 bits");
    }
    std::int64_t bytes;
    if (__builtin_add_overflow(reach, 1, &reach) || __builtin_mul_overflow(reach, size_of(d.dtype), &bytes))
        throw ConvError(name, text, "the byte size of the strided tensor overflows 64 bits");
}

MemoryLayout canonical_layout(const ConvDescriptor& d, TensorRole role) {
    const MemoryLayout l = layout_of(d, role);
    const auto map = canonical_to_format(d, role);
    MemoryLayout c;
    for (int axis : map) {
        c.dims.push_back(l.dims[static_cast<std::size_t>(axis)]);
        c.strides.push_back(l.strides[static_cast<std::size_t>(axis)]);
    }
    return c;
}

DataType dtype_of(const ConvDescriptor& d, TensorRole role) {
    return role == TensorRole::src ? d.src_dtype() : role == TensorRole::weights ? d.weights_dtype() : d.dst_dtype();
}

void copy_tensor(const ConvDescriptor& from, const void* from_data, const ConvDescriptor& to, void* to_data,
                 TensorRole role) {
    const MemoryLayout a = canonical_layout(from, role), b = canonical_layout(to, role);
    if (a.dims != b.dims || dtype_of(from, role) != dtype_of(to, role))
        throw ConvError(std::string(to_string(role)), to_string(to), "copy_tensor: not the same tensor");
    const std::size_t e = static_cast<std::size_t>(size_of(dtype_of(from, role)));
    const auto* in = static_cast<const unsigned char*>(from_data);
    auto* out = static_cast<unsigned char*>(to_data);
    const std::size_t n = a.dims.size();
    std::vector<std::int64_t> index(n, 0);
    std::int64_t total = 1;
    for (auto v : a.dims) total *= v;
    std::int64_t at = 0, put = 0;
    for (std::int64_t i = 0; i < total; ++i) {
        std::memcpy(out + static_cast<std::size_t>(put) * e, in + static_cast<std::size_t>(at) * e, e);
        for (std::size_t k = n; k-- > 0;) {
            if (++index[k] < a.dims[k]) {
                at += a.strides[k], put += b.strides[k];
                break;
            }
            at -= (a.dims[k] - 1) * a.strides[k], put -= (b.dims[k] - 1) * b.strides[k];
            index[k] = 0;
        }
    }
}

std::vector<bool> gap_map(const ConvDescriptor& d, TensorRole role) {
    std::vector<bool> gap(static_cast<std::size_t>(layout_of(d, role).span()), true);
    for_each_element(d, role, [&](std::int64_t, std::int64_t at) { gap[static_cast<std::size_t>(at)] = false; });
    return gap;
}

}  // namespace convcheck
