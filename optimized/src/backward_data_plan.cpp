// BackwardDataPlan: backward data as forward ConvPlans, one per phase of the polyphase form
// (backward_phases.hpp). A single phase (all strides 1) writes diff_src itself; otherwise each phase
// writes its own output (rounded once there, in d's dtype and data format) and a scatter moves it to
// its x = r + S*j, or writes the zeros of a phase no tap reaches. A depthwise layer with a stride, or
// a layer of at most 4 input channels, or a 1x1 layer with stride 1 and few input channels, or any other
// one-group layer whose phases' row tiles skip at most kRowsMaxSkip columns, f32 channels last, runs a
// kernel of its own instead (backward_data_depthwise.hpp, backward_data_narrow.hpp,
// backward_data_pointwise.hpp, backward_data_rows_plan.hpp: each phase written in place).
#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include <emmintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "backward_data_depthwise.hpp"
#include "backward_data_narrow.hpp"
#include "backward_data_pointwise.hpp"
#include "backward_data_rows_plan.hpp"
#include "backward_phases.hpp"
#include "convcheck/optimized/backward_plan.hpp"
#include "conversions.hpp"
#include "parallel_join.hpp"
#include "stream_bound.hpp"
#include "workspace_pool.hpp"

namespace convcheck::optimized {

using detail::i64;

namespace {

// Each tile of the pointwise kernel streams every super block's weights (from L2 up to here).
constexpr i64 kPointwiseMaxWeightBytes = i64{1} << 20;

// `bytes` zeros at `to` by non-temporal stores (16 bytes each; the edges that are not 16-byte aligned plainly): no
// read for ownership of their lines. The caller fences.
void zeros_nontemporal(unsigned char* to, i64 bytes) {
    const auto at = reinterpret_cast<std::uintptr_t>(to);
    const i64 head = std::min<i64>(bytes, static_cast<i64>((16 - at % 16) % 16));
    std::memset(to, 0, static_cast<std::size_t>(head));
    const __m128i zero = _mm_setzero_si128();
    i64 i = head;
    for (; i + 16 <= bytes; i += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(to + i), zero);
    std::memset(to + i, 0, static_cast<std::size_t>(bytes - i));
}

// One phase's elements to (or zeros into) their places in diff_src: rows (n, [c,] jd, jh) in [begin, end).
struct Scatter {
    const ConvDescriptor* d;
    const detail::Phase* phase;
    i64 J[3]{1, 1, 1}, r[3]{0, 0, 0}, S[3]{1, 1, 1}, X[3]{1, 1, 1};
    Scatter(const ConvDescriptor& desc, const detail::Phase& p) : d(&desc), phase(&p) {
        const int shift = 3 - desc.rank;
        for (int a = 0; a < desc.rank; ++a) {
            J[shift + a] = p.axis[a].outputs;
            r[shift + a] = p.axis[a].residue;
            S[shift + a] = p.axis[a].step;
            X[shift + a] = desc.input_size[a];
        }
    }
    bool stream = false;  // zeros by non-temporal stores
    bool ncx() const { return d->data_format == DataFormat::ncx; }
    i64 rows() const { return d->batch * (ncx() ? d->in_channels : 1) * J[0] * J[1]; }
    void run(const unsigned char* from, unsigned char* to, i64 begin, i64 end) const {
        const i64 es = size_of(d->dtype), C = d->in_channels;
        for (i64 row = begin; row < end; ++row) {
            const i64 jh = row % J[1], jd = (row / J[1]) % J[0], nc = row / (J[1] * J[0]);
            const i64 xd = r[0] + S[0] * jd, xh = r[1] + S[1] * jh;
            if (ncx()) {  // nc = n*C + c: J[2] elements, x steps of S[2]
                const i64 src_at = row * J[2], dst_at = ((nc * X[0] + xd) * X[1] + xh) * X[2] + r[2];
                for (i64 jw = 0; jw < J[2]; ++jw) {
                    unsigned char* out = to + (dst_at + jw * S[2]) * es;
                    if (from) std::memcpy(out, from + (src_at + jw) * es, es);
                    else std::memset(out, 0, es);
                }
            } else {  // nc = n: J[2] pixels of C elements
                const i64 src_at = row * J[2] * C, dst_at = (((nc * X[0] + xd) * X[1] + xh) * X[2] + r[2]) * C;
                for (i64 jw = 0; jw < J[2]; ++jw) {
                    unsigned char* out = to + (dst_at + jw * S[2] * C) * es;
                    if (from) std::memcpy(out, from + (src_at + jw * C) * es, C * es);
                    else if (stream) zeros_nontemporal(out, C * es);
                    else std::memset(out, 0, C * es);
                }
            }
        }
    }
};

}  // namespace

struct BackwardDataPlan::Impl {
    ConvDescriptor desc;
    std::vector<detail::Phase> phases;
    std::vector<std::optional<ConvPlan>> plans;  // per phase; empty for a phase with no tap
    bool direct = false;                          // one phase, its output is diff_src
    std::unique_ptr<tbb::task_arena> arena;
    int threads = 1;  // what the work is cut for: Options::threads, 0 resolved to the constructing arena's concurrency
    // diff_src bytes past which the own kernels (pointwise, rows) and the zeros of the phases no tap reaches store it
    // non-temporally (Options::stream_large_output and stream_nxc_output_above, as the forward's channels-last
    // output); -1: never
    i64 stream_above = -1;
    detail::WorkspacePool<float> outputs;
    detail::WorkspacePool<i64> lists;  // the own kernels' scratch
    // a kernel of its own (backward_data_depthwise.hpp, backward_data_narrow.hpp) when one runs: its ISA
    enum class Own { none, depthwise, narrow, pointwise, rows } own = Own::none;
    Path own_isa = Path::automatic;
    detail::Geometry geometry;
    CacheLineFloats own_weights, zeros;  // 64-byte vectors on cache lines
    detail::DepthwiseBackwardData depthwise;
    detail::NarrowBackwardData narrow;
    detail::PointwiseBackwardData pointwise;
    detail::RowsPlan rows;  // the row kernel's phases

    // A 1x1 layer, one group, every stride 1, no padding, weights of at most kPointwiseMaxWeightBytes: its
    // own kernel (the weights [super block][O][NB*W], NB the most vectors with the least waste). Measured
    // against the forward's blocked kernel at 1 thread: pw16_96_112 6.0-6.5 -> 4.0-4.3 ms, res2_1x1_64
    // 2.6-2.7 -> 2.4, pw576_96_14 (221 KB of weights) 2.0 -> 1.85, res4_1x1_1024 (1 MB) 9.2-9.7 -> 9.0-9.3.
    bool plan_pointwise(const ConvDescriptor& d, const std::vector<float>& canonical, i64 W) {
        const bool wide = own_isa == Path::blocked_avx512;
        const int most = wide ? detail::avx512::pointwise_backward_data_max_blocks() : detail::avx2::pointwise_backward_data_max_blocks();
        const i64 C = d.in_channels, O = d.out_channels;
        if (d.groups != 1 || C * O * 4 > kPointwiseMaxWeightBytes) return false;
        for (int a = 0; a < d.rank; ++a)
            if (d.kernel_size[a] != 1 || d.strides[a] != 1 || d.pads_begin[a] != 0 || d.pads_end[a] != 0) return false;
        int nb = 1;
        i64 least_waste = -1;
        for (int b = most; b >= 1; --b) {  // the most vectors among those that waste the fewest lanes
            const i64 block = b * W, waste = (C + block - 1) / block * block - C;
            if (least_waste < 0 || waste < least_waste) least_waste = waste, nb = b;
        }
        const i64 block = nb * W, super_blocks = (C + block - 1) / block;
        own_weights.assign(static_cast<std::size_t>(super_blocks * O * block), 0.0f);
        // one vector of channels with AVX-512 and O in quads: diff_dst broadcast four o at a time
        const bool quads = wide && nb == 1 && O % 4 == 0;
        if (quads)
            detail::pointwise_quad_weights(canonical.data(), O, C, own_weights.data());
        else
            for (i64 o = 0; o < O; ++o)
                for (i64 c = 0; c < C; ++c)
                    own_weights[static_cast<std::size_t>((c / block * O + o) * block + c % block)] = canonical[o * C + c];
        pointwise = {d.batch * geometry.in[0] * geometry.in[1] * geometry.in[2], C, O, nb, super_blocks, own_weights.data(), quads};
        pointwise.chunk_pixels = detail::pointwise_chunk_pixels(pointwise.pixels, threads);
        // diff_src that would not stay in the cache: res2_1x1_reduce at batch 8 (25.7 MB), Zen 4, 1 thread, 8.34 ->
        // 7.53 ms (bench/results/backward.md)
        pointwise.stream_output = streams(pointwise.pixels * C);
        own = Own::pointwise;
        return true;
    }

    void plan_own_kernel(const ConvDescriptor& d, const std::vector<float>& canonical, Path forced) {
        bool strided = false;
        for (int a = 0; a < d.rank; ++a) strided = strided || (d.output_size(a) > 1 && d.strides[a] > 1);
        const bool dense = d.src_strides.empty() && d.dst_strides.empty();
        if (forced != Path::automatic || !dense || d.dtype != DataType::f32 || d.data_format != DataFormat::nxc) return;
        if (cpu_has_avx512()) own_isa = Path::blocked_avx512;
        else if (cpu_has_avx2_fma()) own_isa = Path::blocked_avx2;
        else return;
        const i64 W = own_isa == Path::blocked_avx512 ? detail::avx512::backward_data_lanes() : detail::avx2::backward_data_lanes();
        const i64 C = d.in_channels, O = d.out_channels;
        geometry = detail::make_geometry(d, 1);
        const i64 taps = geometry.taps();
        if (C > detail::kNarrowMaxChannels && plan_pointwise(d, canonical, W)) return;
        if (strided && d.groups == C && d.groups == O) {  // [taps][blocks * W], zeros past C
            own = Own::depthwise;
            const i64 blocks = (C + W - 1) / W;
            own_weights.assign(static_cast<std::size_t>(taps * blocks * W), 0.0f);
            for (i64 t = 0; t < taps; ++t)
                for (i64 c = 0; c < C; ++c) own_weights[static_cast<std::size_t>(t * blocks * W + c)] = canonical[c * taps + t];
            depthwise = {&geometry, own_weights.data(), blocks, streams(d.src_elements())};
        } else if (d.groups == 1 && C <= detail::kNarrowMaxChannels && O % W == 0) {  // [taps][C][O]
            own = Own::narrow;
            own_weights.assign(static_cast<std::size_t>(taps * C * O), 0.0f);
            for (i64 t = 0; t < taps; ++t)
                for (i64 c = 0; c < C; ++c)
                    for (i64 o = 0; o < O; ++o) own_weights[static_cast<std::size_t>((t * C + c) * O + o)] = canonical[(o * C + c) * taps + t];
            zeros.assign(static_cast<std::size_t>(O), 0.0f);
            narrow = {&geometry, own_weights.data(), zeros.data()};
        } else if (detail::plan_rows(d, canonical, own_isa == Path::blocked_avx512, rows)) {
            own = Own::rows;
            // every phase writes its pixels of diff_src once, in place: non-temporally past the bound (res3_downsample
            // at batch 8, 25.7 MB, its three phases of zeros and its phase of sums)
            for (detail::RowsBackwardData& k : rows.kernels) k.stream_output = streams(d.src_elements());
        } else {
            own_isa = Path::automatic;
        }
    }

    // Whether a diff_src of `elements` f32 is stored non-temporally: past the streaming bound (stream_above).
    bool streams(i64 elements) const { return stream_above >= 0 && 4 * elements > stream_above; }

    // The zeros of a phase no tap reaches, in their places in diff_src (non-temporally when diff_src streams: the
    // 1 KB a pixel of res3_downsample's three phases of zeros took 2.3 ms of its 18.5 stored plainly).
    void zeros_of(const detail::Phase& phase, void* diff_src) const {
        Scatter scatter(desc, phase);
        scatter.stream = desc.dtype == DataType::f32 && streams(desc.src_elements());
        auto* to = static_cast<unsigned char*>(diff_src);
        detail::parallel_for_joined(tbb::blocked_range<i64>(0, scatter.rows()), [&](const tbb::blocked_range<i64>& r) {
            scatter.run(nullptr, to, r.begin(), r.end());
            if (scatter.stream) _mm_sfence();  // the non-temporal stores visible before the join
        });
    }

    void run(const void* diff_dst, void* diff_src) const {
        if (own != Own::none) {
            const auto* dy = static_cast<const float*>(diff_dst);
            auto* dx = static_cast<float*>(diff_src);
            const bool wide = own_isa == Path::blocked_avx512;
            if (own == Own::pointwise) {
                detail::parallel_for_joined(tbb::blocked_range<i64>(0, pointwise.chunks()), [&](const tbb::blocked_range<i64>& r) {
                    if (pointwise.quads) detail::avx512::pointwise_backward_data_quads(pointwise, dy, dx, r.begin(), r.end());
                    else if (wide) detail::avx512::pointwise_backward_data_chunks(pointwise, dy, dx, r.begin(), r.end());
                    else detail::avx2::pointwise_backward_data_chunks(pointwise, dy, dx, r.begin(), r.end());
                });
                return;
            }
            if (own == Own::rows) {
                for (std::size_t i = 0; i < rows.phases.size(); ++i) {
                    if (!rows.phases[i].has_taps) {
                        zeros_of(rows.phases[i], diff_src);
                        continue;
                    }
                    const detail::RowsBackwardData& k = rows.kernels[i];
                    detail::parallel_for_joined(tbb::blocked_range<i64>(0, k.rows()), [&](const tbb::blocked_range<i64>& r) {
                        if (wide) detail::avx512::rows_backward_data(k, dy, dx, r.begin(), r.end());
                        else detail::avx2::rows_backward_data(k, dy, dx, r.begin(), r.end());
                    });
                }
                return;
            }
            const i64 count = own == Own::depthwise ? depthwise.rows() : narrow.rows();
            const i64 ints = own == Own::depthwise ? depthwise.scratch_ints() : narrow.scratch_ints();
            detail::parallel_for_joined(tbb::blocked_range<i64>(0, count), [&](const tbb::blocked_range<i64>& r) {
                detail::Workspace<i64> scratch = lists.take(static_cast<std::size_t>(ints));
                i64* s = scratch.data();
                if (own == Own::depthwise && wide) detail::avx512::depthwise_backward_data_rows(depthwise, dy, dx, r.begin(), r.end(), s);
                else if (own == Own::depthwise) detail::avx2::depthwise_backward_data_rows(depthwise, dy, dx, r.begin(), r.end(), s);
                else if (wide) detail::avx512::narrow_backward_data_rows(narrow, dy, dx, r.begin(), r.end(), s);
                else detail::avx2::narrow_backward_data_rows(narrow, dy, dx, r.begin(), r.end(), s);
            });
            return;
        }
        if (direct) {
            plans[0]->execute(diff_dst, diff_src);
            return;
        }
        for (std::size_t i = 0; i < phases.size(); ++i) {
            if (!plans[i]) {
                zeros_of(phases[i], diff_src);
                continue;
            }
            const Scatter scatter(desc, phases[i]);
            auto* to = static_cast<unsigned char*>(diff_src);
            const ConvDescriptor& f = phases[i].forward;
            const i64 bytes = f.dst_elements() * size_of(desc.dtype);
            detail::Workspace<float> out = outputs.take(static_cast<std::size_t>((bytes + 3) / 4));
            plans[i]->execute(diff_dst, out.data());
            const auto* from = reinterpret_cast<const unsigned char*>(out.data());
            detail::parallel_for_joined(tbb::blocked_range<i64>(0, scatter.rows()), [&](const tbb::blocked_range<i64>& r) {
                scatter.run(from, to, r.begin(), r.end());
            });
        }
    }
};

BackwardDataPlan::BackwardDataPlan(const ConvDescriptor& d, const void* weights, Options options)
    : impl_(std::make_unique<Impl>()) {
    validate(d);
    if (const std::string why = why_backward_unsupported(d); !why.empty())
        throw ConvError("backward data", to_string(d), why);
    if (weights == nullptr) throw ConvError("weights", "null", "the weights buffer must not be null");
    if (options.threads < 0)
        throw ConvError("threads", std::to_string(options.threads), "must be 0 (TBB's default) or positive");
    Impl& m = *impl_;
    m.desc = d;
    const std::vector<float> canonical = detail::widen_weights(d, detail::make_geometry(d, 1), weights);
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
    m.threads = options.threads > 0 ? options.threads : std::max(1, tbb::this_task_arena::max_concurrency());
    m.stream_above = options.stream_large_output ? detail::resolved_stream_nxc_output_above(options.stream_nxc_output_above) : -1;
    m.plan_own_kernel(d, canonical, options.forced_path);
    if (m.own != Impl::Own::none) return;
    m.phases = detail::backward_data_phases(d);
    // the phases run inside this plan's arena: their own plans take the threads of the caller's
    // (a phase that is not all of diff_src is scattered after: its output must stay in the cache)
    const Options phase_options{.threads = 0, .forced_path = options.forced_path,
                                .stream_large_output = m.phases.size() == 1};
    for (const detail::Phase& p : m.phases) {
        if (!p.has_taps) {
            m.plans.emplace_back();
            continue;
        }
        const std::vector<unsigned char> w = detail::phase_weights(d, p, canonical);
        // planned inside the arena they run in, so that they cut their work for its threads
        if (m.arena)
            detail::arena_execute_joined(*m.arena, [&] { m.plans.emplace_back(std::in_place, p.forward, w.data(), nullptr, phase_options); });
        else
            m.plans.emplace_back(std::in_place, p.forward, w.data(), nullptr, phase_options);
    }
    m.direct = m.phases.size() == 1 && m.plans[0].has_value();
}

BackwardDataPlan::~BackwardDataPlan() = default;
BackwardDataPlan::BackwardDataPlan(BackwardDataPlan&&) noexcept = default;
BackwardDataPlan& BackwardDataPlan::operator=(BackwardDataPlan&&) noexcept = default;

void BackwardDataPlan::execute(const void* diff_dst, void* diff_src) const {
    if (diff_dst == nullptr || diff_src == nullptr)
        throw ConvError(diff_dst ? "diff_src" : "diff_dst", "null", "buffers must not be null");
    if (impl_->arena)
        detail::arena_execute_joined(*impl_->arena, [&] { impl_->run(diff_dst, diff_src); });
    else
        impl_->run(diff_dst, diff_src);
}

Decomposition BackwardDataPlan::decomposition() const {
    const Impl& m = *impl_;
    Decomposition s;
    s.threads = m.threads;
    const auto tasks = [&](i64 n, i64 most, double each, double last) {
        s.set_tasks(n, most, each, last);
        return s;
    };
    const detail::Geometry& g = m.geometry;
    switch (m.own) {
    case Impl::Own::pointwise: {
        const detail::PointwiseBackwardData& p = m.pointwise;
        const double per_pixel = static_cast<double>(p.in_channels * p.out_channels);
        const i64 n = p.chunks(), last = p.pixels - (n - 1) * p.chunk_pixels;
        return tasks(n, (p.pixels + detail::kPointwiseLeastChunk - 1) / detail::kPointwiseLeastChunk,
                     static_cast<double>(p.chunk_pixels) * per_pixel, static_cast<double>(last) * per_pixel);
    }
    case Impl::Own::depthwise:
    case Impl::Own::narrow: {  // rows of diff_src (n, xd, xh), each every channel of its pixels
        const i64 n = m.own == Impl::Own::depthwise ? m.depthwise.rows() : m.narrow.rows();
        const double row = static_cast<double>(g.in[2] * g.in_channels * g.out_per_group * g.taps());
        return tasks(n, n, row, row);
    }
    case Impl::Own::rows: {  // the phase with the fewest rows (phases run one after another; padding counted)
        bool first = true;
        for (std::size_t i = 0; i < m.rows.kernels.size(); ++i) {
            if (!m.rows.phases[i].has_taps) continue;
            const detail::RowsBackwardData& k = m.rows.kernels[i];
            const detail::Geometry& f = *k.geometry;
            const i64 n = k.rows(), most = k.super_blocks * f.batch * f.out[0] * f.out[1];
            const double row = static_cast<double>(f.out[2] * f.in_channels * f.taps()) * static_cast<double>(k.vector_blocks) *
                               (m.own_isa == Path::blocked_avx512 ? 16.0 : 8.0);
            if (first || n < s.tasks) {
                s.tasks = n;
                s.most_tasks = most;
                s.largest_task = row * static_cast<double>(k.tile_rows);
                s.mean_task = row * static_cast<double>(most) / static_cast<double>(n);
                first = false;
            }
        }
        return s;
    }
    case Impl::Own::none: break;
    }
    // the phases' plans: the one with the fewest tasks
    bool first = true;
    for (const auto& p : m.plans)
        if (p) {
            const Decomposition q = p->decomposition();
            if (first || q.tasks < s.tasks) s = q, first = false;
        }
    s.threads = m.threads;
    return s;
}

std::string BackwardDataPlan::implementation() const {
    if (impl_->own != Impl::Own::none)
        return std::string("bwd_data ") +
               (impl_->own == Impl::Own::depthwise ? "depthwise_direct_"
                : impl_->own == Impl::Own::narrow  ? "narrow_direct_"
                : impl_->own == Impl::Own::rows    ? "rows_direct_"
                                                   : "pointwise_direct_") +
               (impl_->own_isa == Path::blocked_avx512 ? "avx512" : "avx2");
    std::string path = "none";
    for (const auto& p : impl_->plans)
        if (p) {
            path = std::string(p->path_name());
            break;
        }
    return "bwd_data phases=" + std::to_string(impl_->phases.size()) + " " + path;
}

}  // namespace convcheck::optimized
