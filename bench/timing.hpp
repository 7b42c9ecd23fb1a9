// Minimum time of a callable over repeated runs of at least `min_seconds` in total.
//
// Two clocks: wall time (steady_clock), or the process's CPU time divided by the thread count.
// On a machine shared with other work, a wall-time run that gets descheduled measures the other
// tenants; CPU time does not count the time the process waits for a core, so it is the robust
// choice for single-thread comparisons there (for several threads it also counts spinning).
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>

namespace convcheck::bench {

enum class Clock { wall, cpu };
inline Clock& clock_choice() {
    static Clock c = Clock::wall;
    return c;
}

inline double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

template <typename F>
double min_time_ms(F&& run, double min_seconds, int threads = 1, int min_runs = 3) {
    run();  // warm up: first-touch pages, caches, thread pools
    double best = 1e300, total = 0;
    for (int i = 0; i < min_runs || total < min_seconds; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = process_cpu_seconds();
        run();
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double cpu = (process_cpu_seconds() - cpu_start) / threads;
        best = std::min(best, clock_choice() == Clock::wall ? wall : cpu);
        total += wall;
        if (i > 10000) break;
    }
    return best * 1e3;
}

}  // namespace convcheck::bench
