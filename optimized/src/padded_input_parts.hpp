// Internal: the padded input xp in parts. A plan packs xp and runs its kernel part by part, so that xp
// never holds more than a budget (by default the memory rule's: the input's own bytes plus half of
// kFixedWorkspaceBytes; padding makes xp larger than the input, and 16-bit input is widened to f32):
//   - the batch in chunks of as many whole images as fit (at least one); f32 NXC src copied as it is (few
//     channels, conv1-like) whose copies pass 2 MiB in chunks of the images that fit in 1 MiB (padded_input_parts.cpp);
//     in 2-D such src is packed inside the work's tasks instead, band by band (PaddedInputParts::in_tasks, padded_input_task_parts);
//   - on the blocked paths, an image whose xp alone exceeds the budget in bands of its work items: of
//     output planes (axis 0, 3-D), or of the pixel chunks of its one output plane (axis 1; a band may
//     begin and end inside a row). A band's xp holds only the input planes or rows its outputs read.
// A band runs the whole image's work items (BlockedProblem: same geometry, same pixel chunks, so the
// same register tiles over the same taps, in the same order) on its own xp, told by
// BlockedProblem::xp_first_plane / xp_first_row which padded plane or row of the image's xp that xp
// begins with (every pointer the kernel forms lies inside the band's xp): the same bits whatever the parts.
#pragma once

#include "convcheck/core/descriptor.hpp"
#include "problem.hpp"

namespace convcheck::optimized::detail {

struct PaddedInputParts {
    i64 images = 1;        // images per chunk
    int axis = -1;         // -1: chunks of whole images; 0 or 1: one image at a time, in bands along this axis
    i64 band = 0;          // per band: output planes (axis 0) or pixel chunks of the output plane (axis 1)
    i64 chunk_pixels = 0;  // the work items' pixel chunk (BlockedProblem::chunk_pixels)
    // f32 NXC src copied as it is (few channels: conv1-like), 2-D, an image's xp within the budget: xp is packed
    // inside the work's tasks instead (padded_input_task_parts), not in a pass of its own
    bool in_tasks = false;
    i64 bands = 0;  // padded_input_task_parts: the bands of an image, of `band` chunks or one fewer (band_chunks)
    // whether a plan that packs xp runs one image at a time in bands (axis >= 0 or in_tasks)
    bool in_bands() const { return axis >= 0 || in_tasks; }
};

// How the plan packs xp for `d` (src_geometry: the geometry of what the kernels read). budget_bytes: the
// most bytes xp may take at once, or 0 for the rule's default. band_chunk_pixels: the pixel chunk of the
// path's work items when it runs bands (the blocked paths), or 0 when it cannot (then one image at least).
PaddedInputParts padded_input_parts(const ConvDescriptor& d, const Geometry& src_geometry, std::int64_t budget_bytes,
                 i64 band_chunk_pixels);
// The bands of xp packed inside the work's tasks (PaddedInputParts::in_tasks) for `threads` threads: axis 1, `band` pixel
// chunks each. A task packs the input rows of one band of one image into a buffer of its own and runs the band's
// work items on it right away (from the L2; no pass of its own, no join between copy and kernel). The image goes
// in as few bands as fit in 1 MiB and in budget / threads, or more, so that the batch's bands (batch x bands) go
// evenly to the threads. The same bits whatever the bands (see above).
// Band b of those is positions [band_chunks(b), band_chunks(b + 1)): the chunks spread evenly (a short last band
// would leave a thread waiting: 2 threads, conv1 at batch 1, 7 bands of 9 chunks and one of 3 were 12 % slower).
PaddedInputParts padded_input_task_parts(const ConvDescriptor& d, const Geometry& src_geometry, std::int64_t budget_bytes,
                      i64 chunk_pixels, i64 threads);
inline i64 band_chunks(i64 chunks, const PaddedInputParts& parts, i64 b) { return b * chunks / parts.bands; }
// The floats of the bands' buffers that `threads` threads hold at once (padded_input_task_parts).
double xp_task_floats(const ConvDescriptor& d, const Geometry& src_geometry, std::int64_t budget_bytes, i64 chunk_pixels,
                      i64 threads);
// The images of one chunk of the batch where the plan holds the kernels' f32 channels-last output y for a dst that
// is not one (NCX, or 16-bit NXC), runs in chunks of whole images (not in bands: parts.axis < 0, !parts.in_tasks) and
// stores each chunk's y to dst as soon as its kernel ends: as many images as keep the chunk's xp (where the plan
// packs it, `xp_image_floats` an image) and y within `threads` x 2 MiB, so that each thread's share stays about a
// core's L2 and the store reads y back from the cache; at least one image, at most parts.images where it packs, and
// y and xp never hold more than the chunk. Without y: parts.images where it packs, else the batch; the batch where it
// runs bands (their loops are the bands').
i64 chunk_images(const Geometry& g, const PaddedInputParts& parts, bool packs, double xp_image_floats, bool holds_y,
                 i64 threads);
// The floats of the largest part's xp.
double xp_part_floats(const Geometry& src_geometry, const PaddedInputParts& parts);
// The output planes (axis 0) or rows (axis 1) [first, last] that the band of positions [q0, q1) covers,
// a position being (output plane, pixel chunk) numbered od * chunks + chunk.
void band_outputs(const Geometry& g, const PaddedInputParts& parts, i64 q0, i64 q1, i64* first, i64* last);
// What packs a band: output planes or rows [first, first + count) of one image of g along `axis` (0 or 1):
// batch 1, the padded input only the input those outputs read (pad_begin moved by first * stride).
Geometry band_geometry(const Geometry& g, int axis, i64 first, i64 count);

}  // namespace convcheck::optimized::detail
