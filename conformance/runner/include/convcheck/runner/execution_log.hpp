// What the backend's executions of one case left in their buffers, kept only when asked for: determinism
// mode (determinism.hpp) compares the outputs of several runs of a case bit for bit, and failure bundles
// (failure_bundle.hpp) write a failing case's inputs and outputs. One entry per execution, in the order
// the case's mode makes them: one; probe mode one per probed element; stress mode one per data kind.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "convcheck/runner/guarded_buffer.hpp"

namespace convcheck::runner {

struct RecordedExecution {
    // The bytes the plugin saw, in the case's dtype and formats (CC: theta in `weights`, f32); kept only
    // with ExecutionLog::keep_inputs. bias is empty for a case without bias. A backward pass: diff_dst
    // and its other input (backward data: weights; backward weights: src), the rest empty.
    std::vector<std::byte> src, weights, bias, diff_dst;
    // The output(s) as the backend left them: dst; a backward pass's gradients, back to back in their
    // layouts: diff_src, or diff_weights followed by diff_bias.
    std::vector<std::byte> dst;
    bool completed = false;      // execute returned normally (dst holds its result); else it crashed, hanged, ...
    int threads = 0;             // the num_threads the plugin instance was created with
    int run = 0;                 // determinism mode: the run (1, 2, ...) it belongs to; 0 outside it
};

struct ExecutionLog {
    bool keep_inputs = false;
    std::vector<RecordedExecution> executions;

    // Copies the buffers of one execution (weights and bias may be null).
    void record(const GuardedBuffer* src, const GuardedBuffer* weights, const GuardedBuffer* bias,
                const GuardedBuffer& dst, bool completed, int threads);
    // The same for a backward pass: its inputs (src or weights may be null) and its outputs, in order.
    void record_backward(const GuardedBuffer* src, const GuardedBuffer* weights, const GuardedBuffer& diff_dst,
                         const std::vector<const GuardedBuffer*>& outputs, bool completed, int threads);
};

}  // namespace convcheck::runner
