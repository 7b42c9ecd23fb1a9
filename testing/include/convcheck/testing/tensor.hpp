// A non-owning view of a dense, row-major tensor, and a small owning buffer that hands out views.
// Dims are outermost first, as printed by ConvDescriptor::src_dims() and friends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "convcheck/core/dtype.hpp"

namespace convcheck {

struct TensorView {
    void* data = nullptr;
    DataType dtype = DataType::f32;
    std::vector<std::int64_t> dims;

    std::int64_t elements() const {
        std::int64_t n = 1;
        for (auto d : dims) n *= d;
        return n;
    }
    double get(std::int64_t index) const { return load_as_double(data, dtype, index); }
    void set(std::int64_t index, double value) const { store_from_double(data, dtype, index, value); }
};

// Owns zero-initialised storage for `dims` elements of `dtype`.
class Tensor {
public:
    Tensor() = default;
    Tensor(DataType dtype, std::vector<std::int64_t> dims) : dtype_(dtype), dims_(std::move(dims)) {
        std::int64_t n = 1;
        for (auto d : dims_) n *= d;
        storage_.assign(static_cast<std::size_t>(n) * size_of(dtype_), std::byte{0});
    }
    TensorView view() { return TensorView{storage_.data(), dtype_, dims_}; }
    TensorView view() const { return TensorView{const_cast<std::byte*>(storage_.data()), dtype_, dims_}; }
    void* data() { return storage_.data(); }
    const void* data() const { return storage_.data(); }
    std::size_t bytes() const { return storage_.size(); }
    DataType dtype() const { return dtype_; }
    const std::vector<std::int64_t>& dims() const { return dims_; }
    std::int64_t elements() const { return static_cast<std::int64_t>(storage_.size()) / size_of(dtype_); }
    double get(std::int64_t i) const { return load_as_double(storage_.data(), dtype_, i); }
    void set(std::int64_t i, double v) { store_from_double(storage_.data(), dtype_, i, v); }

private:
    DataType dtype_ = DataType::f32;
    std::vector<std::int64_t> dims_;
    std::vector<std::byte> storage_;
};

}  // namespace convcheck
