#include "convcheck/runner/jobs.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "convcheck/core/sanitizer_build.hpp"
#include "convcheck/runner/child_process.hpp"
#include "convcheck/runner/memory_limit.hpp"

namespace convcheck::runner {

int default_jobs() {
#ifdef CONVCHECK_SANITIZER_BUILD
    // clang 14's ASan allocator takes no lock around fork(): a child forked while another job thread allocates can
    // hang on the allocator's lock (measured: edge cases hanged under ASan with --jobs 2). A sanitizer build runs
    // one case at a time unless --jobs says otherwise.
    return 1;
#else
    return available_cores();
#endif
}

int available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

JobsPlan plan_jobs(std::optional<int> jobs, int cores, std::optional<std::int64_t> memory_limit,
                   std::int64_t available, bool one_process) {
    JobsPlan plan;
    if (one_process) {
        if (jobs && *jobs > 1)
            throw std::invalid_argument("--jobs " + std::to_string(*jobs) +
                                        ": an exec: or python: backend is one backend process that serves one case "
                                        "at a time; it runs with --jobs 1");
        plan.jobs = 1;
        plan.memory_limit_bytes = memory_limit ? *memory_limit : default_memory_limit();
        return plan;
    }
    if (!memory_limit) {  // the default limit is the whole run's: each job's case gets its share
        plan.jobs = jobs ? *jobs : std::max(cores, 1);
        plan.memory_limit_bytes = default_memory_limit() / plan.jobs;
        return plan;
    }
    plan.memory_limit_bytes = *memory_limit;
    // N cases at once may use N x the limit: it must fit in what the machine had free
    const std::int64_t fit = available > 0 ? std::max<std::int64_t>(available / *memory_limit, 1) : 1;
    if (!jobs) {
        plan.jobs = static_cast<int>(std::min<std::int64_t>(std::max(cores, 1), fit));
        return plan;
    }
    if (*jobs > 1 && *jobs > fit)
        throw std::invalid_argument(
            "--jobs " + std::to_string(*jobs) + ": " + std::to_string(*jobs) + " cases at once may use " +
            std::to_string(*jobs) + " x --memory-limit " + memory_text(*memory_limit) + " = " +
            memory_text(*jobs * *memory_limit) + ", more than the " + memory_text(available) +
            " of memory available: give at most --jobs " + std::to_string(fit) + " or a smaller --memory-limit");
    plan.jobs = *jobs;
    return plan;
}

std::vector<CaseResult> run_cases_in_jobs(const Backend& backend, const std::vector<Case>& cases,
                                          const RunSettings& settings,
                                          const std::function<void(const CaseResult&)>& on_result) {
    const std::size_t n = cases.size();
    auto stopped = [&] { return settings.stop && *settings.stop; };
    // Shared between the jobs and the reporting thread, under `m`.
    std::mutex m;
    std::condition_variable finished_one;
    std::size_t next = 0;          // the next case to start
    bool no_more = false;          // no case starts any more (fail-fast, the end, an error)
    std::vector<char> finished(n, 0);
    std::vector<std::optional<CaseResult>> results_at(n);  // empty when cut short or on an error
    std::exception_ptr error;      // the first exception of a job (exit 2 or an internal error)
    std::size_t first_failure = n;  // --fail-fast: the first failing case seen, in suite order

    auto job = [&] {
        while (true) {
            std::size_t i = 0;
            {
                const std::lock_guard<std::mutex> lock(m);
                if (no_more || next >= n || stopped()) return;
                i = next++;
            }
            std::optional<CaseResult> r;
            std::exception_ptr e;
            // --fail-fast: a failure stops the starting of cases (every case before it has started), and
            // a failure after the first one in suite order is dropped, not shrunk
            const auto wanted = [&](const CaseResult& checked) {
                const std::lock_guard<std::mutex> lock(m);
                if (settings.fail_fast && is_failure(checked.status)) {
                    no_more = true;
                    first_failure = std::min(first_failure, i);
                }
                return !(settings.fail_fast && i > first_failure);
            };
            try {
                r = check_and_shrink(backend, cases[i], settings, wanted);
            } catch (...) {
                e = std::current_exception();
            }
            {
                const std::lock_guard<std::mutex> lock(m);
                if (e) no_more = true;
                if (e && !error) error = e;
                results_at[i] = std::move(r);
                finished[i] = 1;
            }
            finished_one.notify_all();
        }
    };
    std::vector<std::thread> threads;
    const int jobs = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(settings.jobs), n));
    child::set_forking_among_threads(true);
    for (int j = 0; j < jobs; ++j) threads.emplace_back(job);

    // Report in suite order: case k once it has finished; the end once case k will never start.
    std::vector<CaseResult> results;
    for (std::size_t k = 0; k < n; ++k) {
        std::unique_lock<std::mutex> lock(m);
        while (!finished[k] && !(k >= next && (no_more || stopped())))
            finished_one.wait_for(lock, std::chrono::milliseconds(20));  // a signal sets `stop` without notifying
        if (!finished[k] || !results_at[k]) break;  // never started, cut short, or its job failed
        CaseResult r = std::move(*results_at[k]);
        lock.unlock();
        if (on_result) {
            const std::lock_guard<std::mutex> printing(child::fork_mutex());  // no job forks while it prints
            on_result(r);
        }
        results.push_back(std::move(r));
        if (settings.fail_fast && is_failure(results.back().status)) break;
    }
    {
        const std::lock_guard<std::mutex> lock(m);
        no_more = true;
    }
    for (std::thread& t : threads) t.join();
    child::set_forking_among_threads(false);
    if (error) {
        // a serial run would have thrown at that case: rethrown if the report reached it
        bool reached = results.size() < n && finished[results.size()] && !results_at[results.size()];
        if (reached) std::rethrow_exception(error);
    }
    return results;
}

}  // namespace convcheck::runner
