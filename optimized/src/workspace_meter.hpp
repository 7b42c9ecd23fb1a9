// Internal: the workspace bytes a CC plan holds at once, and the most it held during one execute
// (CcPlan::peak_workspace_bytes). Concurrent tasks count their buffers in and out.
#pragma once

#include <atomic>
#include <cstdint>

namespace convcheck::optimized::detail {

class WorkspaceMeter {
public:
    void reset() {
        peak_ = 0;
        held_ = 0;
    }
    void count_in(std::int64_t bytes) {
        const std::int64_t now = held_.fetch_add(bytes) + bytes;
        std::int64_t old = peak_.load();
        while (now > old && !peak_.compare_exchange_weak(old, now)) {
        }
    }
    void count_out(std::int64_t bytes) { held_.fetch_sub(bytes); }
    std::int64_t peak() const { return peak_.load(); }

private:
    std::atomic<std::int64_t> held_{0}, peak_{0};
};

}  // namespace convcheck::optimized::detail
