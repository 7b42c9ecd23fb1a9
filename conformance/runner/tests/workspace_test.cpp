// The runner's workspace (ABI 1.2, workspace.hpp): 64-byte aligned, flush against a guard page after
// the reported bytes rounded to 64, the slack between holding a canary; the high-water mark is the
// last byte the plugin left nonzero.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "convcheck/runner/workspace.hpp"

using namespace convcheck::runner;

namespace {

TEST(Workspace, IsAlignedAndUntouchedUntilWritten) {
    for (const std::uint64_t bytes : {1u, 63u, 64u, 4000u, 4096u, 100000u}) {
        const RunnerWorkspace w(bytes);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.data()) % 64, 0u) << bytes;
        EXPECT_EQ(w.bytes(), bytes);
        EXPECT_EQ(w.high_water(), 0u) << bytes;
        EXPECT_EQ(w.first_write_past_end(), -1) << bytes;
    }
}

TEST(Workspace, TheHighWaterMarkIsTheLastByteWritten) {
    const RunnerWorkspace w(100000);
    auto* p = static_cast<unsigned char*>(w.data());
    p[10] = 1;
    EXPECT_EQ(w.high_water(), 11u);
    p[70000] = 3;  // another page, pages between untouched
    EXPECT_EQ(w.high_water(), 70001u);
    p[99999] = 7;  // the last byte
    EXPECT_EQ(w.high_water(), 100000u);
    EXPECT_EQ(w.first_write_past_end(), -1);
}

TEST(Workspace, AWriteIntoTheSlackAfterTheReportedBytesIsSeen) {
    const RunnerWorkspace w(4000);  // 4000 rounds to 4032: 32 bytes of slack
    auto* p = static_cast<unsigned char*>(w.data());
    std::memset(p, 1, 4000);
    EXPECT_EQ(w.first_write_past_end(), -1);
    p[4001] = 0;
    EXPECT_EQ(w.first_write_past_end(), 4001);
}

TEST(Workspace, AFaultPastTheEndOrBeforeTheStartIsNamed) {
    const std::uint64_t at = 0x100000;
    EXPECT_EQ(describe_workspace_fault(at + 4096, at, 4096),
              "write past the end of the runner's workspace (byte 4096; the plan reported workspace_bytes 4096)");
    EXPECT_EQ(describe_workspace_fault(at - 1, at, 4096),
              "access before the start of the runner's workspace (byte -1; the plan reported workspace_bytes 4096)");
    EXPECT_EQ(describe_workspace_fault(at + 100, at, 4096), "");  // inside: not a workspace fault
    EXPECT_EQ(describe_workspace_fault(at + 10 * 4096 * 4096, at, 4096), "");
}

// The guard page itself: a write one byte past a page-multiple workspace faults.
TEST(WorkspaceDeathTest, AWritePastTheRoundedEndFaults) {
    const RunnerWorkspace w(4096);
    auto* p = static_cast<volatile unsigned char*>(w.data());
    EXPECT_DEATH(p[4096] = 1, "");
}

}  // namespace
