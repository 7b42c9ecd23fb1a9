// Internal: the conversions at the edges of every path (the user's src into the padded input xp, the
// kernels' output into the user's dst). The dtype and layout conversions happen here, once, and the
// kernels see only f32 channels-last buffers (see problem.hpp).
#pragma once

#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "conversions_avx2.hpp"
#include "problem.hpp"

namespace convcheck::optimized::detail {

// The descriptor lifted to three axes; channel_stride = C rounded up to `channel_multiple`.
Geometry make_geometry(const ConvDescriptor& d, i64 channel_multiple);
// Per tap (kd, kh, kw), outermost first: the offset of the tap's pixel in xp, in floats.
std::vector<i64> tap_offsets(const Geometry& g);

// True when the user's src can serve as xp directly (f32, channels last, no padding, Cs == C).
bool src_is_xp(const ConvDescriptor& d, const Geometry& g);
// True when the blocked kernel reads the user's src where it is although the layer pads it (f32, channels
// last, Cs == C, every pad >= 0, some > 0, pixels grouped: BlockedProblem::src_in_place), instead of a
// padded copy.
bool blocked_reads_src_in_place(const ConvDescriptor& d, const Geometry& g);
// xp rows (n, pd, ph) in [begin, end): zero the padding; for NXC src also widen and copy the data.
void pack_src_rows(const ConvDescriptor& d, const Geometry& g, const void* src, float* xp, i64 begin, i64 end);
i64 pack_src_row_count(const Geometry& g);
// NCX src only, after (or independently of) pack_src_rows: blocks (n, 16 channels) widened and
// transposed into xp, reading 16 long sequential streams.
void pack_src_ncx_blocks(const ConvDescriptor& d, const Geometry& g, const void* src, float* xp, i64 begin, i64 end);
i64 pack_src_ncx_block_count(const Geometry& g);


// True when the kernels can write the user's dst directly (f32, channels last).
bool dst_is_y(const ConvDescriptor& d);
// NXC dst: rows (n, od, oh) in [begin, end) from y, rounded once to d.dtype (nearest even).
// NCX dst: store_dst_ncx_blocks, blocks (n, 16 output channels), transposed and rounded once.
void store_dst_rows(const ConvDescriptor& d, const Geometry& g, const float* y, void* dst, i64 begin, i64 end);
i64 store_dst_row_count(const Geometry& g);
void store_dst_ncx_blocks(const ConvDescriptor& d, const Geometry& g, const float* y, void* dst, i64 begin, i64 end);
i64 store_dst_ncx_block_count(const Geometry& g);
// Both steps, whichever d.data_format needs, as a list of independent tasks.
i64 store_dst_task_count(const ConvDescriptor& d, const Geometry& g);
void store_dst_tasks(const ConvDescriptor& d, const Geometry& g, const float* y, void* dst, i64 begin, i64 end);
i64 pack_src_task_count(const ConvDescriptor& d, const Geometry& g);
void pack_src_tasks(const ConvDescriptor& d, const Geometry& g, const void* src, float* xp, i64 begin, i64 end);

// Weights widened to f32 in canonical order [O][ICg][taps]; bias widened to f32 [O] (empty without bias).
std::vector<float> widen_weights(const ConvDescriptor& d, const Geometry& g, const void* weights);
// The weights in canonical order [O][ICg][taps] where they are: f32 OIX weights already are (no copy, so
// that packing holds no second copy of large weights), others widened (widen_weights).
class CanonicalWeights {
public:
    CanonicalWeights(const ConvDescriptor& d, const Geometry& g, const void* weights);
    static bool copies(const ConvDescriptor& d) { return d.dtype != DataType::f32 || d.filter_format != FilterFormat::oix; }
    const float* data() const { return data_; }

private:
    std::vector<float> widened_;
    const float* data_ = nullptr;
};
std::vector<float> widen_bias(const ConvDescriptor& d, const void* bias);
// The reverse of widen_weights: f32 weights [G][taps][ICg][OCg] (a weights gradient) rounded once into
// d's filter format and dtype, as independent tasks [begin, end): per output channel for OIX (its
// [ICg][taps] written in order), per row (group, tap, input channel) for XIO (OCg consecutive floats).
i64 store_weights_task_count(const ConvDescriptor& d, const Geometry& g);
void store_weights(const ConvDescriptor& d, const Geometry& g, const float* gtio, void* weights, i64 begin, i64 end);
// The only rounding of an output: an f32 value -> element `index` of a buffer of `dtype`, to nearest even.
void store_rounded(void* data, DataType dtype, i64 index, float value);

}  // namespace convcheck::optimized::detail
