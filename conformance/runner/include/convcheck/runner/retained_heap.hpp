// The runner keeps the memory its cases free, for the next case (retained_heap.cpp).
#pragma once

namespace convcheck::runner {

// Called once, before any thread starts: glibc's malloc serves every block, however large, from its main heap
// and keeps what is freed, so a case's large arrays (the reference's sums, magnitudes, term counts, the data)
// take the pages of the case before instead of fresh pages the kernel must zero first.
void retain_freed_heap();

// In a forked child (child_process.cpp), before the plugin runs: glibc's defaults again, and the parent's
// free pages handed back, so what the plugin allocates is its own and counts against the memory limit.
void release_retained_heap_in_child();

}  // namespace convcheck::runner
