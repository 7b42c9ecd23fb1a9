// ConvPlan: validate, pick the path, pack the weights once; execute = pack src (edges), run the
// path's kernel over independent output blocks with TBB, store dst (edges).
#include "convcheck/optimized/conv_plan.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <mutex>

#include "blocked_pack.hpp"
#include "depthwise_streamed.hpp"
#include "depthwise_threads.hpp"
#include "conversions.hpp"
#include "forward_rows.hpp"
#include "index_range.hpp"
#include "ncx_pointwise.hpp"
#include "parallel_join.hpp"
#include "workspace_pool.hpp"
#include "scalar.hpp"
#include "stream_bound.hpp"
#include "without_unit_axes.hpp"
#include "padded_input_parts.hpp"
#include "unread_padding.hpp"

namespace convcheck::optimized {

using detail::i64;

struct ConvPlan::Impl {
    ConvDescriptor original;  // as given (descriptor())
    ConvDescriptor desc;      // what runs: without its unit axes (without_unit_axes.hpp)
    Path path = Path::scalar;
    detail::Geometry geometry;
    // what the kernels read: the padded input, or for depthwise the unpadded one (its pads are 0)
    ConvDescriptor src_desc;
    detail::Geometry src_geometry;
    std::vector<i64> taps;
    CacheLineFloats weights, bias;  // 64-byte vectors on cache lines (convcheck/core/cache_line_allocator.hpp)
    detail::BlockedWeights blocked_weights;
    detail::BlockedProblem blocked;
    // the blocked kernel reads the user's padded src in place (conversions.hpp: blocked_reads_src_in_place), with
    // these zeros (ic_block of them) for the taps of border pixels that lie in the padding
    bool src_in_place = false;
    CacheLineFloats zeros;
    bool stream_large_output = true;  // Options::stream_large_output
    i64 stream_nxc_output_above = 0;  // Options::stream_nxc_output_above, 0 resolved
    detail::DepthwiseProblem depthwise;
    detail::ScalarProblem scalar;
    detail::GemmProblem gemm;
    // gemm_1x1 on f32 NCX buffers without pads runs on the user's buffers, with no edges at all
    bool gemm_on_user_ncx = false;
    detail::GemmProblem gemm_ncx;
    // ... with AVX-512, through the blocked kernel's register tiles instead of Eigen's (ncx_pointwise.hpp)
    std::unique_ptr<detail::NcxPointwise> ncx_pointwise;
    // the blocked paths' layers of one group on f32 channels-last buffers (forward_rows_fit) run the row kernel, which
    // reads src and writes dst in place and skips every padded product (forward_rows.hpp)
    std::unique_ptr<detail::ForwardRows> forward_rows;
    // depthwise_avx2 on f32 NCX buffers runs on the user's buffers too where its NCX kernel takes the
    // rows (depthwise_ncx_avx2.cpp): the same sums, without the two layout conversions
    bool depthwise_on_user_ncx = false;
    // depthwise_avx512 writes the user's dst, which may be stored non-temporally (run_depthwise_avx512)
    bool depthwise_may_stream = false;
    std::unique_ptr<tbb::task_arena> arena;
    // the thread count the work is cut for (Options::threads, 0 resolved to the constructing arena's concurrency):
    // the blocked 1x1 chunks of layers whose pixels read every tap, and the depthwise rows in pairs or one by one
    int threads = 1;
    // depthwise_avx512: its rows two by two, or one by one where that ends sooner on the threads (cut_for_threads)
    bool depthwise_pairs = true;
    // depthwise: the threads that take its tasks, in as many ranges of them where fewer than `threads` end sooner
    // (a call of a few microseconds: depthwise_threads.hpp); == threads: the tasks as they come
    i64 depthwise_ranges = 1;
    detail::PaddedInputParts padded_input_parts;  // xp in chunks of images, or one image in bands (padded_input_parts.hpp)
    // the images of a chunk of the batch (xp and y, where the plan holds them: padded_input_parts.hpp, chunk_images)
    i64 chunk_images = 1;
    std::int64_t padded_input_budget = 0;  // Options::padded_input_budget

    // Workspaces kept between calls (workspace_pool.hpp): the padded input xp, the f32 output y, and
    // the direct kernels' scratch (one per parallel body whose scratch is over kStackScratch).
    detail::WorkspacePool<float> padded_inputs, outputs;
    detail::WorkspacePool<i64> kernel_scratch;

    // a parallel body's scratch of at most this many elements lives on its stack: taking it from kernel_scratch
    // locked the pool's mutex twice per body, both threads on one cache line (measured on the Xeon, 2 threads, 4
    // alternating runs: pw960_320_7 b1 0.091 -> 0.089 ms, conv1_7x7s2 b1 0.719-0.727 -> 0.715-0.717)
    static constexpr i64 kStackScratch = 1024;
    // one_per_thread: parallel_for_joined's static split, for rows of equal work
    template <typename Body>
    void parallel_rows(i64 count, const Body& body, i64 grain = 1, bool one_per_thread = false) const {
        detail::parallel_for_joined(tbb::blocked_range<i64>(0, count, static_cast<std::size_t>(grain)),
                                    [&](const tbb::blocked_range<i64>& r) { body(r.begin(), r.end()); }, one_per_thread);
    }
    // parallel_rows for a direct kernel: body(scratch, begin, end), with `scratch_elements` of scratch
    template <typename Body>
    void parallel_rows_with_scratch(i64 count, i64 scratch_elements, const Body& body, bool one_per_thread = false) const {
        parallel_rows(count, [&](i64 b, i64 e) {
            if (scratch_elements <= kStackScratch) {
                i64 local[kStackScratch];
                body(local, b, e);
                return;
            }
            detail::Workspace<i64> scratch = kernel_scratch.take(static_cast<std::size_t>(scratch_elements));
            body(scratch.data(), b, e);
        }, 1, one_per_thread);
    }
    // parallel_rows_with_scratch for the depthwise tasks: as they come, or in depthwise_ranges ranges of them where
    // fewer threads than the plan has end sooner (cut_for_threads)
    template <typename Body>
    void parallel_depthwise_tasks(i64 tasks, i64 scratch_elements, const Body& body) const {
        const i64 ranges = std::min(depthwise_ranges, tasks);
        if (ranges >= threads) return parallel_rows_with_scratch(tasks, scratch_elements, body);
        parallel_rows_with_scratch(ranges, scratch_elements, [&](i64* scratch, i64 b, i64 e) {
            body(scratch, tasks * b / ranges, tasks * e / ranges);
        });
    }

    void pack_weights(const void* user_weights, const void* user_bias);
    // the cuts that follow `threads` (the same sums for any: see each)
    void cut_for_threads();
    // whether the kernels read a packed copy of src, xp (not src in place, nor src that already is xp)
    bool packs_src() const { return !src_in_place && !detail::src_is_xp(src_desc, src_geometry); }
    void run(const void* src, void* dst) const;
    // the blocked paths, one image at a time in bands (padded_input_parts.axis >= 0): pack each band's input, run its items
    void run_bands(const void* src, float* xp, float* y) const;
    // the blocked paths with padded_input_parts.in_tasks: the batch's bands of images as tasks, each packing its band's input
    // into a buffer of its own and running the band's items on it (padded_input_task_parts)
    void run_band_tasks(const void* src, float* y) const;
    // the path's kernel on `chunk` (the geometry with the batch of one chunk of images)
    void run_kernel(const detail::Geometry& chunk, const float* xp, float* y) const;
    // depthwise_avx512 on `chunk`, streamed where it pays (depthwise_streamed.hpp)
    void run_depthwise_avx512(const detail::Geometry& chunk, const float* xp, float* y) const;
};

void ConvPlan::Impl::cut_for_threads() {
    const detail::Geometry& g = geometry;
    // the two-row kernel's pairs give the same sums as one row at a time (run_depthwise_avx512), and cost less: a row
    // alone costs 1.35x its share of a pair. One by one only where the busiest thread then ends sooner; and on fewer
    // threads than the plan has where their forks and joins outweigh their shares (depthwise_threads.hpp: dw960_7 at
    // batch 1 on 4 of 16 threads, 4 pairs; at 1 and 2 threads every table layer keeps them all)
    if (path == Path::depthwise_avx512 || path == Path::depthwise_avx2) {
        const double bytes = 4.0 * static_cast<double>(g.batch) *
                             static_cast<double>(g.in[0] * g.in[1] * g.in[2] * g.in_channels + g.out_pixels() * g.out_channels);
        const detail::DepthwiseThreads cut = detail::depthwise_threads(depthwise.rows(), bytes, threads, path == Path::depthwise_avx512);
        depthwise_pairs = cut.pairs;
        depthwise_ranges = cut.ranges;
    }
    // a layer whose pixels all read every tap: any chunk's tiles visit every tap, so each output's sum is the same
    // however the plane is cut; only where the kernels read src as it is or xp whole (no bands: path_memory.cpp's
    // estimate assumes the layer's chunk for those)
    const bool blocked_path = path == Path::blocked_avx2 || path == Path::blocked_avx512;
    if (!blocked_path || forward_rows || !detail::every_pixel_reads_every_tap(g) ||
        (packs_src() && padded_input_parts.in_bands()))
        return;
    const bool avx512 = path == Path::blocked_avx512;
    const i64 tile = avx512 ? detail::avx512::tile_width(blocked.vector_blocks) : detail::avx2::tile_width(blocked.vector_blocks);
    // (a parallel loop runs one chunk of images: chunk_images)
    const i64 others = chunk_images * g.groups * blocked.oc_super_blocks * g.out[0];
    // (the 1x1 layers' items run one range per thread: run_kernel)
    blocked.chunk_pixels =
        detail::blocked_thread_chunk_pixels(blocked.chunk_pixels, g.out[1] * g.out[2], others, tile, threads, g.taps() == 1);
}

void ConvPlan::Impl::pack_weights(const void* user_weights, const void* user_bias) {
    const detail::Geometry& g = geometry;
    const detail::CanonicalWeights canonical_weights(desc, g, user_weights);  // [O][ICg][taps]
    const float* canonical = canonical_weights.data();
    const std::vector<float> b = detail::widen_bias(desc, user_bias);
    const i64 G = g.groups, ICg = g.in_per_group, OCg = g.out_per_group, T = g.taps();
    const auto at = [&](i64 o, i64 ic, i64 t) { return canonical[(o * ICg + ic) * T + t]; };
    switch (path) {
    case Path::blocked_avx2:
    case Path::blocked_avx512: {
        if (detail::forward_rows_fit(desc, path == Path::blocked_avx512)) {
            forward_rows = std::make_unique<detail::ForwardRows>();
            detail::plan_forward_rows(desc, canonical, b, path == Path::blocked_avx512, *forward_rows);
            break;
        }
        detail::BlockedWeights packed =
            detail::pack_blocked(canonical, b, G, ICg, OCg, T, path == Path::blocked_avx512);
        blocked_weights = std::move(packed);
        // pixel chunks that 2 threads share evenly where the batch has few work items (small layers at batch 1)
        blocked_weights.chunk_pixels = detail::blocked_plan_chunk_pixels(geometry, path == Path::blocked_avx512);
        blocked = blocked_weights.problem(&geometry, taps.data());
        blocked.stream_output =
            stream_large_output && detail::dst_is_y(desc) && 4 * desc.dst_elements() > stream_nxc_output_above;
        if (src_in_place) {
            zeros.assign(static_cast<std::size_t>(blocked.ic_block), 0.0f);
            blocked.src_in_place = true;
            blocked.zeros = zeros.data();
        }
        break;
    }
    case Path::depthwise_avx2:
    case Path::depthwise_avx512: {
        const i64 cs = g.channel_stride;
        weights.assign(T * cs, 0.0f);
        for (i64 t = 0; t < T; ++t)
            for (i64 c = 0; c < G; ++c) weights[t * cs + c] = at(c, 0, t);
        if (!b.empty()) {
            bias.assign(cs, 0.0f);
            std::copy(b.begin(), b.end(), bias.begin());
        }
        depthwise = {&geometry, taps.data(), weights.data(), bias.empty() ? nullptr : bias.data()};
        depthwise_may_stream = path == Path::depthwise_avx512 && stream_large_output && detail::dst_is_y(desc);
        depthwise_on_user_ncx = path == Path::depthwise_avx2 && desc.dtype == DataType::f32 &&
                                desc.data_format == DataFormat::ncx && detail::avx2::takes_depthwise_ncx(g);
        break;
    }
    case Path::scalar:
    case Path::im2col_gemm:
    case Path::gemm_1x1:
    case Path::automatic: {
        bool unpadded = true;
        for (int a = 0; a < 3; ++a) unpadded = unpadded && g.pad_begin[a] == 0 && g.pad_end[a] == 0;
        gemm_on_user_ncx = path == Path::gemm_1x1 && desc.dtype == DataType::f32 && desc.data_format == DataFormat::ncx &&
                           unpadded;
        // (Eigen's GEMM is built for AVX2 only: every Eigen instantiation lives in gemm.cpp). Measured on the Xeon,
        // 1 thread, batch 1, NCHW: res2_1x1_64 0.35 -> 0.16 ms, res2_1x1_reduce 1.45 -> 0.59-0.66, pw16_96_112
        // 0.73 -> 0.47 (bench/results/forward-nchw.md)
        if (gemm_on_user_ncx && cpu_has_avx512()) {
            ncx_pointwise = std::make_unique<detail::NcxPointwise>(g, canonical, b, stream_large_output);
            break;
        }
        // [G][taps][ICg][OCg]: row (t*ICg + ic) of B_g
        weights.assign(G * T * ICg * OCg, 0.0f);
        // canonical order (sequential reads: the weights may be the user's, and large)
        for (i64 grp = 0; grp < G; ++grp)
            for (i64 oc = 0; oc < OCg; ++oc)
                for (i64 ic = 0; ic < ICg; ++ic)
                    for (i64 t = 0; t < T; ++t)
                        weights[((grp * T + t) * ICg + ic) * OCg + oc] = at(grp * OCg + oc, ic, t);
        bias.assign(b.begin(), b.end());
        const float* bias_ptr = bias.empty() ? nullptr : bias.data();
        scalar = {&geometry, taps.data(), weights.data(), bias_ptr};
        // the gather's sizes: functions of the descriptor only (gemm_chunks.cpp)
        gemm = {&geometry, taps.data(), weights.data(), bias_ptr, path == Path::gemm_1x1, detail::gemm_chunk_pixels(g)};
        gemm.depth_block = detail::gemm_depth_block(g);
        gemm_ncx = detail::ncx_problem(&geometry, weights.data(), bias_ptr);
        break;
    }
    }
}

namespace {

// The padded copy's rows per task on NXC src: about 64 KiB. TBB alone cut conv1's 230 rows of 2.7 KiB into 64 tasks
// of 1-4 rows even at 1 thread, 0.1-0.3 us apart (bench/results/forward-threads.md); NCX tasks are not rows.
i64 pack_src_grain(const ConvDescriptor& d, const detail::Geometry& g) {
    if (d.data_format != DataFormat::nxc) return 1;
    return std::max<i64>(1, (i64{64} << 10) / std::max<i64>(1, g.padded[2] * g.channel_stride * 4));
}

// The blocked kernel of the plan's path (blocked_avx512 or blocked_avx2) over work items [b, e).
void blocked_items(Path path, const detail::BlockedProblem& p, const float* xp, float* y, i64* scratch, i64 b, i64 e) {
    if (path == Path::blocked_avx512)
        detail::avx512::blocked_items(p, xp, y, scratch, b, e);
    else
        detail::avx2::blocked_items(p, xp, y, scratch, b, e);
}

// The work items of one band of one image (p.geometry: batch 1), positions [q0, q1) (q = od * chunks + chunk): one
// range of items per (group, super block), or per group with ocs_innermost (BlockedProblem's item order); of those
// `runs x length` items, [b, e).
i64 band_item_count(const detail::BlockedProblem& p, i64 q0, i64 q1) {
    const i64 runs = p.ocs_innermost ? p.geometry->groups : p.geometry->groups * p.oc_super_blocks;
    return runs * (p.ocs_innermost ? (q1 - q0) * p.oc_super_blocks : q1 - q0);
}
void band_items(Path path, const detail::BlockedProblem& p, i64 q0, i64 q1, const float* xp, float* image_y,
                i64* scratch, i64 b, i64 e) {
    const i64 positions = p.geometry->out[0] * p.chunks_per_plane(), OCS = p.oc_super_blocks;
    const i64 length = p.ocs_innermost ? (q1 - q0) * OCS : q1 - q0;
    for (i64 i = b; i < e;) {
        const i64 run = i / length, at = i % length, count = std::min(e - i, length - at);
        const i64 item = (p.ocs_innermost ? (run * positions + q0) * OCS : run * positions + q0) + at;
        blocked_items(path, p, xp, image_y, scratch, item, item + count);
        i += count;
    }
}

}  // namespace

void ConvPlan::Impl::run(const void* src, void* dst) const {
    const detail::Geometry& g = geometry;
    if (forward_rows) {
        const detail::RowsBackwardData& k = forward_rows->kernel;
        const auto* x = static_cast<const float*>(src);
        auto* y = static_cast<float*>(dst);
        detail::Workspace<float> copy;
        if (k.pixel_pitch != 0) {  // src at the kernel's pitch (forward_rows_pitch): rows of pixels on the threads
            const i64 C = g.in_channels, width = g.in[2], rows = g.batch * g.in[0] * g.in[1];
            copy = padded_inputs.take(static_cast<std::size_t>(rows * width * k.pixel_pitch));
            float* to = copy.data();
            parallel_rows(rows, [&](i64 b, i64 e) {
                for (i64 row = b; row < e; ++row)
                    for (i64 w = 0; w < width; ++w)
                        std::copy_n(x + (row * width + w) * C, C, to + (row * width + w) * k.pixel_pitch);
            });
            x = to;
        }
        parallel_rows(k.rows(), [&](i64 b, i64 e) {
            if (path == Path::blocked_avx512) detail::avx512::rows_backward_data(k, x, y, b, e);
            else detail::avx2::rows_backward_data(k, x, y, b, e);
        });
        return;
    }
    if (ncx_pointwise) {
        parallel_rows_with_scratch(ncx_pointwise->tasks(), ncx_pointwise->scratch_elements(), [&](i64* scratch, i64 b, i64 e) {
            ncx_pointwise->run_tasks(static_cast<const float*>(src), static_cast<float*>(dst), scratch, b, e);
        });
        return;
    }
    if (gemm_on_user_ncx) {
        parallel_rows(gemm_ncx.tasks(), [&](i64 b, i64 e) {
            detail::gemm_1x1_ncx_tasks(gemm_ncx, static_cast<const float*>(src), static_cast<float*>(dst), b, e);
        });
        return;
    }
    if (depthwise_on_user_ncx) {
        const i64 rows = g.batch * g.out_channels * g.out[0] * g.out[1];
        parallel_rows_with_scratch(rows, depthwise.scratch_elements(), [&](i64* scratch, i64 b, i64 e) {
            detail::avx2::depthwise_ncx_rows(depthwise, static_cast<const float*>(src), static_cast<float*>(dst),
                                             scratch, b, e);
        });
        return;
    }
    detail::Workspace<float> xp_space, y_space;
    const bool packs = packs_src(), bands = packs && padded_input_parts.in_bands();
    const i64 out_image = g.out_pixels() * g.out_channels;
    // y for a chunk of images (chunk_images: the whole batch where the plan runs bands)
    float* y = static_cast<float*>(dst);
    if (!detail::dst_is_y(desc)) {
        y_space = outputs.take(static_cast<std::size_t>(chunk_images * out_image));
        y = y_space.data();
    }
    // the batch in chunks of images, or one image in bands (padded_input_parts.hpp): xp never takes more than
    // the input's bytes plus half the fixed workspace (Options::padded_input_budget)
    detail::PaddedInputParts xp_parts = padded_input_parts;
    if (!bands) xp_parts.images = chunk_images;
    if (packs && !padded_input_parts.in_tasks)
        xp_space = padded_inputs.take(static_cast<std::size_t>(detail::xp_part_floats(src_geometry, xp_parts)));
    if (packs && padded_input_parts.in_tasks) {
        run_band_tasks(src, y);
    } else if (packs && padded_input_parts.axis >= 0) {
        run_bands(src, xp_space.data(), y);
    } else {
        const i64 images = chunk_images;
        const i64 src_image_bytes = size_of(desc.dtype) * (desc.src_elements() / g.batch);
        const i64 dst_image_bytes = size_of(desc.dtype) * out_image;
        for (i64 n0 = 0; n0 < g.batch; n0 += images) {
            detail::Geometry chunk = g, src_chunk = src_geometry;
            chunk.batch = src_chunk.batch = std::min(images, g.batch - n0);
            const void* chunk_src = static_cast<const char*>(src) + n0 * src_image_bytes;
            const float* xp = static_cast<const float*>(chunk_src);
            if (packs) {
                float* out = xp_space.data();
                parallel_rows(detail::pack_src_task_count(src_desc, src_chunk),
                              [&](i64 b, i64 e) { detail::pack_src_tasks(src_desc, src_chunk, chunk_src, out, b, e); },
                              pack_src_grain(src_desc, src_chunk));
                xp = out;
            }
            if (!y_space.held()) {
                run_kernel(chunk, xp, y + n0 * out_image);
                continue;
            }
            run_kernel(chunk, xp, y);
            void* chunk_dst = static_cast<char*>(dst) + n0 * dst_image_bytes;
            parallel_rows(detail::store_dst_task_count(desc, chunk),
                          [&](i64 b, i64 e) { detail::store_dst_tasks(desc, chunk, y, chunk_dst, b, e); });
        }
        return;
    }
    if (y_space.held())
        parallel_rows(detail::store_dst_task_count(desc, g),
                      [&](i64 b, i64 e) { detail::store_dst_tasks(desc, g, y, dst, b, e); });
}

void ConvPlan::Impl::run_bands(const void* src, float* xp, float* y) const {
    const detail::Geometry& g = geometry;
    const int axis = padded_input_parts.axis;
    detail::Geometry image = g;
    image.batch = 1;
    detail::BlockedProblem p = blocked;
    p.geometry = &image;
    // positions q = od * chunks + chunk; a band is a range of them (band_items)
    const i64 chunks = p.chunks_per_plane(), positions = g.out[0] * chunks;
    const i64 per_band = axis == 0 ? padded_input_parts.band * chunks : padded_input_parts.band;
    const i64 src_image_bytes = size_of(desc.dtype) * (desc.src_elements() / g.batch);
    for (i64 n = 0; n < g.batch; ++n) {
        const void* image_src = static_cast<const char*>(src) + n * src_image_bytes;
        float* image_y = y + n * g.out_pixels() * g.out_channels;
        for (i64 q0 = 0; q0 < positions; q0 += per_band) {
            const i64 q1 = std::min(q0 + per_band, positions);
            i64 first = 0, last = 0;
            detail::band_outputs(g, padded_input_parts, q0, q1, &first, &last);
            const detail::Geometry src_band = detail::band_geometry(src_geometry, axis, first, last - first + 1);
            parallel_rows(detail::pack_src_task_count(src_desc, src_band),
                          [&](i64 b, i64 e) { detail::pack_src_tasks(src_desc, src_band, image_src, xp, b, e); });
            // the band's xp begins at its first output's first input plane or row
            (axis == 0 ? p.xp_first_plane : p.xp_first_row) = first * g.stride[axis];
            parallel_rows_with_scratch(band_item_count(p, q0, q1), p.scratch_elements(), [&](i64* scratch, i64 b, i64 e) {
                band_items(path, p, q0, q1, xp, image_y, scratch, b, e);
            });
        }
    }
}

void ConvPlan::Impl::run_band_tasks(const void* src, float* y) const {
    const detail::Geometry& g = geometry;
    detail::Geometry image = g;
    image.batch = 1;
    detail::BlockedProblem p = blocked;
    p.geometry = &image;
    const detail::PaddedInputParts parts =
        detail::padded_input_task_parts(src_desc, src_geometry, padded_input_budget, p.chunk_pixels, tbb::this_task_arena::max_concurrency());
    const i64 chunks = p.chunks_per_plane(), bands = parts.bands;
    const auto floats = static_cast<std::size_t>(detail::xp_part_floats(src_geometry, parts));
    const i64 src_image_bytes = size_of(desc.dtype) * (desc.src_elements() / g.batch);
    parallel_rows_with_scratch(g.batch * bands, p.scratch_elements(), [&](i64* scratch, i64 b, i64 e) {
        detail::Workspace<float> xp = padded_inputs.take(floats);
        for (i64 task = b; task < e; ++task) {
            const i64 n = task / bands, q0 = detail::band_chunks(chunks, parts, task % bands),
                      q1 = detail::band_chunks(chunks, parts, task % bands + 1);
            i64 first = 0, last = 0;
            detail::band_outputs(g, parts, q0, q1, &first, &last);
            const detail::Geometry src_band = detail::band_geometry(src_geometry, 1, first, last - first + 1);
            const void* image_src = static_cast<const char*>(src) + n * src_image_bytes;
            detail::pack_src_tasks(src_desc, src_band, image_src, xp.data(), 0, detail::pack_src_task_count(src_desc, src_band));
            detail::BlockedProblem band = p;
            band.xp_first_row = first * g.stride[1];  // the band's xp begins at its first output's first input row
            band_items(path, band, q0, q1, xp.data(), y + n * g.out_pixels() * g.out_channels, scratch, 0,
                       band_item_count(band, q0, q1));
        }
    });
}

// Streamed where input and output pass the streaming bound (stream_nxc_output_above: 16 MiB on the Zen 5 machine,
// 130 MB on the Xeon, where no layer of the table streams), with the rows prefetched where a thread's share of the
// input alone passes it too. Measured on the Zen 5 machine, batch 8, against neither, 1 thread: dw144_56 1.8-2.1 ->
// 0.68-0.92 ms, dw32_112 0.95-0.98 -> 0.59-0.66, dw96_112s2 2.2-2.3 -> 1.5-2.0 (streamed only: 2.4-2.6); 2 threads:
// dw144_56 0.42-0.49 -> 0.33-0.37, dw96_112s2 1.12-1.22 -> 0.91-1.0, dw32_112 0.31-0.35 -> 0.35-0.36; the prefetch
// without streaming made dw144_56 and dw32_112 slower at 2 threads (bench/results/zen5.md). On the Xeon the
// hardware prefetchers alone were 1.3-1.4x faster than software row prefetch on dw32@112 and dw96@112/2 at 1 thread
// (bench/results/forward-threads.md).
void ConvPlan::Impl::run_depthwise_avx512(const detail::Geometry& chunk, const float* xp, float* y) const {
    detail::DepthwiseProblem p = depthwise;
    p.geometry = &chunk;
    const i64 input = 4 * chunk.batch * chunk.in[0] * chunk.in[1] * chunk.in[2] * chunk.channel_stride;
    const i64 output = 4 * chunk.batch * chunk.out_pixels() * chunk.out_channels;
    const bool stream = depthwise_may_stream && input + output > stream_nxc_output_above;
    const i64 threads = std::max(1, tbb::this_task_arena::max_concurrency());
    const bool prefetch_rows = input / threads > stream_nxc_output_above;
    // rows two by two, so that the two-row kernel always has its pairs (the same results as one
    // row at a time: every output is summed by one kernel call, in the same order)
    // (one by one where that ends sooner: depthwise_pairs)
    const i64 rows = p.rows(), per_task = depthwise_pairs ? 2 : 1;
    parallel_depthwise_tasks((rows + per_task - 1) / per_task, p.scratch_elements(), [&](i64* scratch, i64 b, i64 e) {
        if (stream)
            detail::avx512::depthwise_rows_streamed(p, prefetch_rows, xp, y, scratch, per_task * b, std::min(per_task * e, rows));
        else
            detail::avx512::depthwise_rows(p, xp, y, scratch, per_task * b, std::min(per_task * e, rows));
    });
}

void ConvPlan::Impl::run_kernel(const detail::Geometry& chunk, const float* xp, float* y) const {
    switch (path) {
    case Path::blocked_avx512:
    case Path::blocked_avx2: {
        detail::BlockedProblem p = blocked;
        p.geometry = &chunk;
        // a 1x1 layer's items are the same work (chunks of even sizes: blocked_plan_chunk_pixels): one range of them
        // per thread, each thread its same items every call (measured on the Xeon, 2 threads, against TBB's auto
        // partitioner: res2_1x1_64 b8 and res3_1x1_512 b1 2-5 % faster; bench/results/forward-threads.md)
        parallel_rows_with_scratch(
            p.work_items(), p.scratch_elements(),
            [&](i64* scratch, i64 b, i64 e) { blocked_items(path, p, xp, y, scratch, b, e); }, chunk.taps() == 1);
        break;
    }
    case Path::depthwise_avx512:
        run_depthwise_avx512(chunk, xp, y);
        break;
    case Path::depthwise_avx2: {
        detail::DepthwiseProblem p = depthwise;
        p.geometry = &chunk;
        parallel_depthwise_tasks(p.rows(), p.scratch_elements(), [&](i64* scratch, i64 b, i64 e) {
            detail::avx2::depthwise_rows(p, xp, y, scratch, b, e);
        });
        break;
    }
    case Path::im2col_gemm:
    case Path::gemm_1x1: {
        detail::GemmProblem p = gemm;
        p.geometry = &chunk;
        parallel_rows(p.tasks(), [&](i64 b, i64 e) { detail::gemm_tasks(p, xp, y, b, e); });
        break;
    }
    case Path::scalar:
    case Path::automatic: {
        detail::ScalarProblem p = scalar;
        p.geometry = &chunk;
        parallel_rows(p.rows(), [&](i64 b, i64 e) { detail::scalar_rows(p, xp, y, b, e); });
        break;
    }
    }
}

ConvPlan::ConvPlan(const ConvDescriptor& d, const void* weights, const void* bias, Options options)
    : impl_(std::make_unique<Impl>()) {
    validate(d);
    if (const std::string why = why_layout_unsupported(d); !why.empty())
        throw ConvError("memory layout", to_string(d), why);
    if (const std::string why = why_dtypes_unsupported(d); !why.empty()) throw ConvError("dt", dtypes_text(d), why);
    detail::check_workspace_size(d);  // and the index range
    if (d.has_bias && bias == nullptr) throw ConvError("bias", "null", "a descriptor with bias=1 needs a bias buffer");
    if (weights == nullptr) throw ConvError("weights", "null", "the weights buffer must not be null");
    if (options.threads < 0)
        throw ConvError("threads", std::to_string(options.threads), "must be 0 (TBB's default) or positive");
    Impl& m = *impl_;
    m.original = d;
    m.desc = detail::without_unit_axes(detail::without_unread_padding(d));
    if (options.forced_path == Path::automatic) {
        m.path = choose_path(d);
    } else {
        const std::string why = why_unavailable(d, options.forced_path);
        if (!why.empty()) throw ConvError("path", std::string(to_string(options.forced_path)), why);
        m.path = options.forced_path;
    }
    const bool depthwise = m.path == Path::depthwise_avx2 || m.path == Path::depthwise_avx512;
    m.geometry = detail::make_geometry(m.desc, depthwise ? 16 : 1);
    m.src_desc = m.desc;
    if (depthwise) m.src_desc.pads_begin = m.src_desc.pads_end = SpatialDims{0, 0, 0};
    m.src_geometry = detail::make_geometry(m.src_desc, depthwise ? 16 : 1);
    const bool blocked = m.path == Path::blocked_avx2 || m.path == Path::blocked_avx512;
    // (the row kernel, forward_rows.hpp, reads src in place by itself)
    m.src_in_place = blocked && !detail::forward_rows_fit(m.desc, m.path == Path::blocked_avx512) &&
                     detail::blocked_reads_src_in_place(m.desc, m.geometry);
    if (m.src_in_place)  // xp is src: the taps' offsets are those of the unpadded input
        for (int a = 0; a < 3; ++a) m.geometry.padded[a] = m.geometry.in[a];
    m.taps = detail::tap_offsets(m.geometry);
    m.stream_large_output = options.stream_large_output;
    m.stream_nxc_output_above = detail::resolved_stream_nxc_output_above(options.stream_nxc_output_above);
    m.pack_weights(weights, bias);
    m.padded_input_budget = options.padded_input_budget;
    m.padded_input_parts = detail::padded_input_parts(m.src_desc, m.src_geometry, options.padded_input_budget,
                                  blocked ? m.blocked_weights.chunk_pixels : 0);
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
    m.threads = options.threads > 0 ? options.threads : std::max(1, tbb::this_task_arena::max_concurrency());
    m.chunk_images = detail::chunk_images(m.geometry, m.padded_input_parts, m.packs_src(),
                                          double(m.src_geometry.padded_pixels()) * double(m.src_geometry.channel_stride),
                                          !detail::dst_is_y(m.desc), m.threads);
    m.cut_for_threads();
}

ConvPlan::~ConvPlan() = default;
ConvPlan::ConvPlan(ConvPlan&&) noexcept = default;
ConvPlan& ConvPlan::operator=(ConvPlan&&) noexcept = default;

void ConvPlan::execute(const void* src, void* dst) const {
    if (src == nullptr || dst == nullptr) throw ConvError(src ? "dst" : "src", "null", "buffers must not be null");
    if (impl_->arena)
        detail::arena_execute_joined(*impl_->arena, [&] { impl_->run(src, dst); });
    else
        impl_->run(src, dst);
}

Path ConvPlan::path() const { return impl_->path; }
const ConvDescriptor& ConvPlan::descriptor() const { return impl_->original; }
std::int64_t ConvPlan::work_item_pixels() const {
    const bool blocked = impl_->path == Path::blocked_avx2 || impl_->path == Path::blocked_avx512;
    return blocked && !impl_->forward_rows ? impl_->blocked.chunk_pixels : 0;
}

Decomposition ConvPlan::decomposition() const {
    const Impl& m = *impl_;
    const detail::Geometry& g = m.geometry;
    Decomposition s;
    s.threads = m.threads;
    const auto tasks = [&](i64 n, i64 most, double each, double last) { s.set_tasks(n, most, each, last); };
    const double per_pixel = static_cast<double>(g.in_per_group * g.taps());  // per output channel
    const i64 plane = g.out[1] * g.out[2];
    if (m.forward_rows) {  // rows (super block, n, od, oh pair); a row's tiles the whole output row (padding counted)
        const detail::RowsBackwardData& k = m.forward_rows->kernel;
        const double row = static_cast<double>(g.out[2]) * static_cast<double>(k.vector_blocks) *
                           (m.path == Path::blocked_avx512 ? 16.0 : 8.0) * per_pixel;
        const i64 n = k.rows(), most = k.super_blocks * g.batch * g.out[0] * g.out[1];
        s.tasks = n;
        s.most_tasks = most;
        s.largest_task = row * static_cast<double>(k.tile_rows);
        s.mean_task = row * static_cast<double>(most) / static_cast<double>(n);
        return s;
    }
    switch (m.path) {
    case Path::blocked_avx512:
    case Path::blocked_avx2: {
        const detail::BlockedProblem& p = m.blocked;
        const double lanes = static_cast<double>(p.vector_blocks) * (m.path == Path::blocked_avx512 ? 16.0 : 8.0);
        // a parallel loop's items: one chunk of images' (chunk_images)
        const i64 items = p.work_items() / g.batch * m.chunk_images;
        const i64 chunks = p.chunks_per_plane(), others = items / chunks;
        const i64 tile = m.path == Path::blocked_avx512 ? detail::avx512::tile_width(p.vector_blocks)
                                                        : detail::avx2::tile_width(p.vector_blocks);
        const double chunk = static_cast<double>(std::min(p.chunk_pixels, plane)) * lanes * per_pixel;
        s.tasks = items;
        // the finest cut: a tile's pixels per item where any chunk gives the same sums, else the layer's chunk
        s.most_tasks = detail::every_pixel_reads_every_tap(g) ? others * std::max(chunks, (plane + tile - 1) / tile) : s.tasks;
        s.largest_task = chunk;
        s.mean_task = static_cast<double>(plane) * lanes * per_pixel / static_cast<double>(chunks);
        s.one_range_per_thread = g.taps() == 1;  // (run_kernel)
        return s;
    }
    case Path::depthwise_avx512:
    case Path::depthwise_avx2: {  // rows (n, od, oh), in pairs or one by one; a row: every channel's outputs
        // (AVX-512: the finest cut of rows at their cost, the pairs; one by one costs more per row: cut_for_threads)
        const bool pairs = m.path == Path::depthwise_avx512;
        const i64 rows = m.depthwise.rows(), per = pairs && m.depthwise_pairs ? 2 : 1;
        const double row = static_cast<double>(g.out[2] * g.out_channels * g.taps());
        tasks((rows + per - 1) / per, pairs ? (rows + 1) / 2 : rows, row * static_cast<double>(per),
              row * static_cast<double>(rows - (rows - 1) / per * per));
        if (m.depthwise_ranges < m.threads) s.busy_threads = static_cast<int>(std::min(m.depthwise_ranges, s.tasks));
        return s;
    }
    default:  // the other paths' tasks, taken as equal
        const i64 n = m.ncx_pointwise ? m.ncx_pointwise->tasks()
                      : m.gemm_on_user_ncx ? m.gemm_ncx.tasks()
                      : (m.path == Path::im2col_gemm || m.path == Path::gemm_1x1) ? m.gemm.tasks()
                                                                                  : m.scalar.rows();
        const double each = static_cast<double>(g.batch * g.out[0] * plane * g.out_channels) * per_pixel / static_cast<double>(n);
        tasks(n, n, each, each);
        return s;
    }
}

std::string ConvPlan::implementation() const {
    std::string name(to_string(impl_->path));
    if (impl_->forward_rows) name += impl_->forward_rows->kernel.tile_rows == 2 ? " rows pairs" : " rows";
    if (impl_->src_in_place) name += " src_in_place";
    return name;
}

}  // namespace convcheck::optimized
