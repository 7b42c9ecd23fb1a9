// The memory a plan of each path holds beyond the tensors (conv_plan.hpp, path_memory_bytes): the
// dispatcher's memory rule. Mirrors ConvPlan (conv_plan.cpp): pack_weights, run and the kernels' scratch.
#include <algorithm>
#include <thread>

#include "blocked_pack.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "conversions.hpp"
#include "forward_rows.hpp"
#include "scalar.hpp"
#include "without_unit_axes.hpp"
#include "padded_input_parts.hpp"
#include "unread_padding.hpp"

namespace convcheck::optimized {

using detail::i64;

namespace {

// Byte counts in double: a valid descriptor may ask for up to 2^60 floats.
std::int64_t saturate(double bytes) {
    constexpr double kMax = double(std::int64_t{1} << 62);
    return bytes >= kMax ? std::int64_t{1} << 62 : static_cast<std::int64_t>(bytes);
}

bool is_depthwise_path(Path p) { return p == Path::depthwise_avx2 || p == Path::depthwise_avx512; }

}  // namespace

std::int64_t tensor_bytes(const ConvDescriptor& d) {
    return saturate(double(size_of(d.dtype)) *
                    (double(d.src_elements()) + double(d.weights_elements()) + double(d.bias_elements()) +
                     double(d.dst_elements())));
}

std::int64_t path_memory_bytes(const ConvDescriptor& original, Path path) {
    const ConvDescriptor d = detail::without_unit_axes(detail::without_unread_padding(original));  // what the plan runs
    const bool depthwise = is_depthwise_path(path);
    const detail::Geometry g = detail::make_geometry(d, depthwise ? 16 : 1);
    const double G = double(g.groups), ICg = double(g.in_per_group), OCg = double(g.out_per_group),
                 T = double(g.taps()), O = double(g.out_channels), Cs = double(g.channel_stride);
    const double threads = std::max(1u, std::thread::hardware_concurrency());
    // the weights widened to f32 [O][ICg][taps] while packing (f32 OIX weights are read where they are)
    const double canonical = detail::CanonicalWeights::copies(d) ? O * ICg * T : 0.0;
    double packed = 0, scratch_i64 = 0, scratch_f32 = 0;
    const bool blocked = path == Path::blocked_avx2 || path == Path::blocked_avx512;
    const bool rows = blocked && detail::forward_rows_fit(d, path == Path::blocked_avx512);  // forward_rows.hpp
    switch (path) {
    case Path::blocked_avx2:
    case Path::blocked_avx512:
        if (rows) {  // the row kernel: no scratch; its pitched copy of src, if any, counted as xp below
            packed = double(detail::forward_rows_floats(d, path == Path::blocked_avx512));
            break;
        }
        packed = double(detail::blocked_weights_floats(g.groups, g.in_per_group, g.out_per_group, g.taps(),
                                                       path == Path::blocked_avx512)) + O + 64;
        scratch_i64 = threads * 2 * T;  // BlockedProblem::scratch_elements
        break;
    case Path::depthwise_avx2:
    case Path::depthwise_avx512:
        packed = T * Cs + Cs;
        scratch_i64 = threads * std::max(4 * T, 3.0 * double(g.kernel[0]) * double(g.kernel[1] + 2));
        break;
    case Path::im2col_gemm:
        scratch_f32 = threads * double(detail::gemm_gather_floats(g));
        [[fallthrough]];
    case Path::scalar:
    case Path::gemm_1x1:
    case Path::automatic:
        packed = G * T * ICg * OCg + O;
        scratch_f32 += threads * OCg;  // the scalar rows' accumulators
        // gemm_1x1 with AVX-512 on NCX buffers: a copy of a last super block of pixels (ncx_pointwise.hpp)
        if (path == Path::gemm_1x1) scratch_f32 += threads * ICg * 64;
        break;
    }
    bool unpadded = true;
    for (int a = 0; a < d.rank; ++a) unpadded = unpadded && d.pads_begin[a] == 0 && d.pads_end[a] == 0;
    const bool user_ncx = path == Path::gemm_1x1 && d.dtype == DataType::f32 && d.data_format == DataFormat::ncx && unpadded;
    double xp = 0, y = 0;
    if (!user_ncx) {
        ConvDescriptor src_desc = d;
        if (depthwise) src_desc.pads_begin = src_desc.pads_end = SpatialDims{0, 0, 0};
        const detail::Geometry sg = detail::make_geometry(src_desc, depthwise ? 16 : 1);
        const i64 band_chunk_pixels = blocked ? detail::blocked_plan_chunk_pixels(g, path == Path::blocked_avx512) : 0;
        // the plan's src_in_place, or the row kernel's (forward_rows.hpp): src read where it is
        const bool in_place = rows || (blocked && detail::blocked_reads_src_in_place(d, g));
        if (rows) xp = double(detail::forward_rows_copy_floats(d));
        const bool packs = !in_place && !detail::src_is_xp(src_desc, sg);
        detail::PaddedInputParts parts = detail::padded_input_parts(src_desc, sg, 0, band_chunk_pixels);
        // xp and y for a chunk of images (chunk_images; the row kernel holds y for the whole batch)
        const i64 images = rows ? g.batch
                                : detail::chunk_images(g, parts, packs, double(sg.padded_pixels()) * double(sg.channel_stride),
                                                       !detail::dst_is_y(d), i64(threads));
        if (packs) {
            if (!parts.in_bands()) parts.images = images;
            // packed inside the tasks: a band's buffer per thread (padded_input_task_parts)
            xp = parts.in_tasks ? detail::xp_task_floats(src_desc, sg, 0, band_chunk_pixels, i64(threads))
                                : detail::xp_part_floats(sg, parts);
        }
        if (!detail::dst_is_y(d)) y = double(d.dst_elements()) / double(g.batch) * double(images);  // (bands: the batch)
    }
    const double taps_list = T;  // ConvPlan::Impl::taps, i64
    const double execute = 4 * (xp + y + scratch_f32) + 8 * scratch_i64;
    return saturate(4 * packed + 8 * taps_list + std::max(4 * canonical, execute));
}

bool within_memory_rule(const ConvDescriptor& d, Path path) {
    return path_memory_bytes(d, path) <= tensor_bytes(d) + kFixedWorkspaceBytes;
}

}  // namespace convcheck::optimized
