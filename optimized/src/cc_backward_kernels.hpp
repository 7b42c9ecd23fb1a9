// Internal: the kernels of the CC backward's Internal-Net path (cc_backward_net.cpp), compiled with
// -mavx2 -mfma in cc_backward_avx2.cpp: call only when the CPU has both. Plain structs only.
//
// The forward (cc_factored_kernels.hpp) computes, per output pixel o,
//   y[cout] = bias[cout] + sum_{cin,m} W3[cout,cin][m] Z[cin][m] + sum_cin b3[cout,cin] S[cin],
//   Z[cin][m] = sum_taps h_m(D_tap) N[cin, tap],  S[cin] = sum_taps N[cin, tap].
// Its reverse, for dY = diff_dst at o (the same matrices, transposed):
//   d[W3|b3][cout][.] += dY[cout] [Z|S][.]                 (cc_outer_accumulate, over pixels)
//   [dZ|dS][cin][.]    = sum_cout dY[cout] [W3|b3][cout][cin][.]   (the blocked GEMM)
//   dN[cin, tap]       = dS[cin] + sum_m h_m(D_tap) dZ[cin][m]     -> diff_src at the neighbour
//   dh_m(D_tap)       += sum_cin N[cin, tap] dZ[cin][m]            (cc_scatter_back, summed over the batch)
// then, per distance pair, the hidden layers' reverse (cc_hidden_backward).
#pragma once

#include <vector>

#include "cc_factored_kernels.hpp"
#include "cc_kernel.hpp"

namespace convcheck::optimized::detail {

// The hidden layers' reverse needs the distances themselves for dW1 (the grid's, rounded to f32).
struct CcHiddenBackwardProblem {
    const CcHiddenProblem* hidden = nullptr;
    const float* dist_y = nullptr;  // [OH][kh]
    const float* dist_x = nullptr;  // [OW][kw]
    const float* w2 = nullptr;       // [h2p][h1 rounded up to W]: W2's rows, zero padded (cc_hidden_w2)
};

// W2 as cc_hidden_backward reads it, from the forward's transposed copy (CcHiddenProblem::w2t): [h2p][h1
// rounded up to `lanes`, the vector width of the kernel that reads it].
std::vector<float> cc_hidden_w2(const CcHiddenProblem& p, i64 lanes);

// Scratch floats cc_scatter_back and cc_hidden_backward need.
// (avx2: dN [K][Cin]; avx512: dZ^T [h2p][Cin rounded up to 16])
inline i64 cc_scatter_back_scratch(const CcContractProblem& p) {
    const i64 dn = p.kh * p.kw * p.in_channels, dzt = p.h2p * ((p.in_channels + 15) / 16 * 16);
    return dn > dzt ? dn : dzt;
}
inline i64 cc_hidden_backward_scratch(const CcHiddenProblem& p) {
    return kHiddenPairs * (3 * p.h1 + 1 + p.h2p + 3 + p.h1 + 16);
}

// The polyphase method's patches without a copy (cc_backward_patches.inl): pixel i of a chunk at tap t
// reads the input's channels (channels last) at src_cl + src_at[t * stride + i] (a row of zeros
// outside the input) and sends its gradient to diff_cl + diff_at[t * stride + i] (-1: outside, nothing
// sent). dyt [rows][stride]: the pixels' diff_dst from column 0, one row per output channel (the
// chunk a window of arrays over every pixel of the image, in the plan's order).
struct CcPatchTaps {
    i64 count = 0, taps = 1, channels = 1, rows = 1;  // pixels, K, Cin, Cout
    const i64* src_at = nullptr;
    const i64* diff_at = nullptr;
    i64 stride = 0;  // of dyt's rows and of src_at's and diff_at's taps
};

// The polyphase method's Internal-Net reverse (cc_backward_reverse.inl): the pairs (dy, dx) k < count
// (pairs[2k], pairs[2k + 1]: phase k / taps, tap k % taps), their g = dL/dW read in place from the dW_phase
// partial: channel cout * Cin + cin of pair k at g[(k / taps * Cout + cout) * taps * Cin + k % taps * Cin + cin].
struct CcNetReverse {
    const CcKernelParams* net = nullptr;
    const double* pairs = nullptr;
    i64 count = 0, taps = 1;
    const double* g = nullptr;
};
// Doubles of cc_net_reverse_*'s scratch.
inline i64 cc_net_reverse_scratch(const CcKernelParams& p, i64 count) {
    return 3 * count * (p.h1 + p.h2) + 3 * p.h1 + p.h2 * (p.h1 + 1);
}

namespace avx2 {
// diff_theta (the ABI order) = the sum over the pairs of J_theta(D)^T g (LeakyReLU'(z) = 1 for z > 0, else
// the slope), in double, rounded once, in three steps (any split of the pairs or channels among tasks
// gives the same bits): cc_net_reverse_pairs for every pair (the net's forward at the pairs and dz2, into
// scratch), then cc_net_reverse_last for every output channel (dW3, db3) and cc_net_reverse_first (dW1,
// db1, dW2, db2).
void cc_net_reverse_pairs(const CcNetReverse& q, i64 k0, i64 k1, double* scratch);
void cc_net_reverse_last(const CcNetReverse& q, i64 co0, i64 co1, const double* scratch, float* diff_theta);
void cc_net_reverse_first(const CcNetReverse& q, double* scratch, float* diff_theta);

// partial [rows][taps * channels] (dW_phase) += sum over the pixels i of dyt[r][i] * the patch's
// (tap, channel): each sum in f32 from 0 over i in order (FMA), then added to the double partial.
void cc_patch_outer_accumulate(const CcPatchTaps& p, const float* dyt, const float* src_cl, double* partial);
// dF[i][tap, c] = sum_r dyt[r][i] * w[r][tap * channels + c] (f32 from 0 over r in order, FMA), added
// to diff_cl at each pixel's tap inside the input: taps in order, then 16 channels at a time, then the
// pixels in order.
void cc_patch_times_scatter(const CcPatchTaps& p, const float* dyt, const float* w, float* diff_cl);

// partial[c * rows + r] += sum_i dy[i * rows + r] * x[i * cols + c] over the count pixels i (the partial
// column-major): each sum in f32 from 0 over i in order (FMA), then added to the double partial.
void cc_outer_accumulate(const float* dy, i64 rows, const float* x, i64 cols, i64 count, double* partial);

// out [count][cols] = a [count][inner] w [inner][cols]: each sum over inner in order from 0 (FMA).
// ([dZ | dS] = dY [W3 | b3].)
void cc_rows_times(const float* a, i64 count, i64 inner, const float* w, i64 cols, float* out);

// The sum of x[0 .. n) in double: x[i] into lane i % 32 (from 0, in order), then the lanes (k) + (k + 16),
// (k) + (k + 8), ..., (0) + (1): the same bits on either ISA. (diff_bias, cc_backward_polyphase.)
double cc_sum32(const float* x, i64 n);
// sums[c] += x[r * cols + c] for c < cols, the rows r < rows in order (in double): the same bits on either
// ISA. (diff_bias, cc_backward_net.)
void cc_add_rows(const float* x, i64 rows, i64 cols, double* sums);

// One image, pixels p0 .. p0 + count (row-major over the output plane): dz [count][depth] ([dZ | dS] of
// each pixel), h the chunk's hidden features (cc_hidden_features); src_cl and diff_cl the image's input
// rows channels last, input row iy's at row_offset[iy] ([W][Cin] each). Adds dN to diff_cl at every neighbour inside the
// input (per pixel: taps in (y, x) order, each dN = dS + the features' lane sums, 4 feature vectors at a
// time), and sum_cin N dZ to dh [count][K][h2p] (input channels in order, FMA; up to 6 taps at once, their
// sums interleaved; first_image: written, not added: dh of the taps outside the input is left as it was).
// scratch: cc_scatter_back_scratch(p) floats.
void cc_scatter_back(const CcContractProblem& p, const float* src_cl, float* diff_cl, const i64* row_offset,
                     const float* h, const float* dz, i64 p0, i64 count, bool first_image, float* dh, float* scratch);

// The hidden layers' reverse for the chunk's distance pairs (taps inside the input, the order of
// cc_hidden_features, whose h it reads), given dh = dL/dh: recomputes a1 as the forward does (the same
// f32 values; z2 too when the slope is negative), then per pair dz2 = LeakyReLU'(z2) dh,
// da1 = W2^T dz2 (per group of kHiddenPairs pairs by cc_rows_times: m in order), dz1 = LeakyReLU'(v1) da1
// (LeakyReLU'(z) = 1 for z > 0, else the slope), and per group of kHiddenPairs pairs
//   partial_w2 [h1 + 1][h2p] += [a1 | 1]^T dz2   (dW2 transposed, then db2)
//   partial_w1 [3][h1]      += [dy dx 1]^T dz1   (dW1 transposed, then db1; the distances rounded to f32)
// by cc_outer_accumulate. scratch: cc_hidden_backward_scratch floats.
void cc_hidden_backward(const CcHiddenBackwardProblem& q, i64 p0, i64 count, const float* h, const float* dh,
                        double* partial_w2, double* partial_w1, float* scratch);
}  // namespace avx2

// The same kernels for AVX-512 (cc_backward_patches_avx512.cpp, cc_backward_products_avx512.cpp): the same
// sums in the same order, so the same bits as avx2's.
namespace avx512 {
void cc_net_reverse_pairs(const CcNetReverse& q, i64 k0, i64 k1, double* scratch);
void cc_net_reverse_last(const CcNetReverse& q, i64 co0, i64 co1, const double* scratch, float* diff_theta);
void cc_net_reverse_first(const CcNetReverse& q, double* scratch, float* diff_theta);
void cc_patch_outer_accumulate(const CcPatchTaps& p, const float* dyt, const float* src_cl, double* partial);
void cc_patch_times_scatter(const CcPatchTaps& p, const float* dyt, const float* w, float* diff_cl);
void cc_outer_accumulate(const float* dy, i64 rows, const float* x, i64 cols, i64 count, double* partial);
void cc_rows_times(const float* a, i64 count, i64 inner, const float* w, i64 cols, float* out);
double cc_sum32(const float* x, i64 n);
void cc_add_rows(const float* x, i64 rows, i64 cols, double* sums);
// (cc_backward_scatter_avx512.cpp: for h2p a multiple of 16 only; dN's feature sums in another order
// than avx2's, so diff_src may differ from avx2's in the last bits)
void cc_scatter_back(const CcContractProblem& p, const float* src_cl, float* diff_cl, const i64* row_offset,
                     const float* h, const float* dz, i64 p0, i64 count, bool first_image, float* dh, float* scratch);
// (cc_backward_hidden_avx512.cpp: for h2p a multiple of 16, q.w2 padded to 16; the same bits as avx2's)
void cc_hidden_backward(const CcHiddenBackwardProblem& q, i64 p0, i64 count, const float* h, const float* dh,
                        double* partial_w2, double* partial_w1, float* scratch);
}  // namespace avx512

}  // namespace convcheck::optimized::detail
