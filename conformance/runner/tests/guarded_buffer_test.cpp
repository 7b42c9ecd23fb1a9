// Guarded buffers (guarded_buffer.hpp): zeroed, guarded at both ends, their pages mapped in at once (in a forked child
// too) or left untouched until asked, and a mapping kept for a later buffer of up to its size with the same promises.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "convcheck/runner/guarded_buffer.hpp"

namespace convcheck::runner {
namespace {

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

bool all_zero(const GuardedBuffer& b) {
    const auto* p = static_cast<const unsigned char*>(b.data());
    for (std::size_t i = 0; i < b.bytes(); ++i)
        if (p[i] != 0) return false;
    return true;
}

// the byte `offset` from the buffer's data (negative: before it) written in a child: whether the write faulted (the
// child did not reach its clean exit: killed by SIGSEGV, or ended by a sanitizer's handler of it)
bool write_faults(const GuardedBuffer& b, std::int64_t offset) {
    const pid_t pid = fork();
    if (pid == 0) {
        static_cast<volatile unsigned char*>(b.data())[offset] = 1;
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(GuardedBuffer, AKeptMappingServesALaterBufferZeroedAndGuarded) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t before = GuardedBuffer::kept_bytes();
    const void* first_data = nullptr;
    {
        GuardedBuffer first(3 << 20);
        first.keep_when_released();
        std::memset(first.data(), 0xFF, first.bytes());
        first_data = first.data();
    }
    ASSERT_GT(GuardedBuffer::kept_bytes(), before) << "a mapping of 3 MiB is kept";
    // 2 MiB + 100 bytes: more than half of the kept 3 MiB, so it takes that mapping, its data flush against the end
    GuardedBuffer second((2 << 20) + 100);
    EXPECT_EQ(GuardedBuffer::kept_bytes(), before) << "the kept mapping was taken";
    EXPECT_EQ(address(second.data()) + second.bytes(), address(first_data) + (3 << 20))
        << "the same mapping, the data flush against its last guard";
    EXPECT_TRUE(all_zero(second)) << "a kept mapping's bytes are zero again, as a fresh mapping's";
    EXPECT_EQ(second.locate(address(second.data()) + second.bytes()), GuardedBuffer::Where::guard_after);
    EXPECT_EQ(second.locate(address(second.data()) - 1), GuardedBuffer::Where::front_padding);
    // the kept mapping's unused pages before the buffer: guards, named as before the start
    const std::uintptr_t unused = address(first_data) + page;
    EXPECT_EQ(second.locate(unused), GuardedBuffer::Where::guard_before);
    EXPECT_TRUE(write_faults(second, std::int64_t(second.bytes()))) << "past the end";
    EXPECT_TRUE(write_faults(second, std::int64_t(unused) - std::int64_t(address(second.data()))))
        << "in the unused pages before it";
    EXPECT_FALSE(write_faults(second, 0));
    EXPECT_FALSE(write_faults(second, std::int64_t(second.bytes()) - 1));
}

TEST(GuardedBuffer, OnlyAMappingMarkedToBeKeptIsKept) {
    const std::size_t before = GuardedBuffer::kept_bytes();
    { GuardedBuffer passing(3 << 20); }
    EXPECT_EQ(GuardedBuffer::kept_bytes(), before) << "a buffer freed within a case would add to the case's peak";
}

TEST(GuardedBuffer, ASmallBufferDoesNotTakeAMappingTwiceItsSize) {
    const std::size_t before = GuardedBuffer::kept_bytes();
    {
        GuardedBuffer big(4 << 20);
        big.keep_when_released();
    }
    const std::size_t kept = GuardedBuffer::kept_bytes();
    ASSERT_GT(kept, before);
    GuardedBuffer small(1 << 20);
    EXPECT_EQ(GuardedBuffer::kept_bytes(), kept) << "1 MiB in a 4 MiB mapping would waste three quarters of it";
    EXPECT_TRUE(all_zero(small));
}

// How many of b's data pages are in this process's page table (/proc/self/pagemap, bit 63: present), without
// touching them; -1 where that cannot be read.
long pages_present(const GuardedBuffer& b) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::uintptr_t first = address(b.data()) / page, end = (address(b.data()) + b.bytes() + page - 1) / page;
    std::vector<std::uint64_t> entries(end - first);
    const int fd = open("/proc/self/pagemap", O_RDONLY);
    if (fd < 0) return -1;
    const auto bytes = static_cast<ssize_t>(entries.size() * sizeof(std::uint64_t));
    const bool read_all = pread(fd, entries.data(), static_cast<std::size_t>(bytes), static_cast<off_t>(first * 8)) == bytes;
    close(fd);
    if (!read_all) return -1;
    long present = 0;
    for (const std::uint64_t e : entries) present += static_cast<long>(e >> 63);
    return present;
}

// Whether this kernel maps pages in on request (MADV_POPULATE_WRITE, Linux 5.14).
bool kernel_maps_in() {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    const bool ok = p != MAP_FAILED && madvise(p, page, MADV_POPULATE_WRITE) == 0;
    if (p != MAP_FAILED) munmap(p, page);
    return ok;
}

// A mapping of `bytes` kept, its bytes written, for the next buffer of that size to take.
void leave_a_kept_mapping(std::size_t bytes) {
    GuardedBuffer first(bytes);
    first.keep_when_released();
    std::memset(first.data(), 0xFF, first.bytes());
}

TEST(GuardedBuffer, ItsPagesAreMappedInAtOnceHereAndInAForkedChild) {
    if (!kernel_maps_in()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
    if (pages_present(GuardedBuffer(1)) < 0) GTEST_SKIP() << "/proc/self/pagemap cannot be read here";
    constexpr long kPages = 512;
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    for (const bool kept : {false, true}) {
        SCOPED_TRACE(kept ? "a kept mapping" : "a fresh mapping");
        if (kept) leave_a_kept_mapping(kPages * page);
        GuardedBuffer input(kPages * page - 100), output(kPages * page);
        EXPECT_EQ(pages_present(input), kPages) << "the runner fills it without a fault a page";
        EXPECT_EQ(pages_present(output), kPages);
        // the child: a fork copies no page table entry of a shared mapping; each mapped in as isolation.cpp does
        const pid_t pid = fork();
        if (pid == 0) {
            input.protect_read_only();
            const bool mapped = input.map_in(false) && output.map_in(true);
            _exit(mapped && pages_present(input) == kPages && pages_present(output) == kPages ? 0 : 1);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
            << "in the child, every page mapped in by map_in";
    }
}

// How many of b's data pages hold memory (GuardedBuffer::residency); -1 where that cannot be told.
long pages_resident(const GuardedBuffer& b) {
    const std::vector<unsigned char> resident = b.residency();
    if (resident.empty()) return -1;
    return std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; });
}

// A sampled case's tensors (GiBs) are held through a query the backend may decline: untouched, they cost no memory,
// fresh or in a kept mapping whose pages held an earlier case's data; mapped in, every page is there and zero.
TEST(GuardedBuffer, AnUntouchedBufferHoldsNoPageUntilMappedIn) {
    if (!kernel_maps_in()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
    constexpr long kPages = 512;
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    for (const bool kept : {false, true}) {
        SCOPED_TRACE(kept ? "a kept mapping" : "a fresh mapping");
        if (kept) leave_a_kept_mapping(kPages * page);
        const std::size_t before = GuardedBuffer::kept_bytes();
        GuardedBuffer b(kPages * page - 100, GuardedBuffer::Pages::untouched);
        if (kept) {
            EXPECT_LT(GuardedBuffer::kept_bytes(), before) << "the kept mapping was taken";
        }
        EXPECT_EQ(pages_resident(b), 0) << "no page allocated before the runner writes it";
        EXPECT_EQ(pages_resident(GuardedBuffer(kPages * page)), kPages) << "the default: mapped in at once";
        ASSERT_TRUE(b.map_in(true));
        EXPECT_EQ(pages_resident(b), kPages);
        EXPECT_TRUE(all_zero(b));
    }
}

}  // namespace
}  // namespace convcheck::runner
