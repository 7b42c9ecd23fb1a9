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
// A worker's last acts in a parallel call come after its body's join release: TBB's own header code, run on the
// worker, folds the task tree up to the root node, which lies on the caller's stack, and reads the caller's
// task_group_context. The caller's acquire cannot order those, and once the caller's stack holds other frames TSan
// reports a worker's stale read against the caller's next write there ("Location is stack of main thread"). Its
// suppressions (scripts/tsan.supp) name those TBB frames, but a suppression can match only a stack TSan can still
// restore, and a worker's older accesses often cannot be. So a TBB worker thread runs with TSan's accesses ignored
// (__tsan_ignore_thread_begin) whenever it is outside every body: only TBB's code runs there. Inside a body, and on
// a thread that waits on a parallel call of its own, every access is seen; synchronisation is seen throughout.
// Outside a TSan build (g++ defines __SANITIZE_THREAD__ with -fsanitize=thread) these are no-ops.
#pragma once

#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace convcheck::optimized::detail {

#if defined(__SANITIZE_THREAD__)
// This thread's place: inside how many bodies, waiting on how many parallel calls of its own, and whether its
// accesses are ignored now (a TBB worker between bodies).
struct TsanThreadPlace {
    int bodies = 0;
    int calls = 0;
    bool ignoring = false;
    // A thread that ends with its accesses ignored is reported by TSan ("finished with ignores enabled"); this
    // runs first, among the thread's thread_local destructors.
    ~TsanThreadPlace() {
        if (ignoring) __tsan_ignore_thread_end();
    }
};
inline thread_local TsanThreadPlace tsan_place;
#endif

// This thread is about to wait on a parallel call of its own (the calling thread is never ignored).
inline void call_begin() {
#if defined(__SANITIZE_THREAD__)
    ++tsan_place.calls;
#endif
}

inline void call_end() {
#if defined(__SANITIZE_THREAD__)
    --tsan_place.calls;
#endif
}

// A body begins on this thread: its accesses are seen.
inline void body_begin() {
#if defined(__SANITIZE_THREAD__)
    if (tsan_place.ignoring) {
        __tsan_ignore_thread_end();
        tsan_place.ignoring = false;
    }
    ++tsan_place.bodies;
#endif
}

// A body ends: a thread in no other body and waiting on no call of its own is a TBB worker going back to TBB's
// scheduler, whose accesses are ignored until its next body begins.
inline void body_end() {
#if defined(__SANITIZE_THREAD__)
    if (--tsan_place.bodies == 0 && tsan_place.calls == 0) {
        __tsan_ignore_thread_begin();
        tsan_place.ignoring = true;
    }
#endif
}

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

// One body, on whichever thread TBB runs it: the fork acquired, its accesses seen, the join released, and a worker
// back in TBB's scheduler ignored again. TBB wrote the copy of the caller's closure it runs, and the range, into a
// task after the fork release (TBB's own handoff): the tokens, the work and its arguments (taken by value) are read
// from there as this call's arguments, while a worker is still ignored.
template <typename Work, typename... Args>
void run_body(char* fork, char* join, const Work& work, Args... args) {
    join_acquire(fork);
    body_begin();
    work(args...);
    join_release(join);
    body_end();
}

// tbb::parallel_for(range, body) with its fork and join made visible to TSan; with `one_per_thread`, under TBB's
// static_partitioner (the range in one part per thread of the arena, each run whole) instead of its auto partitioner.
template <typename Range, typename Body>
void parallel_for_joined(const Range& range, const Body& body, bool one_per_thread = false) {
    char fork = 0, join = 0;  // their addresses name this fork and this join
    join_release(&fork);
    const auto joined = [&](const Range& r) { run_body(&fork, &join, body, r); };
    call_begin();
    if (one_per_thread)
        tbb::parallel_for(range, joined, tbb::static_partitioner());
    else
        tbb::parallel_for(range, joined);
    call_end();
    join_acquire(&join);
}

// arena.execute(f) with its fork and join made visible to TSan (f may run on another thread).
template <typename F>
void arena_execute_joined(tbb::task_arena& arena, const F& f) {
    char fork = 0, join = 0;
    join_release(&fork);
    call_begin();
    arena.execute([&] { run_body(&fork, &join, f); });
    call_end();
    join_acquire(&join);
}

}  // namespace convcheck::optimized::detail
