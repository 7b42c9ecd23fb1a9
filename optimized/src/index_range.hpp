// Internal: the limits of the optimized implementation's index arithmetic. Every index a kernel or
// an edge computes (tap offsets, pixel offsets, packed-weight offsets) is a prefix of an index into
// one of its buffers: the padded input xp, the f32 output y, or the packed weights. Bounding those
// buffers' sizes therefore bounds every intermediate product, so that no i64 arithmetic overflows.
#pragma once

#include "convcheck/core/descriptor.hpp"

namespace convcheck::optimized::detail {

// The most floats any workspace of the optimized implementation may hold: 2^60, so that its byte
// size (and any element index times sizeof(float)) fits in 62 bits.
inline constexpr std::int64_t kMaxWorkspaceFloats = std::int64_t{1} << 60;

// Throws ConvError (naming the attribute, the value and the rule) when `d`, valid by the spec, has
// a padded input, output or packed weights too large for the optimized implementation's indices.
void check_index_range(const ConvDescriptor& d);

// The optimized implementation materialises the padded input. Padding far larger than the data (a
// huge pad skipped by a huge stride or dilation, or cropped again by a negative pad on the other side)
// would make a small problem allocate without bound. Throws ConvError when the padded-input workspace
// exceeds both kWorkspaceFloor floats and kWorkspaceRatio times the input and output together.
inline constexpr std::int64_t kWorkspaceFloor = std::int64_t{1} << 26;  // 256 MiB of floats
inline constexpr std::int64_t kWorkspaceRatio = 32;
void check_workspace_size(const ConvDescriptor& d);

}  // namespace convcheck::optimized::detail
