// The padded input in parts: chunks of images, or bands of one image (xp_parts.hpp).
#include "xp_parts.hpp"

#include <numeric>

#include "convcheck/optimized/conv_plan.hpp"

namespace convcheck::optimized::detail {

namespace {

// The padded extent along `axis` that `count` consecutive outputs read.
double band_extent(const Geometry& g, int axis, double count) {
    return (count - 1) * double(g.stride[axis]) + double(g.kernel[axis] - 1) * double(g.dilation[axis]) + 1;
}

// xp floats per padded plane (axis 0) or row (axis 1) of one image.
double floats_across(const Geometry& g, int axis) {
    const double other = axis == 0 ? double(g.padded[1]) : double(g.padded[0]);
    return other * double(g.padded[2]) * double(g.channel_stride);
}

}  // namespace

XpParts xp_parts(const ConvDescriptor& d, const Geometry& sg, std::int64_t budget_bytes, i64 band_chunk_pixels) {
    const double image = 4.0 * double(sg.padded_pixels()) * double(sg.channel_stride);
    const double allowed = budget_bytes > 0 ? double(budget_bytes)
                                            : double(size_of(d.dtype)) * double(d.src_elements()) +
                                                  double(kFixedWorkspaceBytes / 2);
    XpParts parts;
    if (image * double(sg.batch) <= allowed) {
        parts.images = sg.batch;
        return parts;
    }
    const double fit = allowed / image;
    parts.images = fit < 1 ? 1 : static_cast<i64>(fit);
    if (image <= allowed || band_chunk_pixels <= 0) return parts;
    parts.axis = sg.out[0] == 1 && sg.kernel[0] == 1 ? 1 : 0;
    const int a = parts.axis;
    // bands of rows: whole pixel chunks of the plane (a multiple of `unit` rows), so that the work items,
    // and with them the register tiles, are those of the whole image
    const i64 unit = a == 0 ? 1 : band_chunk_pixels / std::gcd(sg.out[2], band_chunk_pixels);
    const double across = 4.0 * floats_across(sg, a);
    const double extent_fits = allowed / across;  // padded planes or rows within the budget
    const double span = double(sg.kernel[a] - 1) * double(sg.dilation[a]) + 1;
    const double most = extent_fits < span ? 1 : (extent_fits - span) / double(sg.stride[a]) + 1;
    if (most >= double(sg.out[a])) {
        parts.band = sg.out[a];
    } else {
        const i64 units = static_cast<i64>(most) / unit;
        parts.band = units < 1 ? unit : units * unit;  // at least one unit, over the budget if it must be
        if (parts.band > sg.out[a]) parts.band = sg.out[a];
    }
    return parts;
}

double xp_part_floats(const Geometry& sg, const XpParts& parts) {
    if (parts.axis < 0) return double(parts.images) * double(sg.padded_pixels()) * double(sg.channel_stride);
    return band_extent(sg, parts.axis, double(parts.band)) * floats_across(sg, parts.axis);
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
