// One implementation's passes on one layer, as the CC paper table (cc_torch_table.hpp) gives them for every
// row (our CC, the torch CC, the convolution they are both divided by): the time of its forward and of its
// forward + backward (min_time_ms on the table's clock), then each run once more for the peak resident memory
// it adds (peak_memory.hpp), less the bytes of the results the call itself allocates (torch returns new
// tensors; ours writes into buffers made before), so that what remains is the pass's workspace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "peak_memory.hpp"
#include "timing.hpp"

namespace convcheck::bench {

struct PassMeasure {
    double ms = 0;
    PeakMemory peak;  // the pass's workspace: added resident bytes less its results' (when measured)
};

struct Passes {
    PassMeasure forward, forward_backward;
};

// The bytes a call allocates for its results (0 when it writes into buffers made before it).
struct ResultBytes {
    std::int64_t forward = 0, forward_backward = 0;
};

// The passes' times alone (their workspaces: not measured).
template <typename F, typename G>
Passes time_passes(F&& forward, G&& forward_backward, int threads, double min_seconds) {
    Passes p;
    p.forward.ms = min_time_ms(forward, min_seconds, threads);
    p.forward_backward.ms = min_time_ms(forward_backward, min_seconds, threads);
    p.forward.peak.why_not = p.forward_backward.peak.why_not = "not measured";
    return p;
}

// The passes' workspaces, each call run once more: the peak resident bytes it adds less its results'. After the
// timing: one-time set-ups (thread pools, code pages) are done by then.
template <typename F, typename G>
void measure_workspaces(Passes& p, F&& forward, G&& forward_backward, ResultBytes results) {
    const auto workspace = [](const PeakMemory& added, std::int64_t result_bytes) {
        PeakMemory w = added;
        if (w.bytes) w.bytes = *w.bytes > result_bytes ? *w.bytes - result_bytes : 0;
        return w;
    };
    p.forward.peak = workspace(peak_added_resident_bytes(forward), results.forward);
    p.forward_backward.peak = workspace(peak_added_resident_bytes(forward_backward), results.forward_backward);
}

// Both: the times, then the workspaces of the same calls.
template <typename F, typename G>
Passes measure_passes(F&& forward, G&& forward_backward, ResultBytes results, int threads, double min_seconds) {
    Passes p = time_passes(forward, forward_backward, threads, min_seconds);
    measure_workspaces(p, forward, forward_backward, results);
    return p;
}

// "1.23 MiB (0.45x)": a pass's workspace, and against the layer's output tensor; "n/a" when not measured.
inline std::string workspace_cell(const PeakMemory& peak, std::int64_t output_bytes) {
    if (!peak.bytes) return "n/a";
    char cell[64];
    std::snprintf(cell, sizeof cell, "%.2f MiB (%.2fx)", double(*peak.bytes) / (1 << 20),
                  double(*peak.bytes) / double(output_bytes));
    return cell;
}

// The cells of one row, from time to workspace: "fwd ms | fwd / conv | fwd+bwd ms | fwd+bwd / conv | fwd workspace
// | fwd+bwd workspace" (conv: the baseline's passes, measured in the same run).
inline std::string pass_cells(const Passes& p, const Passes& conv, std::int64_t output_bytes) {
    char cells[160];
    std::snprintf(cells, sizeof cells, "%.3f | %.2f | %.3f | %.2f", p.forward.ms, p.forward.ms / conv.forward.ms,
                  p.forward_backward.ms, p.forward_backward.ms / conv.forward_backward.ms);
    return std::string(cells) + " | " + workspace_cell(p.forward.peak, output_bytes) + " | " +
           workspace_cell(p.forward_backward.peak, output_bytes);
}

}  // namespace convcheck::bench
