// The fast evaluator of reading 1: the same sums as convolution_summation (convolution.hpp), bit for
// bit, on many threads and vector lanes. convolution_summation is the definition; this is what the
// runner checks with, and reference_fast_summation_test proves the two equal on random descriptors.
//
// How it keeps the bits: every output still adds its bias first, then its own products one at a
// time in the definition's order (ic_g, then k...), each product rounded before it is added (built
// with -ffp-contract=off). Only the work around that changes:
//   - outputs are independent, so blocks of output rows go to joined std::threads;
//   - one output row (n, oc, od, oh) pairs with the same term positions at every column; a row's
//     term list is built once per set of taps (kd, kh) whose input row exists, and every other row
//     of that set adds the same terms, shifted (row_terms.hpp);
//   - a row's columns are cut where a tap's reach begins or ends, and each piece is summed in chunks
//     of 16..1 neighbouring outputs whose sums stay in registers (chunk_sums.hpp): the loop runs
//     across outputs, never along one output's terms.
#pragma once

#include <span>

#include "convcheck/reference/convolution.hpp"

namespace convcheck::reference {

// convolution_summation(d, src_ncx, weights_oix, bias), on `threads` threads (0: one per core; one
// for small problems). Every value, magnitude and term count is the same, bit for bit, for any
// `threads`.
ConvResult fast_convolution_summation(const ConvDescriptor& d, std::span<const double> src_ncx,
                                      std::span<const double> weights_oix, std::span<const double> bias,
                                      int threads = 0);

}  // namespace convcheck::reference
