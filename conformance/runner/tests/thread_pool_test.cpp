// The runner's thread pool (ABI 1.2, thread_pool.hpp): every task runs exactly once per run, on up
// to num_threads threads at once, run returns only when all have returned, and the counts are what
// was run (the case record's thread_pool_tasks).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "convcheck/runner/thread_pool.hpp"

using namespace convcheck::runner;

namespace {

struct Seen {
    std::vector<std::atomic<int>> hits;
    std::mutex mutex;
    std::set<std::thread::id> threads;
    explicit Seen(std::size_t n) : hits(n) {}
};

void count(void* context, std::size_t i) {
    auto* seen = static_cast<Seen*>(context);
    ++seen->hits[i];
    const std::lock_guard<std::mutex> lock(seen->mutex);
    seen->threads.insert(std::this_thread::get_id());
}

TEST(ThreadPool, RunsEveryTaskOnceAndCountsThem) {
    for (const int threads : {1, 2, 4}) {
        ThreadPool pool(threads);
        const convcheck_thread_pool* abi = pool.abi();
        ASSERT_EQ(abi->struct_size, sizeof(convcheck_thread_pool));
        EXPECT_EQ(abi->num_threads, threads);
        std::uint64_t tasks = 0;
        for (const std::size_t n : {0u, 1u, 7u, 1000u}) {
            Seen seen(n);
            abi->run(abi->context, count, &seen, n);  // returns when every task has returned
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen.hits[i].load(), 1) << "task " << i << ", " << threads << " threads";
            EXPECT_LE(seen.threads.size(), static_cast<std::size_t>(threads));
            tasks += n;
        }
        EXPECT_EQ(pool.calls(), 4u);
        EXPECT_EQ(pool.tasks(), tasks);
    }
}

TEST(ThreadPool, ZeroThreadsIsTheMachinesConcurrency) {
    ThreadPool pool(0);
    EXPECT_GE(pool.abi()->num_threads, 1);
    EXPECT_EQ(pool.abi()->num_threads, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

// A slow task holds the other threads: run returns only after it (nothing outlives run).
TEST(ThreadPool, ReturnsOnlyWhenEveryTaskHasReturned) {
    ThreadPool pool(3);
    std::atomic<int> finished{0};
    const auto slow = [](void* c, std::size_t i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(i == 0 ? 50 : 1));
        ++*static_cast<std::atomic<int>*>(c);
    };
    for (int round = 0; round < 20; ++round) {
        finished = 0;
        pool.abi()->run(pool.abi()->context, slow, &finished, 5);
        ASSERT_EQ(finished.load(), 5) << "round " << round;
    }
}

}  // namespace
