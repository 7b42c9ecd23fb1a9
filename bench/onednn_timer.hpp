// oneDNN 2.6 (libdnnl-dev) timed on the same descriptor, as the benchmark's yardstick.
//   best:  every tensor in the layout the primitive chooses (format_tag::any); only execution timed.
//   plain: the user's plain buffers (NCX+OIX or NXC+XIO); the better of (a) the primitive created on
//          the plain src/dst layouts and (b) format_tag::any with src/dst reorders timed as part of each run.
//          Weights are reordered once, outside the timing, as the optimized plan packs them once.
//   plain_primitive: (a) alone: the primitive created on the plain src/dst layouts, its weights plain or in
//          the layout it prefers, whichever is faster (what `benchdnn --stag=nhwc --dtag=nhwc` times).
#pragma once

#include <optional>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::bench {

struct OnednnTimes {
    std::optional<double> best_ms, plain_ms, plain_primitive_ms;
};

// Times d (f32) with oneDNN on `threads` OpenMP threads, each run repeated for about min_seconds;
// the minimum over runs is reported. Empty optionals where oneDNN declines the case.
OnednnTimes time_onednn(const ConvDescriptor& d, int threads, double min_seconds);

}  // namespace convcheck::bench
