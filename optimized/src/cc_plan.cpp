// CcPlan: validate, compute the projected grid per axis (cc_grid), pick the method and prepare it
// (cc_polyphase, cc_chunked; the kernel's evaluation in cc_kernel); execute runs the method.
#include "convcheck/optimized/cc_plan.hpp"

#include <tbb/task_arena.h>

#include <vector>

#include "cc_chunked.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "cc_polyphase.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "parallel_join.hpp"
#include "workspace_meter.hpp"

namespace convcheck::optimized {

using i64 = std::int64_t;

std::string_view to_string(CcMethod method) {
    switch (method) {
    case CcMethod::automatic: return "auto";
    case CcMethod::polyphase: return "polyphase";
    case CcMethod::chunked: return "chunked";
    }
    return "unknown";
}

std::string why_unavailable(const CcDescriptor& d, CcMethod method) {
    if (d.kernel == CcKernel::internal_net && !cpu_has_avx2_fma())
        return "the Internal-Net evaluation needs AVX2 and FMA, which this CPU lacks";
    switch (method) {
    case CcMethod::automatic:
    case CcMethod::chunked: return "";
    case CcMethod::polyphase:
        if (!d.scale[0].is_rational() || !d.scale[1].is_rational())
            return "needs a rational scale p/q on both axes (a real scale has no periodic grid)";
        if (!cpu_has_avx2_fma()) return "needs AVX2 and FMA, which this CPU lacks";
        return "";
    }
    return "is unknown";
}

namespace detail {

CcMethod automatic_method(const CcDescriptor& d, const AxisWindows& height, const AxisWindows& width) {
    // polyphase for the Internal-Net when the grid is periodic with few phases; the chunked method
    // otherwise. An analytic kernel gives every channel pair the same weight: the chunked method's
    // channel sums beat any convolution (0.6x a discrete conv against polyphase's 1.6x, measured)
    const bool rational = why_unavailable(d, CcMethod::polyphase).empty();
    const i64 phases = rational ? phase_count(height) * phase_count(width) : 0;
    const bool net = d.kernel == CcKernel::internal_net;
    return net && rational && phases <= 256 ? CcMethod::polyphase : CcMethod::chunked;
}

}  // namespace detail

struct CcPlan::Impl {
    CcMethod method = CcMethod::chunked;
    std::unique_ptr<detail::CcPolyphase> polyphase;  // the one of `method`
    std::unique_ptr<detail::CcChunked> chunked;
    std::unique_ptr<tbb::task_arena> arena;
    mutable detail::WorkspaceMeter meter;
};

CcPlan::CcPlan(const CcDescriptor& d, const float* theta, const float* bias, CcOptions options)
    : impl_(std::make_unique<Impl>()) {
    validate(d);
    if (d.kernel == CcKernel::internal_net && theta == nullptr)
        throw ConvError("theta", "null", "the Internal-Net needs its parameters theta");
    if (d.has_bias && bias == nullptr) throw ConvError("bias", "null", "a descriptor with bias=1 needs a bias buffer");
    if (options.threads < 0)
        throw ConvError("threads", std::to_string(options.threads), "must be 0 (TBB's default) or positive");
    Impl& m = *impl_;
    const std::string why = why_unavailable(d, options.forced_method);
    if (!why.empty()) throw ConvError("method", std::string(to_string(options.forced_method)), why);
    const detail::CcKernelParams kernel = detail::cc_kernel_params(d, theta);
    const std::vector<float> bias_values = d.has_bias ? std::vector<float>(bias, bias + d.out_channels) : std::vector<float>{};
    const detail::AxisWindows height = detail::axis_windows(d, 0), width = detail::axis_windows(d, 1);
    m.method = options.forced_method;
    if (m.method == CcMethod::automatic) m.method = detail::automatic_method(d, height, width);
    if (m.method == CcMethod::polyphase)
        m.polyphase = std::make_unique<detail::CcPolyphase>(d, kernel, height, width, bias_values);
    else
        m.chunked = std::make_unique<detail::CcChunked>(d, kernel, height, width, bias_values);
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
}

CcPlan::~CcPlan() = default;
CcPlan::CcPlan(CcPlan&&) noexcept = default;
CcPlan& CcPlan::operator=(CcPlan&&) noexcept = default;

void CcPlan::execute(const float* src, float* dst) const {
    if (src == nullptr || dst == nullptr) throw ConvError(src ? "dst" : "src", "null", "buffers must not be null");
    const Impl& m = *impl_;
    m.meter.reset();
    const auto run = [&] {
        if (m.polyphase)
            m.polyphase->run(src, dst, m.meter);
        else
            m.chunked->run(src, dst, m.meter);
    };
    if (m.arena)
        detail::arena_execute_joined(*m.arena, run);
    else
        run();
}

CcMethod CcPlan::method() const { return impl_->method; }
std::int64_t CcPlan::peak_workspace_bytes() const { return impl_->meter.peak(); }
std::int64_t CcPlan::chunk_bytes() const { return impl_->chunked ? impl_->chunked->chunk_bytes() : 0; }

}  // namespace convcheck::optimized
