// The AVX-512 depthwise rows on layers larger than the caches (depthwise_kernels.inl, defined only in the
// AVX-512 unit): the rows the 3-wide kernel takes (depthwise_k3_rows.inl) store their full channel blocks by
// non-temporal stores, with no read for ownership of output lines that would not stay in a cache anyway, and
// with prefetch_rows prefetch into L2, before each tile, the input rows that the next output rows add; every
// other row as depthwise_rows. The same bits as depthwise_rows. y must be the user's dst (the caller does not
// read it back), and the caller joins the threads after (the calls end with a store fence).
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail::avx512 {
void depthwise_rows_streamed(const DepthwiseProblem& p, bool prefetch_rows, const float* x, float* y, i64* scratch,
                             i64 begin, i64 end);
}  // namespace convcheck::optimized::detail::avx512
