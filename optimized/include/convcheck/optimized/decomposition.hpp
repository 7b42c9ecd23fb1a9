// How a plan cuts one call's work into the tasks its threads take: the decomposition tests assert it for
// thread counts beyond the machine's (optimized/tests/decomposition_test.cpp).
//
//   optimized::BackwardWeightsPlan plan(d, {.threads = 16});
//   optimized::Decomposition s = plan.decomposition();   // s.tasks >= 4 * 16 where s.most_tasks allows
// ConvPlan and BackwardDataPlan report theirs the same way (decomposition()), for the threads they were made for.
#pragma once

#include <cstdint>

namespace convcheck::optimized {

struct Decomposition {
    int threads = 1;               // the thread count the plan was made for (Options::threads, 0 resolved)
    std::int64_t tasks = 1;        // the independent tasks of the plan's main parallel loop
    std::int64_t most_tasks = 1;   // the most tasks the layer has in the plan's scheme (its finest cut)
    double largest_task = 0.0;     // multiply-adds of the largest task
    double mean_task = 0.0;        // multiply-adds of all tasks together, over tasks
    // the tasks run as one range of them per thread (TBB's static partitioner) instead of a greedy schedule
    bool one_range_per_thread = false;
    // where a call is too small to pay for every thread's fork and join: the threads that take its tasks, the tasks
    // in this many ranges (0: every thread); the forward depthwise paths only
    int busy_threads = 0;
    // the backward-weights general kernel's block of output pixels (each tile's accumulators visited once a block;
    // its scratch is sized by it); 0 elsewhere
    std::int64_t block_pixels = 0;

    // n tasks (at most `most`, the finest cut) of `each` multiply-adds but the last, `last`
    void set_tasks(std::int64_t n, std::int64_t most, double each, double last) {
        tasks = n;
        most_tasks = n > most ? n : most;
        largest_task = each > last ? each : last;
        mean_task = (each * static_cast<double>(n - 1) + last) / static_cast<double>(n);
    }
};

}  // namespace convcheck::optimized
