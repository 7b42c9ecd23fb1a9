// Guarded buffers (guarded_buffer.hpp): zeroed, guarded at both ends, and a mapping kept for a later buffer of up to
// its size with the same promises.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

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

}  // namespace
}  // namespace convcheck::runner
