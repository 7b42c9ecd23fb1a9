// The FMA ceiling of a table's dense rows: no implementation does a dense row's products that read inside the image
// (inside_macs) faster than the FMA peak, so none can beat oneDNN's best layout there by more than the peak over
// oneDNN's GFLOP/s of those products. The peak is the probe's or the fastest row's, the larger (the probe runs once,
// and the clock of a shared machine moves). Depthwise rows are bound by memory, not by the FMAs, and are left out.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "ratios.hpp"

namespace convcheck::bench {

// A depthwise layer (one input and one output channel a group): the rows the ceiling leaves out.
inline bool depthwise(const ConvDescriptor& d) { return d.groups == d.in_channels && d.groups > 1; }

class FmaCeiling {
public:
    // A row of `pass` ("" for a table of one pass) at `threads`: its products inside the image, oneDNN's best
    // time and ours (ms).
    void add(int threads, const std::string& pass, bool dense, double inside_macs, double onednn_ms, double ours_ms) {
        const double onednn_gflops = 2.0 * inside_macs / (onednn_ms * 1e-3) / 1e9;
        double& fastest = fastest_row_[threads];
        fastest = std::max({fastest, onednn_gflops, onednn_gflops * onednn_ms / ours_ms});
        if (dense) dense_onednn_gflops_[{threads, pass}].push_back(onednn_gflops);
    }

    // The peak a ceiling divides by: the probe's GFLOP/s at `threads` or the fastest row's, the larger.
    double top(int threads, double probe) const {
        const auto fastest = fastest_row_.find(threads);
        return std::max(probe, fastest == fastest_row_.end() ? 0.0 : fastest->second);
    }
    // The share of top() at which oneDNN's best layout runs the dense rows of (threads, pass) (geomean); NaN without any.
    double onednn_share(int threads, const std::string& pass, double probe) const {
        const auto rows = dense_onednn_gflops_.find({threads, pass});
        return rows == dense_onednn_gflops_.end() ? NAN : geomean(rows->second) / top(threads, probe);
    }

    // One line per (threads, pass) with dense rows; `peak` is the probe's GFLOP/s per thread count.
    void print(const std::map<int, double>& peak) const {
        for (const auto& entry : dense_onednn_gflops_) {
            const auto& [threads, pass] = entry.first;
            const auto found = peak.find(threads);
            const double probe = found == peak.end() ? 0.0 : found->second, share = onednn_share(threads, pass, probe);
            std::printf("  %d thread(s)%s%s: FMA ceiling on the dense rows: oneDNN's best layout runs them at %.0f %% of the "
                        "peak (geomean, products inside the image; peak %.1f GFLOP/s, the probe's or the fastest row's), so "
                        "no implementation beats it there by more than %.2fx (geomean); 1.05x on them would need %.0f %%\n",
                        threads, pass.empty() ? "" : ", ", pass.c_str(), 100.0 * share, top(threads, probe), 1.0 / share,
                        105.0 * share);
        }
    }

private:
    std::map<std::pair<int, std::string>, std::vector<double>> dense_onednn_gflops_;
    std::map<int, double> fastest_row_;  // per thread count: the most GFLOP/s any row reached, ours or oneDNN's
};

}  // namespace convcheck::bench
