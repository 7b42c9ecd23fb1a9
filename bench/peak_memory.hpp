// The peak resident memory a call adds, measured by the kernel: the process's resident-set high-water mark
// (VmHWM in /proc/self/status), reset to the current resident set by writing "5" to /proc/self/clear_refs
// (Linux >= 4.0) just before the call. Used for the CC paper table (cc_paper_table.hpp), where torch 1.13's
// CPU allocator keeps no peak statistic and ours (CcPlan::peak_workspace_bytes) does not count Eigen's buffers.
//
// What it counts: every page the call makes resident (heap, mmap, thread stacks; the call's results included)
// above the resident set at its start, after glibc's free memory has been handed back (malloc_trim), so that
// blocks freed by earlier calls do not hide the call's own. Resolution: one page, and the kernel's RSS counters
// (exact on 6.x; batched per thread, up to 64 pages each, on older kernels). Pages allocated but never touched
// are not counted, as they take no memory. Not thread-safe against other threads allocating meanwhile.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace convcheck::bench {

struct PeakMemory {
    std::optional<std::int64_t> bytes;  // the peak resident bytes the call added, when measurable
    std::string why_not;                // else why not (no /proc/self/clear_refs, ...)
};

// Runs `call` once and measures its peak added resident memory.
PeakMemory peak_added_resident_bytes(const std::function<void()>& call);

}  // namespace convcheck::bench
