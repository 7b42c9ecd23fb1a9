// CcBackwardPlan: validate, compute the projected grid per axis (cc_grid), pick the method as the
// forward does (polyphase for the Internal-Net on a rational scale: cc_backward_polyphase; chunked:
// cc_backward_net; analytic kernels: cc_backward_analytic); execute runs it and the bias gradient.
#include "convcheck/optimized/cc_backward_plan.hpp"

#include <tbb/task_arena.h>

#include <string>

#include "cc_backward_net.hpp"
#include "cc_backward_parts.hpp"
#include "cc_backward_polyphase.hpp"
#include "cc_polyphase.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "parallel_join.hpp"
#include "workspace_meter.hpp"

namespace convcheck::optimized {

struct CcBackwardPlan::Impl {
    CcDescriptor desc;
    detail::AxisWindows axes[2];
    CcMethod method = CcMethod::chunked;
    std::unique_ptr<detail::CcBackwardNet> net;              // kernel=net, chunked
    std::unique_ptr<detail::CcBackwardPolyphase> polyphase;  // kernel=net, polyphase
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
    if (options.forced_method == CcMethod::polyphase && !net)
        throw ConvError("method", "polyphase",
                        "the CC backward's polyphase method is the Internal-Net's (an analytic kernel's is channel sums)");
    const CcMethod asked = options.forced_method == CcMethod::automatic ? CcMethod::chunked : options.forced_method;
    const std::string why = why_unavailable(d, asked);
    if (!why.empty()) throw ConvError("method", std::string(to_string(asked)), why);
    Impl& m = *impl_;
    m.desc = d;
    m.axes[0] = detail::axis_windows(d, 0);
    m.axes[1] = detail::axis_windows(d, 1);
    m.method = options.forced_method == CcMethod::automatic ? detail::automatic_method(d, m.axes[0], m.axes[1])
                                                            : options.forced_method;
    if (net && m.method == CcMethod::polyphase)
        m.polyphase = std::make_unique<detail::CcBackwardPolyphase>(d, detail::cc_kernel_params(d, theta), m.axes[0],
                                                                    m.axes[1]);
    else if (net)
        m.net = std::make_unique<detail::CcBackwardNet>(d, detail::cc_kernel_params(d, theta), m.axes[0], m.axes[1]);
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
        // (the Internal-Net's methods sum diff_bias from the copies of diff_dst they make anyway)
        if (m.polyphase)
            m.polyphase->run(src, diff_dst, diff_src, diff_theta, diff_bias, m.meter);
        else if (m.net)
            m.net->run(src, diff_dst, diff_src, diff_theta, diff_bias, m.meter);
        else
            detail::cc_backward_analytic(d, m.axes[0], m.axes[1], diff_dst, diff_src, m.meter);
        if (diff_bias && !m.polyphase && !m.net) detail::cc_backward_bias(d, diff_dst, diff_bias);
    };
    if (m.arena)
        detail::arena_execute_joined(*m.arena, run);
    else
        run();
}

CcMethod CcBackwardPlan::method() const { return impl_->method; }
std::int64_t CcBackwardPlan::peak_workspace_bytes() const { return impl_->meter.peak(); }

}  // namespace convcheck::optimized
