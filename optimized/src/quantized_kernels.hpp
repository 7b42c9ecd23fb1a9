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
};
// The AVX-512 VNNI kernel (quantized_vnni_avx512.cpp): a row of output pixels, in register tiles.
struct DenseRow {
    const std::uint8_t* src = nullptr;  // the copy at the row's first window origin, at the group's first channel
    std::int64_t pixel_step = 0;        // bytes between consecutive output pixels' windows
    const std::int64_t* tap_offset = nullptr;  // bytes from a window's origin to each tap
    std::int64_t taps = 0, quads = 0;          // quads: I/G rounded up to 4, divided by 4
    const std::int8_t* weights = nullptr;      // the first block's packed weights
    std::int64_t block_stride = 0;             // bytes between blocks' packed weights
    const std::int32_t* compensation = nullptr;  // 16 per block
    int blocks = 1;                             // 1..4
    std::int64_t width = 0;                     // output pixels in the row
    std::int32_t* acc = nullptr;                // [width][blocks * 16]
    // Fused requantization (an f32 rule, a channels-last u8/s8 dst): with a rule, each pixel's outputs are
    // requantized in registers and stored at dst_of[pixel] (null: a pixel past its row's end, dropped), acc unused.
    const RowRequantization* rule = nullptr;
    const float* multiplier = nullptr;       // M of the first block's first channel, then on
    std::uint8_t* const* dst_of = nullptr;   // [width]
    std::int64_t channels = 0;               // the blocks' output channels that exist (the last block may be partial)
};
void dense_row_avx512_vnni(const DenseRow& row);

// The AMX kernel (quantized_amx.cpp): the same row, in tiles of 16 pixels x 64 input channels x 16 output channels.
struct AmxRow {
    const std::uint8_t* src = nullptr;
    std::int64_t pixel_step = 0;
    const std::int64_t* tap_offset = nullptr;
    std::int64_t taps = 0, chunks = 0;  // chunks: I/G rounded up to 64, divided by 64
    const std::int8_t* weights = nullptr;
    std::int64_t block_stride = 0;
    const std::int32_t* compensation_rows = nullptr;  // 16 x 16 per block
    int blocks = 1;
    std::int64_t width = 0;
    std::int32_t* acc = nullptr;  // [width][blocks * 16]
};
// Whether the CPU has AMX-INT8 and Linux grants its tile data (not with CONVCHECK_NO_AMX=1).
bool amx_usable();
// A thread's tiles configured before its rows, released after them.
void amx_begin();
void amx_end();
void dense_row_amx(const AmxRow& row);

struct DepthwiseRow {
    const std::uint8_t* src = nullptr;  // the copy at the row's first window origin
    std::int64_t pixel_step = 0;
    const std::int64_t* tap_offset = nullptr;
    std::int64_t taps = 0, blocks = 0;       // blocks of 16 channels
    const std::int32_t* weights = nullptr;   // [block][tap][16]
    const std::int32_t* compensation = nullptr;  // [block][16]
    std::int64_t width = 0;
    std::int32_t* acc = nullptr;  // [width][blocks * 16]
    // Fused requantization, as DenseRow's: pixel p's channels at dst + p * dst_pitch, acc unused.
    const RowRequantization* rule = nullptr;
    const float* multiplier = nullptr;  // [channels]
    std::uint8_t* dst = nullptr;
    std::int64_t dst_pitch = 0, channels = 0;
};
void depthwise_row_avx512_vnni(const DepthwiseRow& row);

// One row of accumulators ([width][acc_pitch], `channels` of them from acc's first) requantized under an f32 rule
// into a channels-last u8/s8 dst (dst at the row's first pixel and channel, dst_pitch bytes per pixel).
void requantize_row_avx512(const std::int32_t* acc, std::int64_t acc_pitch, std::int64_t width, std::int64_t channels,
                           const float* multiplier, const RowRequantization& rule, std::uint8_t* dst,
                           std::int64_t dst_pitch);

}  // namespace convcheck::optimized::detail
