// The tables' summaries: the geometric mean of speed ratios, one ratio as printed (oneDNN time / ours), and the
// scaling efficiency of a row.
#pragma once

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace convcheck::bench {

// NaN for no ratios.
inline double geomean(const std::vector<double>& v) {
    if (v.empty()) return NAN;
    double s = 0;
    for (double x : v) s += std::log(x);
    return std::exp(s / double(v.size()));
}

// "n/a" where oneDNN declined the case.
inline std::string fmt_ratio(const std::optional<double>& theirs_ms, double ours_ms) {
    if (!theirs_ms) return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", *theirs_ms / ours_ms);
    return b;
}

// The scaling efficiency of a row timed at `threads`: the time the same run measured for `key` at one thread
// (recorded here when threads == 1) over threads x `ms` (100 %: t threads t times faster), appended to `into` and
// printed as "87%"; "-" at one thread or without a 1-thread time.
inline std::string scaling_efficiency(std::map<std::string, double>& ms_at_one_thread, const std::string& key,
                                      int threads, double ms, std::vector<double>& into) {
    if (threads == 1) ms_at_one_thread[key] = ms;
    const auto one = ms_at_one_thread.find(key);
    if (threads <= 1 || one == ms_at_one_thread.end()) return "-";
    const double e = one->second / (ms * threads);
    into.push_back(e);
    return std::to_string(static_cast<int>(100.0 * e + 0.5)) + "%";
}

}  // namespace convcheck::bench
