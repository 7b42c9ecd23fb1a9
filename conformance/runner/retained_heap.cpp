// The runner's heap keeps freed memory (retained_heap.hpp). perf of `convcheck run --backend optimized --jobs 1
// --suite shapes_resnet_50` on 2 cores: a quarter of the samples were the kernel zeroing fresh pages, because
// glibc gives each block of 32 MiB or more its own mmap and returns it to the kernel at free, and every case
// allocates its arrays anew (conv1's 40 M outputs: 320 MB each for the sum, the magnitude, the term count, the
// backend's result and the bounds). With mmap off and the trim threshold at its largest, glibc serves those
// blocks from its main heap and keeps them when freed; with one arena, the job threads' blocks come from that
// heap too (a thread's own arena cannot hold a block past 64 MiB). The runner's resident memory then stays at
// its largest case's; the forked plugin child hands the pages back first, so they never count as its own.
#include "convcheck/runner/retained_heap.hpp"

#include <malloc.h>

#include <climits>

namespace convcheck::runner {

namespace {
bool g_retained = false;
}  // namespace

void retain_freed_heap() {
    // each setting alone: one refused (a sanitizer's allocator ignores them all) leaves glibc's default
    const bool arenas = mallopt(M_ARENA_MAX, 1) == 1;
    const bool no_mmap = mallopt(M_MMAP_MAX, 0) == 1;
    // free() trims the heap's top once it reaches the trim threshold, down to the top pad: both at their largest
    // (mallopt takes an int), a top of up to 2 GiB is never trimmed and at least 2 GiB stays after a trim
    const bool kept = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1 && mallopt(M_TOP_PAD, INT_MAX) == 1;
    g_retained = arenas || no_mmap || kept;
}

void release_retained_heap_in_child() {
    if (!g_retained) return;
    // glibc's defaults (mallopt(3)): mmap for up to 65536 blocks, the top of the heap trimmed past 128 KiB to a pad
    // of 128 KiB
    mallopt(M_MMAP_MAX, 65536);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    mallopt(M_TOP_PAD, 128 * 1024);
    malloc_trim(0);
}

}  // namespace convcheck::runner
