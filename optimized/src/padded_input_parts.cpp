// The padded input in parts: chunks of images, or bands of one image (padded_input_parts.hpp).
#include "padded_input_parts.hpp"

#include "convcheck/optimized/conv_plan.hpp"

#include <algorithm>
#include <cmath>

namespace convcheck::optimized::detail {

namespace {

// The blocked kernel's NXC f32 src copied row by row (few channels and products: conv1_7x7s2) goes in chunks of
// the images whose xp fits in half the L2 of one core of the Xeon (2 MiB), so that the kernel reads each chunk
// from the L2 right after its copy (measured on the Xeon, 1 thread, batch 8: conv1_7x7s2 2-3 % faster,
// bench/results/forward-conv1.md)
constexpr double kCopiedImagesBytes = double(1 << 20);

// A thread's share of a chunk of images' xp and y (chunk_images): about a core's L2 (2 MiB on the Xeon, 1 MiB on Zen 4).
// Against y for the whole batch, measured on Zen 4 (2 cores), NCHW, batch 8, 1 / 2 threads: conv1_7x7s2 23.5 / 12.0 ->
// 20.3 / 10.4 ms, res3_downsample 21.3 / 11.9 -> 19.6 / 9.7 (bench/results/forward-nchw.md)
constexpr double kChunkBytesPerThread = double(2 << 20);

// The padded extent along `axis` that `count` consecutive outputs read.
double band_extent(const Geometry& g, int axis, double count) {
    return (count - 1) * double(g.stride[axis]) + double(g.kernel[axis] - 1) * double(g.dilation[axis]) + 1;
}

// xp floats per padded plane (axis 0) or row (axis 1) of one image.
double floats_across(const Geometry& g, int axis) {
    const double other = axis == 0 ? double(g.padded[1]) : double(g.padded[0]);
    return other * double(g.padded[2]) * double(g.channel_stride);
}

// The most output planes or rows a band covers.
double band_span(const Geometry& g, const PaddedInputParts& parts) {
    if (parts.axis == 0) return double(parts.band);
    // `band` chunks of pixels begin anywhere in a row: rows floor((pixels - 1) / OW) + 2 at most
    const double rows = double((parts.band * parts.chunk_pixels - 1) / g.out[2] + 2);
    return rows < double(g.out[1]) ? rows : double(g.out[1]);
}

// The most bytes xp may take at once: the budget, or the memory rule's.
double allowed_bytes(const ConvDescriptor& d, std::int64_t budget_bytes) {
    return budget_bytes > 0 ? double(budget_bytes)
                            : double(size_of(d.dtype)) * double(d.src_elements()) + double(kFixedWorkspaceBytes / 2);
}

}  // namespace

PaddedInputParts padded_input_parts(const ConvDescriptor& d, const Geometry& sg, std::int64_t budget_bytes, i64 band_chunk_pixels) {
    const double image = 4.0 * double(sg.padded_pixels()) * double(sg.channel_stride);
    const double allowed = allowed_bytes(d, budget_bytes);
    const bool copied = band_chunk_pixels > 0 && d.dtype == DataType::f32 && d.data_format == DataFormat::nxc &&
                        sg.channel_stride == d.in_channels;
    PaddedInputParts parts;
    parts.in_tasks = copied && sg.out[0] == 1 && sg.padded[0] == 1 && image <= allowed;
    if (image * double(sg.batch) <= allowed) {
        parts.images = sg.batch;
        if (copied && image * double(sg.batch) > 2 * kCopiedImagesBytes)
            parts.images = image >= kCopiedImagesBytes ? 1 : static_cast<i64>(kCopiedImagesBytes / image);
        return parts;
    }
    const double fit = allowed / image;
    parts.images = fit < 1 ? 1 : static_cast<i64>(fit);
    if (image <= allowed || band_chunk_pixels <= 0) return parts;
    parts.axis = sg.out[0] == 1 && sg.kernel[0] == 1 ? 1 : 0;
    parts.chunk_pixels = band_chunk_pixels;
    const int a = parts.axis;
    // the output planes or rows whose input fits in the budget (at least one)
    const double extent_fits = allowed / (4.0 * floats_across(sg, a));
    const double span = double(sg.kernel[a] - 1) * double(sg.dilation[a]) + 1;
    double outputs = extent_fits < span ? 1 : (extent_fits - span) / double(sg.stride[a]) + 1;
    if (outputs > double(sg.out[a])) outputs = double(sg.out[a]);
    if (a == 0) {
        parts.band = static_cast<i64>(outputs);
    } else {
        // chunks of pixels that cover at most `outputs` rows wherever they begin (band_span)
        const double chunks = (outputs - 1) * double(sg.out[2]) / double(band_chunk_pixels);
        const double all = double((sg.out[1] * sg.out[2] + band_chunk_pixels - 1) / band_chunk_pixels);
        parts.band = chunks < 1 ? 1 : chunks > all ? static_cast<i64>(all) : static_cast<i64>(chunks);
    }
    return parts;
}

PaddedInputParts padded_input_task_parts(const ConvDescriptor& d, const Geometry& sg, std::int64_t budget_bytes, i64 chunk_pixels,
                      i64 threads) {
    const double image = 4.0 * double(sg.padded_pixels()) * double(sg.channel_stride);
    const double per_thread = allowed_bytes(d, budget_bytes) / double(threads);
    const double cap = per_thread < kCopiedImagesBytes ? per_thread : kCopiedImagesBytes;
    const i64 chunks = (sg.out[1] * sg.out[2] + chunk_pixels - 1) / chunk_pixels;
    const i64 least = std::clamp<i64>(static_cast<i64>(std::ceil(image / cap)), 1, chunks);
    i64 bands = least;
    while (bands < least * threads && bands < chunks && sg.batch * bands % threads != 0) ++bands;
    PaddedInputParts parts;
    parts.axis = 1;
    parts.chunk_pixels = chunk_pixels;
    parts.bands = bands;
    parts.band = (chunks + bands - 1) / bands;
    return parts;
}

double xp_task_floats(const ConvDescriptor& d, const Geometry& sg, std::int64_t budget_bytes, i64 chunk_pixels,
                      i64 threads) {
    const PaddedInputParts parts = padded_input_task_parts(d, sg, budget_bytes, chunk_pixels, threads);
    const i64 tasks = sg.batch * parts.bands;
    return double(tasks < threads ? tasks : threads) * xp_part_floats(sg, parts);
}

i64 chunk_images(const Geometry& g, const PaddedInputParts& parts, bool packs, double xp_image_floats, bool holds_y,
                 i64 threads) {
    if (packs && parts.in_bands()) return g.batch;
    const i64 most = packs ? parts.images : g.batch;
    if (!holds_y) return most;
    const double image_bytes = 4.0 * (double(g.out_pixels()) * double(g.out_channels) + (packs ? xp_image_floats : 0.0));
    const double fit = double(threads < 1 ? 1 : threads) * kChunkBytesPerThread / image_bytes;
    return fit < 1 ? 1 : fit < double(most) ? static_cast<i64>(fit) : most;
}

double xp_part_floats(const Geometry& sg, const PaddedInputParts& parts) {
    if (parts.axis < 0) return double(parts.images) * double(sg.padded_pixels()) * double(sg.channel_stride);
    return band_extent(sg, parts.axis, band_span(sg, parts)) * floats_across(sg, parts.axis);
}

void band_outputs(const Geometry& g, const PaddedInputParts& parts, i64 q0, i64 q1, i64* first, i64* last) {
    const i64 plane = g.out[1] * g.out[2];
    if (parts.axis == 0) {
        const i64 chunks = (plane + parts.chunk_pixels - 1) / parts.chunk_pixels;
        *first = q0 / chunks;
        *last = (q1 - 1) / chunks;
        return;
    }
    const i64 end = q1 * parts.chunk_pixels < plane ? q1 * parts.chunk_pixels : plane;
    *first = q0 * parts.chunk_pixels / g.out[2];
    *last = (end - 1) / g.out[2];
}

Geometry band_geometry(const Geometry& g, int axis, i64 first, i64 count) {
    Geometry b = g;
    b.batch = 1;
    b.out[axis] = count;
    b.pad_begin[axis] = g.pad_begin[axis] - first * g.stride[axis];
    b.padded[axis] = (count - 1) * g.stride[axis] + (g.kernel[axis] - 1) * g.dilation[axis] + 1;
    b.pad_end[axis] = b.padded[axis] - g.in[axis] - b.pad_begin[axis];
    return b;
}

}  // namespace convcheck::optimized::detail
