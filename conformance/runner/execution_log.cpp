#include "convcheck/runner/execution_log.hpp"

#include <cstring>

namespace convcheck::runner {

namespace {

std::vector<std::byte> copy_of(const GuardedBuffer* b) {
    if (b == nullptr || b->data() == nullptr) return {};
    std::vector<std::byte> bytes(b->bytes());
    std::memcpy(bytes.data(), b->data(), b->bytes());
    return bytes;
}

}  // namespace

void ExecutionLog::record(const GuardedBuffer* src, const GuardedBuffer* weights, const GuardedBuffer* bias,
                          const GuardedBuffer& dst, bool completed, int threads) {
    RecordedExecution e;
    if (keep_inputs) e.src = copy_of(src), e.weights = copy_of(weights), e.bias = copy_of(bias);
    e.dst = copy_of(&dst);
    e.completed = completed;
    e.threads = threads;
    executions.push_back(std::move(e));
}

void ExecutionLog::record_backward(const GuardedBuffer* src, const GuardedBuffer* weights, const GuardedBuffer& diff_dst,
                                   const std::vector<const GuardedBuffer*>& outputs, bool completed, int threads) {
    RecordedExecution e;
    if (keep_inputs) e.src = copy_of(src), e.weights = copy_of(weights), e.diff_dst = copy_of(&diff_dst);
    for (const GuardedBuffer* out : outputs) {
        const std::vector<std::byte> bytes = copy_of(out);
        e.dst.insert(e.dst.end(), bytes.begin(), bytes.end());
    }
    e.completed = completed;
    e.threads = threads;
    executions.push_back(std::move(e));
}

}  // namespace convcheck::runner
