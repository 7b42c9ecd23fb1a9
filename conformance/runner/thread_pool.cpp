#include "convcheck/runner/thread_pool.hpp"

namespace convcheck::runner {

ThreadPool::ThreadPool(int num_threads) {
    threads_ = num_threads > 0 ? num_threads : static_cast<int>(std::thread::hardware_concurrency());
    if (threads_ < 1) threads_ = 1;
    abi_.struct_size = sizeof(abi_);
    abi_.context = this;
    abi_.num_threads = threads_;
    abi_.run = &ThreadPool::run;
}

ThreadPool::~ThreadPool() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void ThreadPool::run(void* self, Task task, void* task_context, std::size_t count) {
    static_cast<ThreadPool*>(self)->run(task, task_context, count);
}

void ThreadPool::run(Task task, void* task_context, std::size_t count) {
    ++calls_;
    tasks_ += count;
    if (threads_ == 1 || count <= 1) {
        for (std::size_t i = 0; i < count; ++i) task(task_context, i);
        return;
    }
    if (workers_.empty())
        for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker(); });
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        task_ = task;
        task_context_ = task_context;
        count_ = count;
        next_ = 0;
        joined_ = 0;
        ++generation_;
    }
    wake_.notify_all();
    work();
    // Every worker takes every job (and finds no index left when it comes late), so none can still
    // be on its way into this one when run returns.
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return joined_ == static_cast<int>(workers_.size()) && busy_ == 0; });
}

void ThreadPool::work() {
    for (std::size_t i = next_++; i < count_; i = next_++) task_(task_context_, i);
}

void ThreadPool::worker() {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        ++joined_;
        ++busy_;
        lock.unlock();
        work();
        lock.lock();
        --busy_;
        finished_.notify_all();
    }
}

}  // namespace convcheck::runner
