// Internal: the two kernels of the CC chunked method's Internal-Net path (cc_chunked.cpp), compiled
// with -mavx2 -mfma (namespace avx2) or for AVX-512 (namespace avx512): call only when the CPU has the
// ISA. Plain structs only, so that no inline function compiled for one ISA leaks into another unit.
//
// The Internal-Net's last layer is linear: the weight of channel pair (cin, cout) at a distance
// pair D is  W(D) = sum_m W3[cout*Cin + cin][m] h_m(D) + b3[cout*Cin + cin],  h = the second hidden
// layer's output. So an output is
//   y[cout] = bias[cout] + sum_{cin,m} W3[..][m] Z[cin][m] + sum_cin b3[..] S[cin],
//   Z[cin][m] = sum_taps h_m(D_tap) N[cin, tap],   S[cin] = sum_taps N[cin, tap],
// over the neighbours N inside the input: per output pixel, the hidden features (cc_hidden_features),
// the contraction Z, S of the input with them (cc_contract_channels_last), then one GEMM with the packed
// [W3 | b3] over all pixels (the blocked kernel, as a 1x1 convolution of Cin*(h2p + 1) channels).
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

// The hidden features of output pixels p0 .. p0 + count (row-major over the output plane), for their
// taps inside the input: h[(i*K + tap)*h2p + m], K = kh*kw, m < h2p (the lanes from h2 on are 0).
//   a1 = LeakyReLU(ay[oy][y] + ax[ox][x]),  h = LeakyReLU(W2 a1 + b2)
// in f32 (ay, ax evaluated in double and rounded once; W2 a1 + b2: b2 first, then a1's entries in
// order, FMA).
struct CcHiddenProblem {
    i64 h1 = 1, h2p = 8;           // the first layer's width; the second's rounded up to 8
    i64 kh = 1, kw = 1, out_w = 1, in_h = 1, in_w = 1;
    const i64* first_y = nullptr;  // first neighbour of every output row / column
    const i64* first_x = nullptr;
    const float* ay = nullptr;     // [OH][kh][h1]: W1[j][0] * dy + b1[j]
    const float* ax = nullptr;     // [OW][kw][h1]: W1[j][1] * dx
    const float* w2t = nullptr;    // [h1][h2p]: W2 transposed, zero padded
    const float* b2 = nullptr;     // [h2p], zero padded
    float slope_f32 = 0.01f;
};

// The contraction's geometry (cc_contract_channels_last below: Z and S of pixels, each summing its taps in (y, x)
// order from 0).
struct CcContractProblem {
    i64 in_channels = 1, h2p = 8, kh = 1, kw = 1, out_w = 1, in_h = 1, in_w = 1;
    const i64* first_y = nullptr;
    const i64* first_x = nullptr;
    i64 h2 = 8;  // the second hidden layer's width (cc_contract_channels_last's columns)
};

// Distance pairs whose first layer cc_hidden_features gathers before running the second.
inline constexpr i64 kHiddenPairs = 48;

// The taps [lo, hi) of one axis whose neighbour first + j lies inside [0, size).
struct TapRange {
    i64 lo, hi;
};

namespace avx2 {
TapRange inside(i64 first, i64 support, i64 size);
// Scratch: a1 kHiddenPairs * h1 floats, taps kHiddenPairs.
void cc_hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h);
// Z and S with the input channels last and Z feature-major (cc_contract_channels_last.inl): input row
// iy of the image packed as [W][Cin] at ring + row_offset[iy], for every row the pixels read;
// z[i*depth + m*Cin + cin] = Z[cin][m] (m < h2) and z[i*depth + h2*Cin + cin] = S[cin],
// depth = Cin*(h2 + 1); taps in (y, x) order from 0, FMA. Written once for both ISAs in cc_contract_channels_last.inl.
void cc_contract_channels_last(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                    i64 count, float* z);
// `width` consecutive pixels (a row, or rows) of channel planes `plane` floats apart (src[c * plane + x])
// -> channels last, dst[x * channels + c]; reads 8 planes at a time over all the pixels (more, 4 KiB
// apart, would share L1 sets).
void cc_pack_planes(const float* src, i64 channels, i64 width, i64 plane, float* dst);
// y [count][channels] (channels last) -> dst[c * plane + i], plus bias[c] (one rounding) unless null;
// 8 planes at a time over all the pixels.
void cc_store_planes(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane);
// The same, added to dst (dst[c * plane + i] += y[i * channels + c]).
void cc_add_planes(const float* y, i64 count, i64 channels, float* dst, i64 plane);
}  // namespace avx2

namespace avx512 {
// avx2::cc_hidden_features on AVX-512, for h2p a multiple of 16 (cc_hidden_avx512.cpp; the same bits).
void cc_hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h);
// avx2::cc_contract_channels_last's sums on AVX-512 (cc_contract_channels_last_avx512.cpp; the same bits).
void cc_contract_channels_last(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                    i64 count, float* z);
// avx2::cc_pack_planes, cc_store_planes and cc_add_planes on AVX-512: 16 planes at a time, masked partial blocks
// (cc_planes_avx512.cpp; the same bits).
void cc_pack_planes(const float* src, i64 channels, i64 width, i64 plane, float* dst);
void cc_store_planes(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane);
void cc_add_planes(const float* y, i64 count, i64 channels, float* dst, i64 plane);
}  // namespace avx512

// cc_hidden_features and cc_contract_channels_last in the build for this CPU (cc_chunked.cpp), for the forward and the
// backward alike: AVX-512 where cpu_has_avx512() holds (the hidden features only for h2p a multiple of 16),
// else AVX2. The same bits either way.
void cc_hidden_features_here(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h);
void cc_contract_cl_here(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                         i64 count, float* z);
// cc_pack_planes, cc_store_planes and cc_add_planes in the build for this CPU, likewise.
void cc_pack_planes_here(const float* src, i64 channels, i64 width, i64 plane, float* dst);
void cc_store_planes_here(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane);
void cc_add_planes_here(const float* y, i64 count, i64 channels, float* dst, i64 plane);

}  // namespace convcheck::optimized::detail
