// CcPlan: the projected grid and its windows per axis, then one of two methods (cc_plan.hpp).
#include "convcheck/optimized/cc_plan.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "blocked_pack.hpp"
#include "cc_net.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "edges.hpp"
#include "index_range.hpp"
#include "parallel_join.hpp"
#include "workspace_pool.hpp"
#include "rational.hpp"

namespace convcheck::optimized {

using detail::i64;

std::string_view to_string(CcMethod method) {
    switch (method) {
    case CcMethod::automatic: return "auto";
    case CcMethod::polyphase: return "polyphase";
    case CcMethod::chunked: return "chunked";
    }
    return "unknown";
}

namespace detail {

CcKernelParams cc_kernel_params(const CcDescriptor& d, const float* theta) {
    CcKernelParams p;
    p.kind = d.kernel;
    p.parameter = d.kernel_parameter;
    p.in_channels = d.in_channels;
    p.out_channels = d.out_channels;
    p.h1 = d.hidden_widths[0];
    p.h2 = d.hidden_widths[1];
    p.slope = d.leaky_relu_slope;
    if (d.kernel != CcKernel::internal_net) return p;
    const i64 c = d.in_channels * d.out_channels;
    const float* at = theta;
    const auto take = [&](std::vector<double>& v, i64 n) {
        v.assign(at, at + n);
        at += n;
    };
    take(p.W1, p.h1 * 2);
    take(p.b1, p.h1);
    take(p.W2, p.h2 * p.h1);
    take(p.b2, p.h2);
    take(p.W3, c * p.h2);
    take(p.b3, c);
    return p;
}

namespace {

// k(t) of the analytic kernels (continuous_kernel.hpp of the reference states the same formulas).
double analytic_1d(CcKernel kind, double sigma, double t) {
    const double x = std::fabs(t);
    switch (kind) {
    case CcKernel::linear: return std::max(0.0, 1.0 - x);
    case CcKernel::cubic: {
        constexpr double a = -0.5;  // Keys (1981)
        if (x <= 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
        if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
        return 0.0;
    }
    case CcKernel::gaussian: return std::exp(-(t * t) / (2.0 * sigma * sigma));
    case CcKernel::internal_net: break;
    }
    return 0.0;
}

}  // namespace

void evaluate_analytic(const CcKernelParams& p, const double* pairs, std::int64_t count, double* out) {
    const i64 c = p.in_channels * p.out_channels;
    for (i64 j = 0; j < count; ++j) {
        const double w = analytic_1d(p.kind, p.parameter, pairs[2 * j]) * analytic_1d(p.kind, p.parameter, pairs[2 * j + 1]);
        std::fill(out + j * c, out + (j + 1) * c, w);
    }
}

}  // namespace detail

namespace {

// One axis of the projected grid (Eq. 2) and its windows: output n reads the k input positions
// first[n] .. first[n]+k-1 with distances D = g_n - m.
struct AxisWindows {
    i64 in = 1, out = 1, support = 1;
    bool exact = true;
    i64 p = 1, q = 1;                 // the scale p/q (exact scales)
    std::vector<i64> first;           // first neighbour of every output
    std::vector<double> distance;     // [out][k]
};

AxisWindows axis_windows(const CcDescriptor& d, int axis) {
    AxisWindows w;
    w.in = d.input_size[axis];
    w.out = d.output_size[axis];
    w.support = d.support[axis];
    const CcScale& scale = d.scale[axis];
    w.exact = scale.is_rational();
    if (w.exact) {
        w.p = scale.numerator;
        w.q = scale.denominator;
    }
    const Rational half_support(w.support, 2);
    for (i64 n = 0; n < w.out; ++n) {
        if (w.exact) {
            // g_n = n/s + (in-1)/2 - (out-1)/(2s), exactly; the window g - k/2 <= m < g + k/2
            const Rational s = scale.rational();
            const Rational g = Rational(n) / s + Rational(w.in - 1, 2) - Rational(w.out - 1) / (Rational(2) * s);
            const i64 first = (g - half_support).ceil();
            w.first.push_back(first);
            for (i64 j = 0; j < w.support; ++j) w.distance.push_back((g - Rational(first + j)).to_double());
        } else {
            const double s = scale.value;
            const double g = static_cast<double>(n) / s + 0.5 * static_cast<double>(w.in - 1) -
                             static_cast<double>(w.out - 1) / (2.0 * s);
            const i64 first = cc_ceil(g - 0.5 * static_cast<double>(w.support));
            w.first.push_back(first);
            for (i64 j = 0; j < w.support; ++j) w.distance.push_back(g - static_cast<double>(first + j));
        }
    }
    return w;
}

// Phases of an exact axis: outputs r, r+p, r+2p, ... share their distances, and their first
// neighbours step by q (g_{n+p} = g_n + q).
i64 phase_count(const AxisWindows& w) { return std::min(w.p, w.out); }

}  // namespace

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

struct CcPlan::Impl {
    CcDescriptor desc;
    CcMethod method = CcMethod::chunked;
    detail::CcKernelParams params;
    AxisWindows axes[2];
    std::vector<float> bias;
    std::unique_ptr<tbb::task_arena> arena;
    mutable std::atomic<i64> held{0}, peak{0};
    // polyphase: the padded input, the channels-last output, the blocked kernel's scratch
    detail::WorkspacePool<float> padded_inputs, outputs;
    detail::WorkspacePool<i64> kernel_scratch;

    // polyphase
    bool avx512 = false;
    i64 phases[2]{1, 1}, pad_lo[2]{0, 0}, pad_hi[2]{0, 0};
    ConvDescriptor padded_src;  // the input as a "conv" for the edges: NCX f32, pads pad_lo/pad_hi
    detail::Geometry src_geometry, dst_geometry;
    detail::Geometry phase_geometry;  // Cin -> Cout, kernel k_h x k_w, channel stride Cin
    std::vector<i64> taps;
    std::vector<detail::BlockedWeights> phase_weights;
    std::vector<detail::BlockedProblem> phase_problems;

    // chunked
    i64 chunk_pixels = 1;
    i64 chunk_bytes = 0;

    void count_in(i64 bytes) const {
        const i64 now = held.fetch_add(bytes) + bytes;
        i64 old = peak.load();
        while (now > old && !peak.compare_exchange_weak(old, now)) {
        }
    }
    void count_out(i64 bytes) const { held.fetch_sub(bytes); }

    void evaluate(const double* pairs, i64 count, double* out) const {
        if (params.kind == CcKernel::internal_net)
            detail::evaluate_internal_net(params, pairs, count, out);
        else
            detail::evaluate_analytic(params, pairs, count, out);
    }

    void prepare_polyphase();
    void run_polyphase(const float* src, float* dst) const;
    void prepare_chunked();
    void run_chunked(const float* src, float* dst) const;
};

void CcPlan::Impl::prepare_polyphase() {
    const CcDescriptor& d = desc;
    const i64 Cin = d.in_channels, Cout = d.out_channels, kh = d.support[0], kw = d.support[1];
    for (int a = 0; a < 2; ++a) {
        const AxisWindows& w = axes[a];
        phases[a] = phase_count(w);
        i64 lo = 0, hi = w.in;
        for (i64 r = 0; r < phases[a]; ++r) {
            const i64 count = (w.out - r + w.p - 1) / w.p;
            lo = std::min(lo, w.first[r]);
            hi = std::max(hi, w.first[r] + (count - 1) * w.q + w.support);
        }
        pad_lo[a] = -lo;
        pad_hi[a] = hi - w.in;
    }
    padded_src = ConvDescriptor{};
    padded_src.rank = 2;
    padded_src.batch = d.batch;
    padded_src.in_channels = Cin;
    padded_src.out_channels = Cout;
    for (int a = 0; a < 2; ++a) {
        padded_src.input_size[a] = d.input_size[a];
        padded_src.pads_begin[a] = pad_lo[a];
        padded_src.pads_end[a] = pad_hi[a];
    }
    padded_src.data_format = DataFormat::ncx;
    detail::check_index_range(padded_src);  // its padded input must stay within the 64-bit indices
    src_geometry = detail::make_geometry(padded_src, 1);

    phase_geometry = detail::Geometry{};
    phase_geometry.batch = d.batch;
    phase_geometry.in_channels = phase_geometry.in_per_group = Cin;
    phase_geometry.out_channels = phase_geometry.out_per_group = Cout;
    phase_geometry.kernel[1] = kh;
    phase_geometry.kernel[2] = kw;
    phase_geometry.channel_stride = Cin;
    for (i64 y = 0; y < kh; ++y)
        for (i64 x = 0; x < kw; ++x) taps.push_back((y * src_geometry.padded[2] + x) * Cin);

    // the output as a "conv" result for the edges: [N][H'][W'][Cout] -> NCHW
    dst_geometry = detail::Geometry{};
    dst_geometry.batch = d.batch;
    dst_geometry.out_channels = Cout;
    dst_geometry.out[1] = d.output_size[0];
    dst_geometry.out[2] = d.output_size[1];

    // every phase's weights at once: pairs for (rh, rw, y, x), evaluated in double, rounded once
    const i64 P = phases[0] * phases[1], K = kh * kw, C = Cin * Cout;
    std::vector<double> pairs, values(static_cast<std::size_t>(P * K * C));
    for (i64 rh = 0; rh < phases[0]; ++rh)
        for (i64 rw = 0; rw < phases[1]; ++rw)
            for (i64 y = 0; y < kh; ++y)
                for (i64 x = 0; x < kw; ++x) {
                    pairs.push_back(axes[0].distance[rh * kh + y]);  // dy
                    pairs.push_back(axes[1].distance[rw * kw + x]);  // dx
                }
    evaluate(pairs.data(), P * K, values.data());
    avx512 = cpu_has_avx512();
    for (i64 ph = 0; ph < P; ++ph) {
        std::vector<float> canonical(static_cast<std::size_t>(Cout * Cin * K));  // [Cout][Cin][taps]
        for (i64 t = 0; t < K; ++t)
            for (i64 co = 0; co < Cout; ++co)
                for (i64 ci = 0; ci < Cin; ++ci)
                    canonical[(co * Cin + ci) * K + t] = static_cast<float>(values[((ph * K) + t) * C + co * Cin + ci]);
        phase_weights.push_back(detail::pack_blocked(canonical, bias, 1, Cin, Cout, K, avx512));
    }
    for (const auto& w : phase_weights) phase_problems.push_back(w.problem(&phase_geometry, taps.data()));
}

void CcPlan::Impl::run_polyphase(const float* src, float* dst) const {
    const CcDescriptor& d = desc;
    const detail::Geometry& sg = src_geometry;
    const i64 Cin = d.in_channels, Cout = d.out_channels, OH = d.output_size[0], OW = d.output_size[1];
    const i64 xp_floats = d.batch * sg.padded_pixels() * Cin, y_floats = d.batch * OH * OW * Cout;
    count_in((xp_floats + y_floats) * 4);
    detail::Workspace<float> xp = padded_inputs.take(static_cast<std::size_t>(xp_floats));
    detail::Workspace<float> y = outputs.take(static_cast<std::size_t>(y_floats));
    // (pooled: the same floats are written on every call, and any other keeps the first call's zero fill)
    detail::parallel_for_joined(tbb::blocked_range<i64>(0, detail::pack_src_task_count(padded_src, sg)), [&](const auto& r) {
        detail::pack_src_tasks(padded_src, sg, src, xp.data(), r.begin(), r.end());
    });
    const i64 ocs_count = phase_problems.front().oc_super_blocks;
    const i64 block = phase_problems.front().vector_blocks * (avx512 ? 16 : 8);
    const i64 scratch_elements = phase_problems.front().scratch_elements();  // the phases share their geometry
    const AxisWindows &ah = axes[0], &aw = axes[1];
    // rows (n, oy, ocs): output row oy is phase oy % p_h, step oy / p_h of that phase
    detail::parallel_for_joined(tbb::blocked_range<i64>(0, d.batch * OH * ocs_count), [&](const auto& r) {
        detail::Workspace<i64> scratch = kernel_scratch.take(static_cast<std::size_t>(scratch_elements));
        for (i64 row = r.begin(); row < r.end(); ++row) {
            const i64 ocs = row % ocs_count, oy = (row / ocs_count) % OH, n = row / (ocs_count * OH);
            const i64 rh = oy % ah.p, step = oy / ah.p;
            const i64 in_row = ah.first[rh] + step * ah.q + pad_lo[0];
            for (i64 rw = 0; rw < phases[1]; ++rw) {
                const detail::BlockedProblem& problem = phase_problems[rh * phases[1] + rw];
                detail::BlockedSegment segment;
                segment.x = xp.data() + ((n * sg.padded[1] + in_row) * sg.padded[2] + aw.first[rw] + pad_lo[1]) * Cin;
                segment.x_pixel_step = aw.q * Cin;
                segment.y = y.data() + ((n * OH + oy) * OW + rw) * Cout + ocs * block;
                segment.y_pixel_step = aw.p * Cout;
                segment.count = (OW - rw + aw.p - 1) / aw.p;
                segment.ocs = ocs;
                if (avx512)
                    detail::avx512::blocked_segment(problem, segment, scratch.data());
                else
                    detail::avx2::blocked_segment(problem, segment, scratch.data());
            }
        }
    });
    ConvDescriptor out_desc = padded_src;
    out_desc.out_channels = Cout;
    detail::parallel_for_joined(tbb::blocked_range<i64>(0, detail::store_dst_task_count(out_desc, dst_geometry)), [&](const auto& r) {
        detail::store_dst_tasks(out_desc, dst_geometry, y.data(), dst, r.begin(), r.end());
    });
    count_out((xp_floats + y_floats) * 4);
}

void CcPlan::Impl::prepare_chunked() {
    const CcDescriptor& d = desc;
    const i64 K = d.neighbours(), C = d.in_channels * d.out_channels;
    // per output pixel: pairs (2K doubles), kernel values (K*C doubles) and scratch, f32 weights (K*C)
    const i64 per_pixel = K * (2 + C) * 8 + K * C * 4 +
                          (d.kernel == CcKernel::internal_net ? detail::internal_net_scratch_doubles(params, K) * 8 : 0);
    const i64 output_bytes = d.dst_elements() * 4;
    chunk_pixels = std::clamp<i64>(output_bytes / 4 / per_pixel, 1, d.output_size[0] * d.output_size[1]);
    chunk_bytes = chunk_pixels * per_pixel + d.out_channels * 4;
}

void CcPlan::Impl::run_chunked(const float* src, float* dst) const {
    const CcDescriptor& d = desc;
    const i64 Cin = d.in_channels, Cout = d.out_channels, C = Cin * Cout;
    const i64 H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    const i64 kh = d.support[0], kw = d.support[1], K = kh * kw, pixels = OH * OW;
    const i64 chunks = (pixels + chunk_pixels - 1) / chunk_pixels;
    detail::parallel_for_joined(tbb::blocked_range<i64>(0, chunks, 1), [&](const auto& r) {
        for (i64 chunk = r.begin(); chunk < r.end(); ++chunk) {
            const i64 p0 = chunk * chunk_pixels, count = std::min(chunk_pixels, pixels - p0);
            count_in(chunk_bytes);
            {
                std::vector<double> pairs(static_cast<std::size_t>(2 * count * K));
                std::vector<double> values(static_cast<std::size_t>(count * K * C));
                std::vector<float> weights(static_cast<std::size_t>(count * K * C));  // [pixel][k][cin][cout]
                std::vector<float> acc(static_cast<std::size_t>(Cout));
                for (i64 i = 0; i < count; ++i) {
                    const i64 oy = (p0 + i) / OW, ox = (p0 + i) % OW;
                    for (i64 y = 0; y < kh; ++y)
                        for (i64 x = 0; x < kw; ++x) {
                            const i64 j = (i * K + y * kw + x) * 2;
                            pairs[j] = axes[0].distance[oy * kh + y];
                            pairs[j + 1] = axes[1].distance[ox * kw + x];
                        }
                }
                evaluate(pairs.data(), count * K, values.data());
                for (i64 j = 0; j < count * K; ++j)
                    for (i64 co = 0; co < Cout; ++co)
                        for (i64 ci = 0; ci < Cin; ++ci)
                            weights[(j * Cin + ci) * Cout + co] = static_cast<float>(values[j * C + co * Cin + ci]);
                for (i64 i = 0; i < count; ++i) {
                    const i64 oy = (p0 + i) / OW, ox = (p0 + i) % OW;
                    for (i64 n = 0; n < d.batch; ++n) {
                        for (i64 co = 0; co < Cout; ++co) acc[co] = bias.empty() ? 0.0f : bias[co];
                        for (i64 y = 0; y < kh; ++y) {
                            const i64 my = axes[0].first[oy] + y;
                            if (my < 0 || my >= H) continue;  // zero padding
                            for (i64 x = 0; x < kw; ++x) {
                                const i64 mx = axes[1].first[ox] + x;
                                if (mx < 0 || mx >= W) continue;
                                const float* w = weights.data() + (i * K + y * kw + x) * Cin * Cout;
                                for (i64 ci = 0; ci < Cin; ++ci) {
                                    const float v = src[((n * Cin + ci) * H + my) * W + mx];
                                    for (i64 co = 0; co < Cout; ++co) acc[co] += v * w[ci * Cout + co];
                                }
                            }
                        }
                        for (i64 co = 0; co < Cout; ++co) dst[((n * Cout + co) * OH + oy) * OW + ox] = acc[co];
                    }
                }
            }
            count_out(chunk_bytes);
        }
    });
}

CcPlan::CcPlan(const CcDescriptor& d, const float* theta, const float* bias, CcOptions options)
    : impl_(std::make_unique<Impl>()) {
    validate(d);
    if (d.kernel == CcKernel::internal_net && theta == nullptr)
        throw ConvError("theta", "null", "the Internal-Net needs its parameters theta");
    if (d.has_bias && bias == nullptr) throw ConvError("bias", "null", "a descriptor with bias=1 needs a bias buffer");
    if (options.threads < 0)
        throw ConvError("threads", std::to_string(options.threads), "must be 0 (TBB's default) or positive");
    Impl& m = *impl_;
    m.desc = d;
    const std::string why = why_unavailable(d, options.forced_method);
    if (!why.empty()) throw ConvError("method", std::string(to_string(options.forced_method)), why);
    m.params = detail::cc_kernel_params(d, theta);
    if (d.has_bias) m.bias.assign(bias, bias + d.out_channels);
    m.axes[0] = axis_windows(d, 0);
    m.axes[1] = axis_windows(d, 1);
    m.method = options.forced_method;
    if (m.method == CcMethod::automatic) {
        // polyphase when the grid is periodic with few phases; the chunked method otherwise
        const bool rational = why_unavailable(d, CcMethod::polyphase).empty();
        const i64 phases = rational ? phase_count(m.axes[0]) * phase_count(m.axes[1]) : 0;
        m.method = rational && phases <= 256 ? CcMethod::polyphase : CcMethod::chunked;
    }
    if (m.method == CcMethod::polyphase)
        m.prepare_polyphase();
    else
        m.prepare_chunked();
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
}

CcPlan::~CcPlan() = default;
CcPlan::CcPlan(CcPlan&&) noexcept = default;
CcPlan& CcPlan::operator=(CcPlan&&) noexcept = default;

void CcPlan::execute(const float* src, float* dst) const {
    if (src == nullptr || dst == nullptr) throw ConvError(src ? "dst" : "src", "null", "buffers must not be null");
    const Impl& m = *impl_;
    m.peak = 0;
    m.held = 0;
    const auto run = [&] {
        if (m.method == CcMethod::polyphase)
            m.run_polyphase(src, dst);
        else
            m.run_chunked(src, dst);
    };
    if (m.arena)
        detail::arena_execute_joined(*m.arena, run);
    else
        run();
}

CcMethod CcPlan::method() const { return impl_->method; }
std::int64_t CcPlan::peak_workspace_bytes() const { return impl_->peak.load(); }
std::int64_t CcPlan::chunk_bytes() const { return impl_->method == CcMethod::chunked ? impl_->chunk_bytes : 0; }

}  // namespace convcheck::optimized
