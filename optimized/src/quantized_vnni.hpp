// The VNNI path of the optimized quantized plan (quantized_plan.hpp, docs/optimized.md, "Quantized convolution"):
// u8/s8 src and s8 weights without a weights zero point, on a CPU with AVX-512 VNNI. VPDPBUSD multiplies unsigned
// bytes by signed bytes, four at a time, into exact s32 sums; so
//   - an s8 src is moved to u8 by adding 128 (x + 128 = x ^ 0x80), and
//   - the src copy is padded with the src zero point (moved likewise): a padding tap then reads zx, and
//     (zx - zx) * w = 0, as the quantized convolution's padding adds nothing;
// the sum over every tap, padding included, is then sum(x' * w), and the true accumulator is
//   acc = bias + sum((x - zx) * w) = sum(x' * w) + bias - (zx + shift) * sum(w),
// the last two terms a constant per output channel ("compensation"). s32 sums wrap modulo 2^32 on the way, and the
// descriptor's rule keeps the true acc inside s32, so the result is exact.
//
// Dense and grouped layers: the copy is channels last with each group's channels rounded up to 4; weights packed
// per group in blocks of 16 output channels, [group][block][tap][I/G / 4][16][4]; a tile of up to 4 blocks x up to
// 12 output pixels (anywhere in the plane, each window found by its offset) stays in registers. Where the CPU has
// AMX-INT8 (quantized_amx.cpp) and a group has 16 input channels or more, TDPBUSD multiplies tiles of 16 pixels x K
// bytes by K bytes x 16 output channels: K = 64 (a group of more than 64 channels rounded up to 64), or the group's
// channels rounded up to 4, or a first layer's kernel row of taps x channels (row runs); with a stride in the plane
// the copy is split into the stride's phases (phase_pixel). Depthwise layers (one input and output channel per group,
// quantized_depthwise.cpp) make no copy of the image: each input row is expanded, per thread, so that a VPDPBUSD
// sums 4 taps of a kernel row for 16 channels (quantized_kernels.hpp, DepthwiseExpansion); padding rows and pixels
// read the moved src zero point.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/core/cache_line_allocator.hpp"
#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/optimized/decomposition.hpp"
#include "quantized_kernels.hpp"
#include "quantized_requantize.hpp"
#include "rows_on_demand.hpp"

namespace convcheck::optimized::detail {

// A quantized descriptor's axes lifted to three spatial axes (the outer ones of extent 1), with the extents of a
// copy of the input padded by the non-negative pads.
struct QuantizedGeometry {
    explicit QuantizedGeometry(const QuantizedDescriptor& q);
    std::int64_t N = 1, C = 1, O = 1, G = 1, ICg = 1, OCg = 1, taps = 1;
    std::int64_t in_spatial = 1, out_spatial = 1, padded_spatial = 1;
    std::int64_t in[3]{1, 1, 1}, out[3]{1, 1, 1}, stride[3]{1, 1, 1}, padded[3]{1, 1, 1};
    std::int64_t kernel[3]{1, 1, 1}, dilation[3]{1, 1, 1};
    std::int64_t lead[3]{0, 0, 0};  // padding before the input in the copy
    std::int64_t crop[3]{0, 0, 0};  // inputs a negative begin pad skips
    std::vector<std::int64_t> tap_pixel;  // each tap's pixel offset in the copy from its window's origin
    bool src_nxc = true, dst_nxc = true;
    // tap t's pixel offset from its window's origin in a plane of extent[1] x extent[2] pixels (padded: tap_pixel's)
    std::int64_t tap_pixel_in(std::int64_t t, const std::int64_t (&extent)[3]) const {
        const std::int64_t k0 = t / (kernel[1] * kernel[2]), k1 = t / kernel[2] % kernel[1], k2 = t % kernel[2];
        return (k0 * dilation[0] * extent[1] + k1 * dilation[1]) * extent[2] + k2 * dilation[2];
    }
    // the copy's pixel of output pixel y's window origin (y * s - pb + lead = y * s + crop)
    std::int64_t origin(std::int64_t y0, std::int64_t y1, std::int64_t y2) const {
        return ((y0 * stride[0] + crop[0]) * padded[1] + y1 * stride[1] + crop[1]) * padded[2] + y2 * stride[2] + crop[2];
    }
    // the copy's pixel of input pixel (x0, x1, x2)
    std::int64_t copy_pixel(std::int64_t x0, std::int64_t x1, std::int64_t x2) const {
        return ((x0 + lead[0]) * padded[1] + x1 + lead[1]) * padded[2] + x2 + lead[2];
    }
};

// v modulo 2^32, as s32: the compensation's sums wrap as the kernels' s32 sums do
inline std::int32_t wrapped_s32(std::int64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

// An uninitialised buffer starting on a cache line: no tile or vector row straddles two lines.
template <typename T>
class Workspace {
public:
    explicit Workspace(std::int64_t n) : n_(static_cast<std::size_t>(n)), p_(n > 0 ? CacheLineAllocator<T>().allocate(n_) : nullptr) {}
    ~Workspace() {
        if (p_) CacheLineAllocator<T>().deallocate(p_, n_);
    }
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    T* get() const { return p_; }

private:
    std::size_t n_;
    T* p_;
};

// The pixels of a run of dense_rows (its items: `others` = groups x channel chunks x sequences, times the runs of a
// sequence of `span` pixels): 64 to 1,024, a multiple of 32 (only a sequence's last run ends in a narrower tile), at
// least 8 runs per sequence where it is long enough; for more than one thread, where the items then number fewer
// than 4 per thread, the longest multiple of 32 (at least 32) that gives 4 per thread within a greedy schedule's
// bound of 1.33 (or 32), taken only where a greedy schedule of the items, each costing its pixels and a run's
// overhead, then ends sooner at the latest (greedy_schedule.hpp). An image's sums are the same whatever the runs
// (each pixel's in one tile, in one order).
std::int64_t vnni_run_length(std::int64_t span, std::int64_t others, int threads);

// The cut of a depthwise layer's work (quantized_depthwise.cpp, VnniPath::depthwise_run): its planes (images x
// units of 64 channels) in tasks of `chunk_rows` output rows each, every column of `tile` output pixels (the last
// `last_tile`) of a task's rows in turn; the tasks in one range per thread (TBB's static partitioner). The rows of a
// task are cut only where the busiest thread then ends sooner (vnni_depthwise_cut). Any cut gives the same sums
// (each output row computed whole, in one order).
struct DepthwiseCut {
    std::int64_t tile = 1, tiles = 1, last_tile = 1;  // output pixels of a column; columns per row; the last's
    std::int64_t ring = 1;        // expanded rows a column keeps: the rows one output row reads are this many apart at most
    std::int64_t planes = 1;      // images x units
    std::int64_t rows = 1;        // output rows of a plane (out[0] x out[1])
    std::int64_t span = 0;        // input rows a plane's first row reads before its own (the kernel's, axis 1)
    std::int64_t chunk_rows = 1;  // output rows of a task (the last of a plane's may have fewer)
    std::int64_t chunks = 1;      // tasks per plane
    bool units_inner = false;     // a task per (image, chunk, unit), units innermost (else per (image, unit, chunk))
};
DepthwiseCut vnni_depthwise_cut(const QuantizedGeometry& g, int threads);
// The cut's tasks for the decomposition test: in multiply-adds of a unit of 64 channels.
Decomposition vnni_depthwise_decomposition(const QuantizedGeometry& g, int threads);

// The steps (taps, or kernel rows with row runs) whose taps read the input, not only its padding, for each output
// pixel of a dense layer, as classes of pixels with the same steps: a step wholly in the padding adds (zx - zx) * w =
// 0 to a sum, and the VPDPBUSD tiles skip it (quantized_step_classes.cpp). class_of: [out_spatial], each pixel's
// class; steps: each class's steps in increasing order. Empty where every pixel takes every step, or where the
// classes would number more than 65,536.
struct StepClasses {
    std::vector<std::uint16_t> class_of;
    std::vector<std::vector<std::int64_t>> steps;
};
StepClasses vnni_step_classes(const QuantizedGeometry& g, bool row_runs);

// Empty when the VNNI path can run q on this CPU, else why not.
std::string why_not_vnni(const QuantizedDescriptor& q);

class VnniPath {
public:
    // weights: [O][taps][I/G] (the int16 path's packing; s8 values, the weights zero point being 0); bias: [O];
    // threads: the arena's threads that run will see, for the depthwise cut made here once (another count: made
    // per run)
    VnniPath(const QuantizedDescriptor& q, const QuantizedGeometry& g, const std::vector<std::int16_t>& weights,
             const std::vector<std::int32_t>& bias, const Requantizer& requantize, int threads);
    // src, dst in q's formats and types; parallel over output rows (call it inside the plan's arena). Const: a plan
    // may run on several threads at once.
    void run(const void* src, void* dst) const;
    // the kernel: "amx_int8" or "vnni_avx512"
    std::string kernel() const { return amx_ ? "amx_int8" : "vnni_avx512"; }

private:
    // images n0 .. n0 + images - 1 of a dense layer, whose copies (or src) lie image_bytes apart from `copy`
    struct DenseImages {
        const std::uint8_t* copy = nullptr;
        std::int64_t image_bytes = 0, n0 = 0, images = 1;
        const void* src = nullptr;
        // the copies' rows, written by the items that read them (copy_read_rows); none where src is read in place or
        // the copies were made before the rows' loop
        const RowsOnDemand* rows = nullptr;
        std::uint8_t* copy_to = nullptr;  // `copy`, to write (none where src is read in place)
    };
    void copy_row(const void* src, std::int64_t n, std::int64_t r, std::uint8_t* copy) const;
    void copy_phase_row(const void* src, std::int64_t n, std::int64_t item, std::uint8_t* copy) const;
    std::int64_t copy_rows() const;
    void copy_batch_row(const DenseImages& batch, std::int64_t row) const;
    void copy_read_rows(const DenseImages& batch, std::int64_t image, std::int64_t plane, std::int64_t v0,
                        std::int64_t count) const;
    bool direct() const;
    std::optional<RowRequantization> fused_rule() const;
    void dense_offsets();
    void window_offsets(const std::int64_t (&extent)[3]);
    void dense_classes(const std::vector<std::int16_t>& weights, const std::vector<std::int32_t>& bias);
    void classified_row(DenseRow r, std::int64_t origin, std::int64_t sequence_first, std::int64_t v0, std::int64_t count,
                        std::int64_t block, std::vector<std::int64_t>& offsets, std::vector<std::uint8_t*>& pixel_dst,
                        std::vector<std::int64_t>& starts) const;
    void dense_rows(const DenseImages& batch, void* dst) const;
    void pack_depthwise(const std::vector<std::int16_t>& weights, const std::vector<std::int32_t>& bias);
    void prepare_depthwise(int threads);
    void depthwise_run(const void* src, void* dst) const;
    void store_row(const std::int32_t* acc, std::int64_t acc_pitch, std::int64_t n, std::int64_t y_row,
                   std::int64_t width, std::int64_t first_channel, std::int64_t channels, void* dst) const;

    QuantizedDescriptor q_;
    QuantizedGeometry g_;
    Requantizer requantize_;
    // What a run needs that depends only on the plan, made here once: at batch 1 a run takes 6 to 20 us, and this
    // set-up, made per run on the thread that forks, cost ~10 % of dw960_7's at 2 threads while the other waited
    // (dw960_7 batch 1, ms: 0.011 -> 0.009 at 1 thread, 0.012 -> 0.006 at 2; bench/results/int8.md)
    std::optional<RowRequantization> rule_;  // fused_rule(): the rule the kernels apply in registers, or none
    // dense: each step's first tap's bytes from a window's origin (phased: each tap's, in its phase), and each
    // virtual pixel's window origin from its plane's in bytes where they are not evenly spaced (dense_rows)
    std::vector<std::int64_t> tap_offset_, pixel_offset_;
    bool even_ = false;  // dense, VPDPBUSD: windows evenly spaced, pixel_step apart (pixel_offset_ empty)
    // dense, VPDPBUSD with a fused rule, where some windows reach into the padding (dense_classes): each output
    // pixel's class of steps (StepClasses), and each class's compensation, bias - padding x the sum of its steps'
    // weights ([G][block][16]); empty: every pixel takes every step with compensation_
    StepClasses classes_;
    std::vector<std::vector<std::int32_t>> class_compensation_;
    std::vector<std::int64_t> class_segments_;  // the first pixel of each run of pixels of one class, then out_spatial
    // classes on a u8 channels-last src whose pixels are the copy's but for the padding: no step of a class reads the
    // padding, so the src is read where it lies, tap_offset_ and pixel_offset_ in its geometry (dense_classes)
    bool classes_in_place_ = false;
    std::int64_t src_origin(std::int64_t y0) const;
    // depthwise (depthwise_run): the cut for dw_threads_ threads; the src zero point as raw src bytes; each unit's
    // expanded row wholly in the padding, for a whole column [0] and a narrower last one [1]; each padded row's
    // slot in the ring (row % ring); the requantization multipliers in lane order, as the compensation
    int dw_threads_ = 1;
    DepthwiseCut dw_cut_;
    std::vector<std::uint8_t> dw_fill_;
    std::vector<std::uint8_t, CacheLineAllocator<std::uint8_t>> dw_padding_rows_;
    std::vector<std::int64_t> dw_slot_of_;
    std::vector<float> dw_multiplier_;
    bool depthwise_ = false;
    bool amx_ = false;
    std::uint8_t shift_ = 0;       // 128 for an s8 src, else 0
    std::int64_t pitch_ = 0;       // bytes per pixel of the copy
    std::int64_t group_pitch_ = 0; // a group's channels in the copy: I/G rounded up to 4 (dense), 1 (depthwise)
    std::int64_t blocks_ = 0;      // blocks of 16 output channels per group (dense), units of 64 channels (depthwise)
    bool row_runs_ = false;        // dense: a kernel row's taps x channels reduced as one run (quantized_vnni.cpp)
    // AMX with a stride in the plane: the copy split into phases (quantized_vnni.cpp, phase_pixel), so that a
    // plane's outputs are again one sequence of virtual pixels a fixed step apart
    bool phased_ = false;
    std::int64_t k_overrun_ = 0;     // AMX: bytes a pixel's last K chunk reads past its channels, into the next pixel's
    std::int64_t amx_k_bytes_ = 64;  // AMX: bytes of an A tile row (K), 64, or a row run's quads x 4
    std::int64_t phase_extent_[3]{1, 1, 1};  // padded pixels of one phase along each axis (axis 0: padded[0])
    std::int64_t copy_spatial_ = 1;          // pixels of the copy
    std::vector<char> phase_read_;           // whether a tap reads phase (r1 % s1) * s2 + r2 % s2 (all: not phased)
    std::int64_t phase_pixel(std::int64_t r0, std::int64_t r1, std::int64_t r2) const;
    std::int64_t steps_ = 0, quads_ = 0;  // dense: reduction steps (taps, or kernel rows with row runs), quads per step
    std::int64_t dw_groups_ = 1;   // depthwise: groups of 4 taps along a kernel row
    std::vector<std::int8_t, CacheLineAllocator<std::int8_t>> packed_;  // dense: [G][block][step][quad][16][4]
    std::vector<std::int8_t, CacheLineAllocator<std::int8_t>> packed_dw_;  // depthwise: quantized_depthwise.cpp
    std::vector<std::int32_t> compensation_;  // [G][block][16] (dense) or [unit][k][16] in lane order (depthwise)
    std::vector<std::int32_t, CacheLineAllocator<std::int32_t>> compensation_rows_;  // AMX: [G][block][16 pixels][16], an accumulator tile's start
};

}  // namespace convcheck::optimized::detail
