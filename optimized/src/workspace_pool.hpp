// Internal: a plan's workspaces, kept between its calls. A fresh large allocation page-faults (and a
// std::vector zero-fills) on every call, which costs as much as the convolution on small problems.
// A call takes a Workspace from the pool (or the pool makes one), and the Workspace goes back to its
// pool when it goes out of scope (RAII: on every way out, exceptions included); concurrent calls of
// one plan each get their own. A plan keeps one pool per role (the padded input, the f32 output, the
// kernels' scratch), so a buffer taken again holds what the last call of the same role left in it.
// Not for the ISA units: they receive plain pointers into a Workspace. Every buffer starts on a cache line
// (convcheck/core/cache_line_allocator.hpp): the kernels' 64-byte vector loads and stores of packed panels and outputs
// would otherwise each touch two lines.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "convcheck/core/cache_line_allocator.hpp"

namespace convcheck::optimized::detail {

template <typename T>
using AlignedBuffer = std::vector<T, CacheLineAllocator<T>>;

template <typename T>
class WorkspacePool;

// A buffer taken from a WorkspacePool, given back when it goes. A default-constructed one holds
// nothing (held() is false).
template <typename T>
class Workspace {
public:
    Workspace() = default;
    Workspace(const WorkspacePool<T>* pool, AlignedBuffer<T> buffer) : pool_(pool), buffer_(std::move(buffer)) {}
    Workspace(Workspace&& other) noexcept : pool_(std::exchange(other.pool_, nullptr)), buffer_(std::move(other.buffer_)) {}
    Workspace& operator=(Workspace&& other) noexcept {
        if (this != &other) {
            give_back();
            pool_ = std::exchange(other.pool_, nullptr);
            buffer_ = std::move(other.buffer_);
        }
        return *this;
    }
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    ~Workspace() { give_back(); }

    T* data() { return buffer_.data(); }
    bool held() const { return pool_ != nullptr; }

private:
    void give_back() noexcept;

    const WorkspacePool<T>* pool_ = nullptr;
    AlignedBuffer<T> buffer_;
};

template <typename T>
class WorkspacePool {
public:
    // A workspace of at least n elements; its contents are unspecified (what the last call left, or
    // zeros when new).
    Workspace<T> take(std::size_t n) const {
        AlignedBuffer<T> v;
        {
            std::lock_guard lock(mutex_);
            if (!free_.empty()) {
                v = std::move(free_.back());
                free_.pop_back();
            }
        }
        if (v.size() < n) v.resize(n);
        return Workspace<T>(this, std::move(v));
    }

private:
    friend class Workspace<T>;
    void give(AlignedBuffer<T> v) const {
        std::lock_guard lock(mutex_);
        free_.push_back(std::move(v));
    }

    mutable std::mutex mutex_;
    mutable std::vector<AlignedBuffer<T>> free_;
};

template <typename T>
void Workspace<T>::give_back() noexcept {
    if (pool_ == nullptr) return;
    try {
        pool_->give(std::move(buffer_));
    } catch (...) {
        // the pool could not grow its free list (out of memory): the buffer is simply freed, and
        // the next call allocates a new one
    }
    pool_ = nullptr;
}

}  // namespace convcheck::optimized::detail
