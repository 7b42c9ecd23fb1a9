// Internal: how late a greedy schedule of tasks can end. The plans whose tasks run under TBB's auto partitioner (a
// free thread takes a task left) weigh a cut by it: a finer cut costs each task's overhead once more and lets the
// last task to start end sooner; the cut whose schedule ends soonest at the latest is taken. Any order of taking
// the tasks ends by W / t + (1 - 1 / t) x the largest task (Graham's bound for list scheduling; W the tasks' costs
// together): at one thread W itself, at many threads the largest task weighs almost as much as its share.
#pragma once

#include <cstdint>

namespace convcheck::optimized::detail {

// t x that bound, for tasks of `work` together and `largest` the largest, on t = `threads` threads: an integer where
// the costs are (ties exact).
inline std::int64_t greedy_end_times_threads(std::int64_t work, std::int64_t largest, int threads) {
    return work + (threads > 1 ? threads - 1 : 0) * largest;
}

}  // namespace convcheck::optimized::detail
