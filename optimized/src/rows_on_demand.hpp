// Internal: rows of a buffer written on demand by the tasks that read them, inside one parallel loop. A task that
// needs rows [first, last] writes those no task has claimed yet, then waits for those another task is writing. A
// row is written once, by the task that claimed it (so the buffer's bytes are the same whoever writes them), and
// read only after its writer's release: no fork and join of its own before the loop that reads it. No deadlock:
// a writer waits for nothing while it writes.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include <immintrin.h>

namespace convcheck::optimized::detail {

class RowsOnDemand {
public:
    explicit RowsOnDemand(std::int64_t rows)
        : rows_(rows), state_(std::make_unique<std::atomic<std::uint8_t>[]>(static_cast<std::size_t>(rows))) {
        reset();
    }
    // every row unwritten again (call outside the loop)
    void reset() {
        for (std::int64_t r = 0; r < rows_; ++r) state_[static_cast<std::size_t>(r)].store(kUnwritten, std::memory_order_relaxed);
    }
    std::int64_t rows() const { return rows_; }
    // rows [first, last] (clamped to the buffer's) written, by write(row) here or by another task
    template <typename Write>
    void ensure(std::int64_t first, std::int64_t last, const Write& write) const {
        if (first < 0) first = 0;
        if (last >= rows_) last = rows_ - 1;
        bool busy = false;
        for (std::int64_t r = first; r <= last; ++r) {
            std::atomic<std::uint8_t>& s = state_[static_cast<std::size_t>(r)];
            std::uint8_t expected = kUnwritten;
            if (s.load(std::memory_order_acquire) == kWritten) continue;
            if (s.compare_exchange_strong(expected, kWriting, std::memory_order_acquire)) {
                write(r);
                s.store(kWritten, std::memory_order_release);
            } else {
                busy = true;
            }
        }
        for (std::int64_t r = first; busy && r <= last; ++r)
            for (int spins = 0; state_[static_cast<std::size_t>(r)].load(std::memory_order_acquire) != kWritten; ++spins) {
                if (spins < 256) _mm_pause();
                else std::this_thread::yield();  // (the writer may wait for a core)
            }
    }

private:
    static constexpr std::uint8_t kUnwritten = 0, kWriting = 1, kWritten = 2;
    std::int64_t rows_;
    std::unique_ptr<std::atomic<std::uint8_t>[]> state_;
};

}  // namespace convcheck::optimized::detail
