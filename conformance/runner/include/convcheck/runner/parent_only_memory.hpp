// Memory a case's plugin child never sees (parent_only_memory.cpp). Every fork of the runner (one a case)
// write-protects the runner's private pages, and the runner then takes a page fault, and a copy while a child
// lives, for each page it writes afterwards: with two jobs, one job's reference and judging rewrite hundreds of
// megabytes while the other job's child runs. Blocks that a fork does not copy (madvise MADV_DONTFORK) take
// none of that, and kept when freed they take no fresh pages either.
//
// Which blocks: those of 2 MiB or more that a thread allocates with operator new while it checks a case
// (ParentOnlyScope, around check_case_once). A case's child reads only that case's data: when a thread forks, the
// live blocks it allocated are copied to the child like any memory (show_to_child) and hidden again after; every
// other job's blocks, and the free ones kept, stay out. Only programs that link convcheck_parent_only_new (the
// convcheck command, its test) route operator new here; elsewhere, and under a sanitizer, nothing changes.
#pragma once

#include <cstddef>

namespace convcheck::runner::parent_only_memory {

// The smallest block served: 2 MiB, a huge page.
inline constexpr std::size_t kSmallestBlock = std::size_t{2} << 20;

// While one is open on a thread, that thread's operator new serves blocks of kSmallestBlock or more from here.
class ParentOnlyScope {
public:
    ParentOnlyScope();
    ~ParentOnlyScope();
    ParentOnlyScope(const ParentOnlyScope&) = delete;
    ParentOnlyScope& operator=(const ParentOnlyScope&) = delete;
};

// Around a fork by this thread (child_process.cpp, under its fork lock): the live blocks this thread allocated
// are copied to the child; show_to_child() before fork(), hide_after_fork() after it in the parent. In a child
// (marked by a pthread_atfork handler, whoever forks) the pool serves nothing and frees nothing of the parent's.
void show_to_child();
void hide_after_fork();

// For the replacement operator new and delete (parent_only_new.cpp): a block of at least `bytes`, or nullptr
// where this thread has no scope open, the size is below kSmallestBlock, the alignment is above a page's, or
// this is a child; and whether `p` is one of these blocks (then taken back, kept for the next one).
void* allocate(std::size_t bytes, std::size_t alignment);
bool release(void* p);

// For tests: whether p is a live block of this pool, and the bytes of free blocks kept.
bool is_block(const void* p);
std::size_t kept_bytes();

}  // namespace convcheck::runner::parent_only_memory
