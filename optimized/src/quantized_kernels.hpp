// The kernels of the quantized plan's byte paths (quantized_vnni.hpp), in the ISA files: quantized_vnni_avx512.cpp
// (AVX-512 VNNI) and quantized_amx.cpp (AMX-INT8). Plain structs only: the kernel files reach no header outside
// optimized/src (scripts/check_layers.py).
#pragma once

#include <cstdint>

namespace convcheck::optimized::detail {

// An f32 rule's output: the zero point added before the rounding (nearest_even_f32_with_zero_point) or after it
// (nearest_even_f32), the range, the type.
struct RowRequantization {
    bool zero_point_first = true;
    bool to_u8 = true;  // else s8
    std::int32_t dst_zero_point = 0;
    std::int64_t dst_min = 0, dst_max = 255;
    // every multiplier below 1: f32(acc) * M stays inside (-2^31, 2^31) for any s32 acc (|f32(acc)| <= 2^31, and the
    // product with M <= 1 - 2^-24 is at most 2^31 - 2^7, exact)
    bool products_inside_s32 = false;
};
// The AVX-512 VNNI kernel (quantized_vnni_avx512.cpp): a run of output pixels, in register tiles. A tile's pixels
// are any of the run's, each window found through its own offset, so a tile crosses the ends of output rows.
struct DenseRow {
    const std::uint8_t* src = nullptr;  // the copy at the run's plane's origin, at the group's first channel
    const std::int64_t* pixel_offset = nullptr;  // [width]: bytes from src to each output pixel's window origin, or
    std::int64_t pixel_step = 0;                 // null: pixel p's is p * pixel_step (windows evenly spaced)
    const std::int64_t* tap_offset = nullptr;  // bytes from a window's origin to each tap
    std::int64_t taps = 0, quads = 0;          // quads: I/G rounded up to 4, divided by 4
    const std::int64_t* step_index = nullptr;  // [taps]: the steps the row takes, in order (null: 0 .. taps - 1)
    const std::int8_t* weights = nullptr;      // the first block's packed weights
    std::int64_t block_stride = 0;             // bytes between blocks' packed weights
    const std::int32_t* compensation = nullptr;  // 16 per block
    int blocks = 1;                             // 1..4
    std::int64_t width = 0;                     // output pixels in the row
    std::int32_t* acc = nullptr;                // [width][blocks * 16]
    // Fused requantization (an f32 rule, a channels-last u8/s8 dst): with a rule, each pixel's outputs are
    // requantized in registers and stored at dst_of[pixel], or where dst_of is null at dst + pixel * dst_pitch; acc
    // unused.
    const RowRequantization* rule = nullptr;
    const float* multiplier = nullptr;       // M of the first block's first channel, then on
    std::uint8_t* const* dst_of = nullptr;   // [width]
    std::uint8_t* dst = nullptr;
    std::int64_t dst_pitch = 0;
    std::int64_t channels = 0;               // the blocks' output channels that exist (the last block may be partial)
};
void dense_row_avx512_vnni(const DenseRow& row);

// The AMX kernel (quantized_amx.cpp): the same row, in tiles of 16 pixels x 64 input channels x 16 output channels.
struct AmxRow {
    const std::uint8_t* src = nullptr;
    std::int64_t pixel_step = 0;
    const std::int64_t* tap_offset = nullptr;
    std::int64_t taps = 0, chunks = 0;  // chunks: I/G rounded up to 64, divided by 64 (row runs: 1)
    std::int64_t k_bytes = 64;          // bytes of K per chunk: 64, or a row run's quads x 4 (rows of B: k_bytes / 4)
    std::int64_t step_bytes = 0;        // bytes of a block's packed weights per tap (or kernel row)
    const std::int8_t* weights = nullptr;
    std::int64_t block_stride = 0;
    const std::int32_t* compensation_rows = nullptr;  // 16 x 16 per block
    int blocks = 1;
    std::int64_t width = 0;
    std::int32_t* acc = nullptr;  // [width][blocks * 16]
};
// Whether the CPU has AMX-INT8 and Linux grants its tile data (not with CONVCHECK_NO_AMX=1).
bool amx_usable();
// A thread's tiles configured before its rows (for K = k_bytes), released after them.
void amx_begin(std::int64_t k_bytes);
void amx_end();
void dense_row_amx(const AmxRow& row);

// Depthwise layers (quantized_depthwise.cpp): each input row the kernel reads is first expanded for VPDPBUSD, once
// per thread and unit of channels, so that an output's taps along the row are one dword per channel: for output
// pixel p and group g of 4 taps (4g..4g+3 of a row of the kernel), channel c's dword holds the moved src bytes of
// pixels q, q + d, q + 2d, q + 3d (q = p * stride + crop + 4g * d); a tap past the kernel row reads its last tap
// again (its weight is 0).
// A unit is 64 channels, or the last 1 to 63; interleaving the bytes of 4 taps, then their words, within each
// 128-bit lane leaves 4 vectors of 16 dwords where vector k, lane 4L + i holds channel 16L + 4k + i ("lane order";
// packing 4 such vectors of s32 to bytes with packs and packus puts every channel back at its own byte). A unit of
// at most 32 channels (16) keeps only the first 2 (1) lanes of each vector, and one vector then holds 2 (4)
// consecutive output pixels: `pixels` per vector, each `64 / pixels` bytes of it.
struct DepthwiseExpansion {
    const std::uint8_t* const* pixel = nullptr;  // [padded width]: each padded pixel's raw src bytes, at the unit
    // the entries of `pixel` that may be read: the outputs' taps, and up to 2 past them that the pair expansion
    // reads (they meet zero weights, or feed no output)
    std::int64_t reach = 0;
    std::uint8_t shift = 0;                      // 0, or 128: XORed into every byte, an s8 src moved to u8
    std::int64_t channels = 0, pixels = 1;       // the unit's channels, 1..64; pixels per vector: 1, 2 or 4
    std::int64_t kernel_width = 1, groups = 1;   // groups: kernel_width rounded up to 4, divided by 4
    std::int64_t stride = 1, dilation = 1, crop = 0;
    std::int64_t width = 0, width_padded = 0;    // output pixels, and rounded up to `pixels` (those past width read the last one's)
    std::uint8_t* out = nullptr;                 // [group][vector k][width_padded][64 / pixels bytes]
};
void expand_depthwise_row_avx512(const DepthwiseExpansion& e);

// A row of one unit's depthwise outputs: per vector of output pixels, 4 VPDPBUSD per kernel row and group; the
// weights, compensation and multipliers in lane order, repeated for each pixel of a vector.
struct DepthwiseRow {
    const std::uint8_t* const* rows = nullptr;  // [kernel row]: the expanded input row it reads
    std::int64_t kernel_rows = 1, groups = 1, pixels = 1;
    const std::int8_t* weights = nullptr;        // [kernel row][group][k][16 lanes][4 taps], 0 past the taps
    const std::int32_t* compensation = nullptr;  // [k][16]
    std::int64_t width = 0, width_padded = 0;
    std::int32_t* acc = nullptr;  // [width_padded / pixels][k][16]
    // Fused requantization: pixel p's channels at dst + p * dst_pitch (bytes in channel order), acc unused.
    const RowRequantization* rule = nullptr;
    const float* multiplier = nullptr;  // [k][16]
    std::uint8_t* dst = nullptr;        // at the unit's first channel
    std::int64_t dst_pitch = 0, channels = 0;
};
void depthwise_row_avx512_vnni(const DepthwiseRow& row);

// `count` pixels, `from_step` bytes apart, to pixels `to_step` bytes apart: each of a pixel's `groups` runs of `run`
// bytes (`run` apart) to `run_pitch` bytes (`run_pitch` apart), XORed with `shift`; the bytes past a run are
// written too, with a value that meets zero weights (the dense copy's channels rounded up: no memset first).
void copy_groups_avx512(const std::uint8_t* from, std::int64_t from_step, std::uint8_t* to, std::int64_t to_step,
                        std::int64_t count, std::int64_t groups, std::int64_t run, std::int64_t run_pitch, std::uint8_t shift);

// `count` pixels of `bytes` bytes each, `from_step` bytes apart, to consecutive pixels `to_step` bytes apart, each
// byte XORed with `shift` (0, or 128: an s8 src moved to u8): a row of one phase of the AMX path's phased copy.
void copy_pixels_avx512(const std::uint8_t* from, std::int64_t from_step, std::uint8_t* to, std::int64_t to_step,
                        std::int64_t count, std::int64_t bytes, std::uint8_t shift);

// One row of accumulators ([width][acc_pitch], `channels` of them from acc's first) requantized under an f32 rule
// into a channels-last u8/s8 dst (dst at the row's first pixel and channel, dst_pitch bytes per pixel).
void requantize_row_avx512(const std::int32_t* acc, std::int64_t acc_pitch, std::int64_t width, std::int64_t channels,
                           const float* multiplier, const RowRequantization& rule, std::uint8_t* dst,
                           std::int64_t dst_pitch);

}  // namespace convcheck::optimized::detail
