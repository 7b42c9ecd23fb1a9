// What sampled mode (the large suite, docs/large.md) computes on: inputs written
// straight into the shared buffers in their dtype (a tensor past 2^31 elements cannot be widened to
// double: 8 bytes an element), and the outputs whose reference value is computed, one at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/runner/guarded_buffer.hpp"

namespace convcheck::runner {

// Fills `elements` values of `dtype` into `buffer`, in buffer order: element i is a function of
// (seed, i) alone, with a random sign, one of 8 binades [2^-8, 1) and a random significand, so that an
// element read from the wrong offset almost never holds the right value.
void fill_sampled(const GuardedBuffer& buffer, DataType dtype, std::int64_t elements, std::uint64_t seed);

// One sampled output: its NCX offset, and why it was picked ("dst element 2^31", "reads src byte
// 2^31", ... or "" for a random one).
struct SampledOutput {
    std::int64_t ncx = 0;
    std::string why;
};

// The reproducible sample of outputs for (d, seed), sorted by NCX offset and without repeats: the
// first and the last output; for every limit L of 2^31 and 2^32 bytes and 2^31 elements that a tensor
// passes, the outputs on both sides of it (dst: its elements at L - 1 and L, in buffer order; src and
// weights: an output reading the element just below L and one reading the element at L or just
// past it, when one does); and `random_count` outputs drawn from `seed`.
std::vector<SampledOutput> sample_outputs(const ConvDescriptor& d, std::uint64_t seed, int random_count);

// The NCX offset of the dst element at buffer offset `at` (d.data_format's order).
std::int64_t dst_ncx_of_buffer_offset(const ConvDescriptor& d, std::int64_t at);
// The buffer offset of the dst element at NCX offset `ncx`.
std::int64_t dst_buffer_offset(const ConvDescriptor& d, std::int64_t ncx);

}  // namespace convcheck::runner
