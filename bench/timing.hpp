// Minimum wall time of a callable over repeated runs of at least `min_seconds` in total.
#pragma once

#include <algorithm>
#include <chrono>

namespace convcheck::bench {

template <typename F>
double min_time_ms(F&& run, double min_seconds, int min_runs = 3) {
    run();  // warm up: first-touch pages, caches, thread pools
    double best = 1e300, total = 0;
    for (int i = 0; i < min_runs || total < min_seconds; ++i) {
        const auto start = std::chrono::steady_clock::now();
        run();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, s);
        total += s;
        if (i > 10000) break;
    }
    return best * 1e3;
}

}  // namespace convcheck::bench
