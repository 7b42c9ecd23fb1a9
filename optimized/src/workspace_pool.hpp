// Internal: a plan's workspaces, kept between its calls. A fresh large allocation page-faults (and a
// std::vector zero-fills) on every call, which costs as much as the convolution on small problems.
// A call takes one workspace of each role from the pool (or makes one), and gives it back at the end;
// concurrent calls of one plan each get their own.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace convcheck::optimized::detail {

class WorkspacePool {
public:
    static constexpr int kRoles = 2;

    // A workspace of at least n floats for `role` (0 .. kRoles-1); its contents are unspecified.
    std::vector<float> take(int role, std::size_t n) const {
        std::vector<float> v;
        {
            std::lock_guard lock(mutex_);
            if (!free_[role].empty()) {
                v = std::move(free_[role].back());
                free_[role].pop_back();
            }
        }
        if (v.size() < n) v.resize(n);
        return v;
    }

    void give(int role, std::vector<float> v) const {
        std::lock_guard lock(mutex_);
        free_[role].push_back(std::move(v));
    }

private:
    mutable std::mutex mutex_;
    mutable std::vector<std::vector<float>> free_[kRoles];
};

}  // namespace convcheck::optimized::detail
