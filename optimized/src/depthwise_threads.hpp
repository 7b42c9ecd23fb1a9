// Internal: how many threads a forward depthwise call pays to use, and its rows in pairs or one by one. A pure
// function of the layer's bytes, its rows and the thread count (the decomposition test asserts it for 16 threads).
//
//   const DepthwiseThreads cut = depthwise_threads(rows, bytes, threads, pairs_kernel);
//   // cut.ranges < threads: the tasks (pairs or rows) in cut.ranges ranges, at most that many threads busy
//
// A depthwise call at batch 1 moves a few hundred KB and takes 10-50 us on one thread; each thread that takes a part
// of it adds a fork and join of about a microsecond. Its time with k threads is then about
//   ceil(tasks / k) x a task's time + kForkJoinMicroseconds x k,
// which falls up to about sqrt(the call's time / kForkJoinMicroseconds) threads and then rises again: on the
// 16-core Xeon (bench/results/sixteen-cores.md) dw960_7 at batch 1 took 15 / 7 / 9 / 10 us at 1 / 4 / 8 / 16 threads.
// The cut takes the k (at most `threads`) and the kind of task with the least such time; the same sums for any
// (every output is summed by one kernel call, in one order).
#pragma once

#include <cstdint>

namespace convcheck::optimized::detail {

// A depthwise call's bytes (src and dst, f32) per microsecond on one thread: 16-core Xeon, 1 thread, batch 1,
// depthwise_avx512: dw960_7 376 KB in 15 us, dw576_14 903 KB in 36 us, dw96_112s2 6.0 MB in 259 us (23-25,000);
// dw192_28 1.2 MB in 35 us (34,000).
inline constexpr double kDepthwiseBytesPerMicrosecond = 25000.0;
// A thread's fork and join, per thread that takes a range: the 16-core Xeon's batch-1 depthwise rows at 4, 8 and 16
// threads, time over the busiest thread's share of the one-thread time, per thread busy: dw960_7 0.7-1.0 us,
// dw576_14 0.75-1.7, dw192_28 0.9-2.1 (one run each, 10-20 us calls); TBB's fork and join of 2 threads with an empty
// body on the 2-core VM: 0.9 us.
inline constexpr double kForkJoinMicroseconds = 1.0;
// A row run alone by the two-row kernel costs 1.35x its share of a pair (2-core VM, 2 threads, batch 1: dw576_14
// 0.018-0.019 ms in 7 pairs, 0.025 in 14 rows).
inline constexpr double kRowAloneCost = 1.35;

struct DepthwiseThreads {
    std::int64_t ranges = 1;  // the threads that take tasks: the tasks in this many ranges (== threads: as they come)
    bool pairs = false;       // tasks of two rows (the two-row kernel), else of one
    double microseconds = 0;  // the estimate the cut minimises
};

// rows: the call's output rows; bytes: its src and dst bytes; pairs_kernel: the kernel runs rows two by two (AVX-512)
// or one by one at kRowAloneCost (false: one by one at their share, AVX2).
inline DepthwiseThreads depthwise_threads(std::int64_t rows, double bytes, int threads, bool pairs_kernel) {
    const double row = bytes / kDepthwiseBytesPerMicrosecond / static_cast<double>(rows);  // a row's share of a pair
    DepthwiseThreads best;
    bool first = true;
    for (const bool pairs : {true, false}) {
        if (pairs && !pairs_kernel) continue;
        const std::int64_t tasks = pairs ? (rows + 1) / 2 : rows;
        const double task = pairs ? 2.0 * row : row * (pairs_kernel ? kRowAloneCost : 1.0);
        for (std::int64_t k = 1; k <= threads && k <= tasks; ++k) {
            const double time = static_cast<double>((tasks + k - 1) / k) * task + kForkJoinMicroseconds * static_cast<double>(k);
            // (on a tie: pairs, then fewer threads)
            if (first || time < best.microseconds) best = {k, pairs, time}, first = false;
        }
    }
    return best;
}

}  // namespace convcheck::optimized::detail
