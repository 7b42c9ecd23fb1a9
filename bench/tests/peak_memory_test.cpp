// The peak resident memory a call adds (bench/peak_memory.hpp): a known allocation is measured as its size,
// nothing as nothing, and memory that earlier calls freed into the heap does not hide a call's own.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "peak_memory.hpp"

namespace convcheck::bench {
namespace {

constexpr std::int64_t kMiB = std::int64_t(1) << 20;

// n blocks of `bytes`, every page written (volatile: the compiler may not drop the allocation).
std::vector<char*> touched_blocks(int n, std::size_t bytes) {
    std::vector<char*> blocks;
    for (int i = 0; i < n; ++i) {
        auto* p = static_cast<char*>(std::malloc(bytes));
        for (std::size_t j = 0; j < bytes; j += 4096) static_cast<volatile char*>(p)[j] = char(j);
        blocks.push_back(p);
    }
    return blocks;
}
void free_all(const std::vector<char*>& blocks) {
    for (char* p : blocks) std::free(p);
}

TEST(PeakMemory, MeasuresWhatACallTouches) {
    const PeakMemory m = peak_added_resident_bytes([] { free_all(touched_blocks(1, 32 * kMiB)); });
    if (!m.bytes) GTEST_SKIP() << "peak memory not measurable here: " << m.why_not;
    EXPECT_GE(*m.bytes, 31 * kMiB);  // a page or so of the resident set's own changes aside
    EXPECT_LT(*m.bytes, 33 * kMiB);
}

TEST(PeakMemory, NothingIsNothing) {
    const PeakMemory m = peak_added_resident_bytes([] {});
    if (!m.bytes) GTEST_SKIP() << "peak memory not measurable here: " << m.why_not;
    EXPECT_LT(*m.bytes, kMiB);
}

// 32 MiB in 64 KiB heap blocks (below glibc's mmap threshold), freed before the call behind a block that keeps
// the heap's top from shrinking: the call gets the same pages back from the heap, and still they count.
TEST(PeakMemory, HeapFreedBeforeDoesNotHideTheCall) {
    const auto earlier = touched_blocks(512, 64 * 1024);
    const auto plug = touched_blocks(1, 64);
    free_all(earlier);
    const PeakMemory m = peak_added_resident_bytes([] { free_all(touched_blocks(512, 64 * 1024)); });
    free_all(plug);
    if (!m.bytes) GTEST_SKIP() << "peak memory not measurable here: " << m.why_not;
    EXPECT_GE(*m.bytes, 31 * kMiB);
    EXPECT_LT(*m.bytes, 33 * kMiB);
}

}  // namespace
}  // namespace convcheck::bench
