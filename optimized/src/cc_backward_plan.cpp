// CcBackwardPlan: validate, compute the projected grid per axis (cc_grid), prepare the Internal-Net's
// reverse (cc_backward_net) or, for an analytic kernel, its weights' axes (cc_backward_analytic);
// execute runs it and the bias gradient.
#include "convcheck/optimized/cc_backward_plan.hpp"

#include <tbb/task_arena.h>

#include <string>

#include "cc_backward_net.hpp"
#include "cc_backward_parts.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "parallel_join.hpp"
#include "workspace_meter.hpp"

namespace convcheck::optimized {

struct CcBackwardPlan::Impl {
    CcDescriptor desc;
    detail::AxisWindows axes[2];
    std::unique_ptr<detail::CcBackwardNet> net;  // kernel=net
    std::unique_ptr<tbb::task_arena> arena;
    mutable detail::WorkspaceMeter meter;
};

CcBackwardPlan::CcBackwardPlan(const CcDescriptor& d, const float* theta, CcOptions options)
    : impl_(std::make_unique<Impl>()) {
    validate(d);
    const bool net = d.kernel == CcKernel::internal_net;
    if (net && theta == nullptr) throw ConvError("theta", "null", "the Internal-Net needs its parameters theta");
    if (!net && theta != nullptr) throw ConvError("theta", "non-null", "an analytic kernel has no parameters");
    if (options.threads < 0)
        throw ConvError("threads", std::to_string(options.threads), "must be 0 (TBB's default) or positive");
    if (options.forced_method == CcMethod::polyphase)
        throw ConvError("method", "polyphase", "the CC backward has one method, chunked (any scale)");
    const std::string why = why_unavailable(d, CcMethod::chunked);
    if (!why.empty()) throw ConvError("method", "chunked", why);
    Impl& m = *impl_;
    m.desc = d;
    m.axes[0] = detail::axis_windows(d, 0);
    m.axes[1] = detail::axis_windows(d, 1);
    if (net) m.net = std::make_unique<detail::CcBackwardNet>(d, detail::cc_kernel_params(d, theta), m.axes[0], m.axes[1]);
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
}

CcBackwardPlan::~CcBackwardPlan() = default;
CcBackwardPlan::CcBackwardPlan(CcBackwardPlan&&) noexcept = default;
CcBackwardPlan& CcBackwardPlan::operator=(CcBackwardPlan&&) noexcept = default;

void CcBackwardPlan::execute(const float* src, const float* diff_dst, float* diff_src, float* diff_theta,
                             float* diff_bias) const {
    const Impl& m = *impl_;
    const CcDescriptor& d = m.desc;
    if (src == nullptr || diff_dst == nullptr || diff_src == nullptr)
        throw ConvError(src == nullptr ? "src" : diff_dst == nullptr ? "diff_dst" : "diff_src", "null",
                        "buffers must not be null");
    const bool net = d.kernel == CcKernel::internal_net;
    if (net != (diff_theta != nullptr))
        throw ConvError("diff_theta", diff_theta ? "non-null" : "null", "must be non-null exactly when kernel=net");
    if (d.has_bias != (diff_bias != nullptr))
        throw ConvError("diff_bias", diff_bias ? "non-null" : "null", "must be non-null exactly when bias=1");
    m.meter.reset();
    const auto run = [&] {
        if (m.net)
            m.net->run(src, diff_dst, diff_src, diff_theta, m.meter);
        else
            detail::cc_backward_analytic(d, m.axes[0], m.axes[1], diff_dst, diff_src, m.meter);
        if (diff_bias) detail::cc_backward_bias(d, diff_dst, diff_bias);
    };
    if (m.arena)
        detail::arena_execute_joined(*m.arena, run);
    else
        run();
}

std::int64_t CcBackwardPlan::peak_workspace_bytes() const { return impl_->meter.peak(); }

}  // namespace convcheck::optimized
