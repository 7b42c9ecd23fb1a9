// Tensors that are not dense (ABI 1.2 memory strides, core/include/convcheck/core/memory_layout.hpp) in the buffers the
// runner shares with a plugin: each buffer spans the whole strided tensor, and the elements between
// (the gaps) hold the "never written" fill, all bytes 0xFF, a NaN in every dtype. A plugin that reads
// an input's gap as data computes NaN (the value check fails); one that writes a dst gap fails with
// kind gaps_written. Which plugins receive such a case: layout_unclaimed().
#pragma once

#include <cstdint>
#include <string>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

// Bytes of the buffer that holds the tensor under d's format and strides (its span).
std::size_t layout_bytes(const ConvDescriptor& d, TensorRole role);
// Sets every gap of the tensor in `data` to the fill (all bytes 0xFF); no-op for a dense tensor.
void fill_gaps(const ConvDescriptor& d, TensorRole role, void* data);
// "" when every gap of dst still holds the fill, else how many were written and the first.
std::string written_gaps(const ConvDescriptor& d, const void* dst);
// dst elements (not gaps) that still hold the fill (all bytes 0xFF).
std::int64_t unwritten_dst_elements(const ConvDescriptor& d, const void* dst);
// Why a plugin does not receive the case because of its memory layout, "" when it does: a plugin
// built against ABI 1.0 or 1.1 knows neither strides nor OXI, and is never handed them read dense;
// a 1.2 plugin receives strides for a tensor only when plugin_info.strided_tensors claims it.
std::string layout_unclaimed(const PluginInfo& info, const ConvDescriptor& d);

}  // namespace convcheck::runner
