// The tables' summaries: the geometric mean of speed ratios, and one ratio as printed (oneDNN time / ours).
#pragma once

#include <cmath>
#include <cstdio>
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

}  // namespace convcheck::bench
