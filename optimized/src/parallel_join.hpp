// Internal: tbb::parallel_for and task_arena::execute with their join made visible to
// ThreadSanitizer. Both return only after every body has finished: the workers' last act is a
// release on the wait_context's counter (inline in TBB's headers, so instrumented), and the caller
// waits for it with an acquire load inside libtbb.so (wait_context::continue_execution, called by
// r1::task_dispatcher). Debian's libtbb is not instrumented, so TSan never sees that acquire and
// reports a worker's read of a plan's buffers against the caller's later free of them (e.g. packed
// weights read in execute, freed in ~ConvPlan). The fork is just as invisible (the caller hands the
// tasks to workers through libtbb's task pool), so a worker's read of data the caller wrote before
// the call is reported too. Here the caller releases a fork token before the call and each body
// acquires it first; each body releases a join token last and the caller acquires it once TBB has
// joined: exactly the edges TBB guarantees, no more. Bodies are not ordered against each other (a
// race between two bodies is still reported), and a body still running after the join would
// release after the caller's acquire, and would still be reported.
// Outside a TSan build (g++ defines __SANITIZE_THREAD__ with -fsanitize=thread) these are no-ops.
#pragma once

#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace convcheck::optimized::detail {

inline void join_release([[maybe_unused]] void* token) {
#if defined(__SANITIZE_THREAD__)
    __tsan_release(token);
#endif
}

inline void join_acquire([[maybe_unused]] void* token) {
#if defined(__SANITIZE_THREAD__)
    __tsan_acquire(token);
#endif
}

// tbb::parallel_for(range, body) with its fork and join made visible to TSan; with `one_per_thread`, under TBB's
// static_partitioner (the range in one part per thread of the arena, each run whole) instead of its auto partitioner.
template <typename Range, typename Body>
void parallel_for_joined(const Range& range, const Body& body, bool one_per_thread = false) {
    char fork = 0, join = 0;  // their addresses name this fork and this join
    join_release(&fork);
    const auto joined = [&](const Range& r) {
        join_acquire(&fork);
        body(r);
        join_release(&join);
    };
    if (one_per_thread)
        tbb::parallel_for(range, joined, tbb::static_partitioner());
    else
        tbb::parallel_for(range, joined);
    join_acquire(&join);
}

// arena.execute(f) with its fork and join made visible to TSan (f may run on another thread).
template <typename F>
void arena_execute_joined(tbb::task_arena& arena, const F& f) {
    char fork = 0, join = 0;
    join_release(&fork);
    arena.execute([&] {
        join_acquire(&fork);
        f();
        join_release(&join);
    });
    join_acquire(&join);
}

}  // namespace convcheck::optimized::detail
