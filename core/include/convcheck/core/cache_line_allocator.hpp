// std::vector storage aligned to a cache line (64 bytes). std::vector's own storage of a large buffer
// starts 16 bytes past a line, so every 64-byte vector load of packed weights straddled two lines: the
// 3x3 layers of ResNet-50 ran 5-15 % slower with their blocked weights there
// (bench/results/forward-padding.md). The optimized implementation's packed weights and workspaces
// use it, and the bench's buffers (bench/optimized_timer.hpp), as frameworks hand tensors over (PyTorch's
// CPU allocator and oneDNN's memory objects align to 64 bytes).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace convcheck {

template <typename T>
struct CacheLineAllocator {
    using value_type = T;
    static constexpr std::align_val_t alignment{64};
    CacheLineAllocator() = default;
    template <typename U>
    explicit CacheLineAllocator(const CacheLineAllocator<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), alignment)); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, alignment); }
    friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};

using CacheLineFloats = std::vector<float, CacheLineAllocator<float>>;

}  // namespace convcheck
