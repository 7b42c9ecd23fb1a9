// The length of a backward pass's reductions (docs/passes.md): what sizes exact mode's data
// (backward/data.cpp) and tells a suite whether exact mode can hold a backward case at all.
#pragma once

#include <cstdint>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::runner {

// The most terms one gradient element of the pass sums: backward data pairs a diff_src element with
// at most (O/G) * prod(k) (output, tap) pairs; backward weights sums over the batch and every output
// position (N * prod(out)); the bias gradient over the same N * prod(out) diff_dst values.
std::int64_t backward_max_terms(const ConvDescriptor& d);

}  // namespace convcheck::runner
