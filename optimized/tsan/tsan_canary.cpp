// The TSan canary (scripts/sanitizers.sh tsan runs it): proves that the TSan set-up of the optimized
// code can still see a race. Debian's libtbb is not instrumented, so that set-up suppresses TBB's own
// frames (scripts/tsan.supp) and annotates the fork and join of every parallel call
// (src/parallel_join.hpp). Either could hide real races if it were too broad; this program checks both
// ways, through the same wrapper the optimized code uses, on a task arena of 2 threads:
//   tsan_canary race   two parallel_for bodies write one int unsynchronised: TSan MUST report a data race;
//   tsan_canary clean  the caller writes a buffer, bodies fill their own slots, the caller reads them and
//                      frees the buffer: exactly the fork/join edges TBB guarantees: TSan must report nothing.
//   tsan_canary stack  run WITHOUT suppressions: after a first call (the caller's accesses ignored, so that the
//                      worker's first steal of a task is not reported), a second call whose body on the worker
//                      ends last, so that TBB's code on the worker folds the task tree into its root on the
//                      caller's stack after the body's join release; then the caller writes over that stack.
//                      TSan must report nothing: a worker's accesses outside its bodies are ignored
//                      (parallel_join.hpp), whether or not TSan could still restore their stacks.
// Each run first waits until the two bodies run on two different threads (a race between bodies on one
// thread is not a race); exit code 3 when that did not happen within 10 s.
#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "parallel_join.hpp"

namespace {

int shared_value = 0;  // written by both bodies in the race run

// Writes 64 KB of the caller's stack below this frame: the frames a parallel call used there, whose root task
// node the worker may have touched last.
[[gnu::noinline]] long long overwrite_stack() {
    volatile long long words[8192];
    for (int i = 0; i < 8192; ++i) words[i] = i;
    return words[8191];
}

std::mutex ids_mutex;
std::set<std::thread::id> body_threads;

// Records this body's thread and waits (up to 10 s) until bodies have run on two threads.
bool wait_for_second_thread() {
    {
        std::lock_guard<std::mutex> lock(ids_mutex);
        body_threads.insert(std::this_thread::get_id());
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        {
            std::lock_guard<std::mutex> lock(ids_mutex);
            if (body_threads.size() >= 2) return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    using convcheck::optimized::detail::arena_execute_joined;
    using convcheck::optimized::detail::parallel_for_joined;
    const bool race = argc == 2 && std::strcmp(argv[1], "race") == 0;
    const bool clean = argc == 2 && std::strcmp(argv[1], "clean") == 0;
    const bool stack = argc == 2 && std::strcmp(argv[1], "stack") == 0;
    if (!race && !clean && !stack) {
        std::fprintf(stderr, "usage: tsan_canary race|clean|stack\n");
        return 2;
    }
    tbb::task_arena arena(2);
    std::atomic<bool> two_threads = true;
    if (stack) {
        const auto caller = std::this_thread::get_id();
        const auto call = [&](bool worker_last) {
            arena_execute_joined(arena, [&] {
                // (the body reads its range, which TBB wrote into the task after the fork release)
                parallel_for_joined(tbb::blocked_range<int>(0, 2, 1), [&](const tbb::blocked_range<int>& r) {
                    for (int i = r.begin(); i != r.end(); ++i) {
                        if (!wait_for_second_thread()) two_threads = false;
                        if (worker_last && std::this_thread::get_id() != caller)
                            std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    }
                });
            });
        };
        __tsan_ignore_thread_begin();
        call(false);
        __tsan_ignore_thread_end();
        {
            std::lock_guard<std::mutex> lock(ids_mutex);
            body_threads.clear();  // the second call's bodies must run on two threads too
        }
        call(true);
        const long long last = overwrite_stack();
        if (!two_threads) {
            std::fprintf(stderr, "tsan_canary: the two bodies did not run on two threads; nothing was checked\n");
            return 3;
        }
        std::printf("tsan_canary stack: done (%lld)\n", last);
        return 0;
    }
    auto slots = std::make_unique<int[]>(2);
    slots[0] = slots[1] = -1;  // written by the caller before the fork
    arena_execute_joined(arena, [&] {
        parallel_for_joined(tbb::blocked_range<int>(0, 2, 1), [&](const tbb::blocked_range<int>& r) {
            for (int i = r.begin(); i != r.end(); ++i) {
                if (!wait_for_second_thread()) two_threads = false;
                if (race)
                    shared_value = i;  // the deliberate race: both bodies, no synchronisation
                else
                    slots[i] = slots[i] + 1 + i;  // each body its own slot
            }
        });
    });
    if (!two_threads) {
        std::fprintf(stderr, "tsan_canary: the two bodies did not run on two threads; nothing was checked\n");
        return 3;
    }
    const int sum = slots[0] + slots[1];  // read by the caller after the join
    slots.reset();                         // freed by the caller after the join
    std::printf("tsan_canary %s: done (value %d, sum %d)\n", race ? "race" : "clean", shared_value, sum);
    return 0;
}
