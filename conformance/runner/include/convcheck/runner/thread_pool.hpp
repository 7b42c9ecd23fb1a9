// The thread pool the runner offers a plugin (ABI 1.2: convcheck_thread_pool in create_args), so
// that a plugin can run its parallel loops without threads of its own. Lives in the plugin's child
// process (its threads start there, at the first run with more than one task: never in the process
// that forks), and counts the calls and tasks it ran: the case record's thread_pool_tasks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "convcheck/plugin.h"

namespace convcheck::runner {

class ThreadPool {
public:
    // At most `num_threads` tasks at once, the caller's thread among them; 0: the machine's
    // hardware concurrency.
    explicit ThreadPool(int num_threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // The struct a plugin receives; lives as long as the pool.
    const convcheck_thread_pool* abi() const { return &abi_; }
    std::uint64_t calls() const { return calls_; }
    std::uint64_t tasks() const { return tasks_; }

private:
    using Task = void (*)(void* task_context, std::size_t index);
    static void run(void* self, Task task, void* task_context, std::size_t count);
    void run(Task task, void* task_context, std::size_t count);
    void work();  // takes indices of the current job until none is left
    void worker();

    convcheck_thread_pool abi_{};
    int threads_ = 1;
    std::uint64_t calls_ = 0, tasks_ = 0;  // written by the one calling thread only
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::uint64_t generation_ = 0;  // one per run that uses the workers
    int joined_ = 0, busy_ = 0;     // workers that took the current job / are still in it
    bool stop_ = false;
    Task task_ = nullptr;
    void* task_context_ = nullptr;
    std::size_t count_ = 0;
    std::atomic<std::size_t> next_{0};
};

}  // namespace convcheck::runner
