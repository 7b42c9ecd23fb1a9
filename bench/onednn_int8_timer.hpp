// oneDNN 2.6 (libdnnl-dev) int8 convolution timed on the same quantized descriptor, as the int8 table's yardstick
// (int8_table.cpp): u8/s8 src, s8 weights, s32 bias, u8/s8/s32 dst; output scales (common or per output channel)
// and src/dst zero points as primitive attributes, as the oneDNN plugin sets them (onednn_quantized.cpp).
//   best:  src, weights and dst in the layouts the primitive chooses (format_tag::any); only execution timed.
//   nhwc:  the primitive on channels-last src/dst (what `benchdnn --stag=nhwc --dtag=nhwc` times), its weights in
//          the layout it prefers, reordered once outside the timing.
#pragma once

#include <optional>
#include <span>

#include "convcheck/core/quantized_descriptor.hpp"

namespace convcheck::bench {

struct OnednnInt8Times {
    std::optional<double> best_ms, nhwc_ms;
};

// Times q with oneDNN on `threads` OpenMP threads, each run repeated for about min_seconds; the minimum is kept.
// weights_scales: one, or one per output channel. Empty optionals where oneDNN declines the case.
OnednnInt8Times time_onednn_int8(const QuantizedDescriptor& q, std::span<const float> weights_scales, int threads,
                                 double min_seconds);

}  // namespace convcheck::bench
