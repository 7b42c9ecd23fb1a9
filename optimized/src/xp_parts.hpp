// Internal: the padded input xp in parts. A plan packs xp and runs its kernel part by part, so that xp
// never holds more than a budget (by default the memory rule's: the input's own bytes plus half of
// kFixedWorkspaceBytes; padding makes xp larger than the input, and 16-bit input is widened to f32):
//   - the batch in chunks of as many whole images as fit (at least one);
//   - on the blocked paths, an image whose xp alone exceeds the budget in bands of output planes (3-D:
//     axis 0) or output rows (axis 1, when the output and kernel have one plane), each band's xp holding
//     only the input planes or rows the band reads.
// Images are independent. A band is made of whole work items of the whole image (rows are banded in
// multiples of the items' pixel chunks: BlockedProblem::chunk_pixels), and its geometry moves pad_begin
// so that every output reads the same input: the kernel runs the same tiles over the same taps, in the
// same order, whatever the parts (the same bits).
#pragma once

#include "convcheck/core/descriptor.hpp"
#include "problem.hpp"

namespace convcheck::optimized::detail {

struct XpParts {
    i64 images = 1;  // images per chunk
    int axis = -1;   // -1: chunks of whole images; 0 or 1: one image at a time, in bands along this axis
    i64 band = 0;    // output planes (axis 0) or rows (axis 1) per band
};

// How the plan packs xp for `d` (src_geometry: the geometry of what the kernels read). budget_bytes: the
// most bytes xp may take at once, or 0 for the rule's default. band_chunk_pixels: the pixel chunk of the
// path's work items when it runs bands (the blocked paths), or 0 when it cannot (then one image at least).
XpParts xp_parts(const ConvDescriptor& d, const Geometry& src_geometry, std::int64_t budget_bytes,
                 i64 band_chunk_pixels);
// The floats of the largest part's xp.
double xp_part_floats(const Geometry& src_geometry, const XpParts& parts);
// Output planes or rows [first, first + count) of one image of g along `axis` (0 or 1): batch 1, the
// padded input only the input that part reads, pad_begin moved by first * stride (so that every output
// reads, and every kernel skips, the same input pixels as in g). For axis 1, g must have one output
// plane and a kernel of one plane (the tap offsets and the output's layout stay those of g).
Geometry band_geometry(const Geometry& g, int axis, i64 first, i64 count);

}  // namespace convcheck::optimized::detail
