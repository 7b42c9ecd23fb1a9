// Internal: im2col, the input's patches laid out as a matrix, and its adjoint col2im, for the GEMM evaluators
// (gemm_summation.cpp; gemm_backward_sums.cpp: im2col for backward weights, col2im for backward data). Built, like them, with -mavx2 -mfma
// (reference/CMakeLists.txt); it instantiates no Eigen.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "geometry.hpp"

namespace convcheck::reference::detail {

// Elements of one im2col block (rows x columns), about 2 MiB of doubles: the block and its magnitudes
// stay in a core's cache while both products read them.
inline constexpr std::int64_t kBlockElements = std::int64_t{1} << 18;

// A thread's pair of block arrays (an im2col block and its magnitudes, or a product's block for col2im): grown as
// needed and never cleared, since every user writes each element before it reads it. Held thread_local by the
// evaluators, whose helper threads are new each call: a vector's resize would zero a fresh thread's arrays (a memset
// of every element) each call; these are only allocated (the kernel still clears the pages the allocator has not
// handed out before).
struct BlockArrays {
    std::unique_ptr<double[]> values, magnitude;
    std::size_t capacity = 0;
    void reserve(std::size_t elements) {
        if (elements <= capacity) return;
        values = std::make_unique_for_overwrite<double[]>(elements);
        magnitude = std::make_unique_for_overwrite<double[]>(elements);
        capacity = elements;
    }
};

// The columns of one block of K rows and P columns in all: about kBlockElements elements, at least 64 columns,
// at most all of them.
inline std::int64_t block_columns(std::int64_t K, std::int64_t P) {
    return std::clamp<std::int64_t>(kBlockElements / std::max<std::int64_t>(K, 1), std::min<std::int64_t>(64, P), P);
}

// Along axis a: the input index o*S - P_L + k*D of output index o and tap k, at [o * kernel + k], or -1 where
// it lies outside [0, in) (the padding).
std::vector<std::int64_t> input_index(const Geometry3& g, int a);

// One block of the im2col matrix of one image and group: row (ic, kd, kh, kw) for the input channels
// [0, channels) of `planes` (the first of them; one input plane after another), in the definition's order of
// term positions, and column j for the output position p0 + j (j < width, positions in (od, oh, ow) order).
// Element (row, j) is the input value that tap reads for that output, planes[ic][x] with
// x = y*S - P_L + k*D on each axis, or 0 where x lies outside [0, in) (the padding); patches_magnitude holds
// its absolute value. Both are written whole (width elements a row), in row-major order. With `taps`, the rows
// of those taps only, taps first: row (tap - taps->first) * channels + ic for the taps [taps->first, taps->end).
struct TapRange {
    std::int64_t first = 0, end = 0;  // taps (kd, kh, kw), numbered in that order
};
void im2col_block(const Geometry3& g, const double* planes, std::int64_t channels, std::int64_t p0,
                  std::int64_t width, double* patches, double* patches_magnitude, const TapRange* taps = nullptr);

// The taps of the block [p0, p0 + width) from the first to the last that reads inside the input for one of its
// outputs (empty, {0, 0}, where none does). Every tap outside that range reads the padding for every output of the
// block: its rows of the block's im2col (one per input channel) are all zero, products that are no term of the
// definition.
TapRange live_taps(const Geometry3& g, std::int64_t p0, std::int64_t width);

// col2im, im2col_block's adjoint: element (row, j) of `columns` (rows and columns as above, row-major, width
// elements a row) is added to the input position its tap reads for the output p0 + j, planes[ic][x], and
// element (row, j) of columns_magnitude to planes_magnitude[ic][x]; a tap in the padding adds nothing. The
// additions go row by row, each row's columns in order.
void col2im_add_block(const Geometry3& g, const double* columns, const double* columns_magnitude,
                      std::int64_t channels, std::int64_t p0, std::int64_t width, double* planes,
                      double* planes_magnitude);

}  // namespace convcheck::reference::detail
