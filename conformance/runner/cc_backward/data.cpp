// The CC backward pass's case data and its trip through the backend (case_pipeline.hpp): the forward's
// src and theta (cc_case_data), diff_dst from the case's seed, guarded f32 buffers, one isolated
// execution (cc_backward/calls.cpp), the gradients read back.
#include <cstring>
#include <random>

#include "convcheck/abi/abi_descriptor.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

std::vector<float> cc_backward_diff_dst(const CcDescriptor& d, std::uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x63636277647374ULL);  // "ccbwdst": not the forward data's stream
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(d.dst_elements()));
    for (float& x : v) x = u(rng);
    return v;
}

ChildOutcome run_cc_backward(const Backend& backend, const CcDescriptor& d, const CcData& data,
                             const std::vector<float>& diff_dst, const CheckSettings& s, const CaseMemory& needs,
                             CcGradients& out) {
    const GuardedBuffer src = guarded_copy(data.src), theta = guarded_copy(data.theta), dd = guarded_copy(diff_dst);
    auto output = [](std::int64_t elements) {  // filled with the "never written" pattern
        GuardedBuffer b(static_cast<std::size_t>(elements) * sizeof(float));
        if (b.bytes() > 0) std::memset(b.data(), 0xFF, b.bytes());  // an empty buffer has no data()
        return b;
    };
    const bool net = d.kernel == CcKernel::internal_net;
    const GuardedBuffer diff_src = output(d.src_elements()), diff_theta = output(net ? d.theta_elements() : 0),
                        diff_bias = output(d.has_bias ? d.out_channels : 0);
    CcBackwardExecution x;
    x.desc = to_abi(d);
    x.src = &src;
    x.theta = net ? &theta : nullptr;
    x.diff_dst = &dd;
    x.diff_src = &diff_src;
    x.diff_theta = net ? &diff_theta : nullptr;
    x.diff_bias = d.has_bias ? &diff_bias : nullptr;
    static_cast<ExecutionLimits&>(x) = execution_limits(s, needs.total());
    const ChildOutcome o = execute_cc_backward(*backend.plugin, backend.options, x);
    if (s.log)  // determinism mode (execution_log.hpp): the gradients in order, theta in the weights' place
        s.log->record_backward(x.src, x.theta, dd, {x.diff_src, x.diff_theta, x.diff_bias},
                               o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
    if (o.kind != ChildOutcome::Kind::ok) return o;
    for (const GuardedBuffer* b : {x.diff_src, x.diff_theta, x.diff_bias}) {
        if (!b) continue;
        const std::int64_t n = static_cast<std::int64_t>(b->bytes() / sizeof(float));
        const float* v = static_cast<const float*>(b->data());
        out.got.insert(out.got.end(), v, v + n);
        out.unwritten += unwritten_elements(b->data(), n, sizeof(float));
    }
    return o;
}

}  // namespace convcheck::runner::detail
