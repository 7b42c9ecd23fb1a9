#include "stream_bound.hpp"

#include <unistd.h>

#include <algorithm>

namespace convcheck::optimized::detail {

namespace {

// The last-level cache that a thread's data can stay in: sysconf's L3 (0 or -1 where unknown), on AMD at most the
// 32 MiB of one CCD (Zen 3 to 5: each CCD has its own L3, and a virtual machine may report the package's: 508 MiB on
// the Zen 5 machine, bench/results/zen5.md).
i64 last_level_cache_bytes() {
    static const i64 bytes = [] {
        const i64 l3 = static_cast<i64>(sysconf(_SC_LEVEL3_CACHE_SIZE));
        constexpr i64 ccd = i64{32} << 20;
        return __builtin_cpu_is("amd") && l3 > ccd ? ccd : l3;
    }();
    return bytes;
}

}  // namespace

// Measured on the Xeon (260 MB L3), quiet, each plan run back to back, batch 8, 1 thread: pw16_96_112 (38.5 MB of
// NHWC dst) 3.00 ms streamed, 2.59 stored plainly; res2_1x1_256 (25.7 MB) 5.86, 5.54; at 2 threads 1.52 / 1.30 and
// 2.91 / 2.73 (bench/results/forward-rows.md, "Streaming stores"). On the Zen 5 machine (32 MiB per CCD) that is
// 16 MiB (bench/results/zen5.md).
i64 resolved_stream_nxc_output_above(i64 option) {
    if (option > 0) return option;
    return std::max(kStreamOutputAbove, last_level_cache_bytes() / 2);
}

}  // namespace convcheck::optimized::detail
