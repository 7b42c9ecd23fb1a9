// The runner keeps the memory its cases free (retained_heap.hpp), and a plugin child still cannot use it unseen:
// the child hands the parent's free pages back before the plugin runs, so a block the plugin allocates is its
// own and counts against the memory limit. Its own program: the heap setting is the whole process's.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "convcheck/core/sanitizer_build.hpp"
#include "convcheck/runner/memory_limit.hpp"
#include "convcheck/runner/retained_heap.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

constexpr std::int64_t kMiB = 1 << 20;

// 768 MiB touched and freed by the runner, kept in its heap; then a plugin child takes one block of 512 MiB,
// twice its limit of 256 MiB: out of memory, as it is in a runner that keeps nothing.
TEST(RetainedHeap, APluginCannotUseTheRunnersFreedMemoryUnseen) {
#if defined(CONVCHECK_SANITIZER_BUILD)
    GTEST_SKIP() << "a sanitizer's allocator serves malloc: glibc's settings do not apply";
#endif
    retain_freed_heap();
    {
        std::vector<char> freed(768 * kMiB);
        std::memset(freed.data(), 1, freed.size());
    }
    auto hog = open_backend("memory_hog", {"hog=one_block", "bytes=" + std::to_string(512 * kMiB)}, 0, "none", 10.0);
    CheckSettings settings;
    settings.memory_limit_bytes = 256 * kMiB;
    settings.timeout_s = 120.0;
    const Case c = expand("memory", {SuiteEntry("conv:n=1,c=2,o=3,in=6x5,k=3x3,pb=1x1,pe=1x1,bias=1")}, 1, "bound").front();
    const CaseResult r = check_case(hog->backend, c, settings);
    EXPECT_STREQ(to_string(r.kind), "out_of_memory") << r.reason;
    EXPECT_NE(r.reason.find("256 MiB"), std::string::npos) << r.reason;
    // and a correct plugin passes beside the kept memory
    auto correct = open_backend("memory_hog", {"hog=none"}, 0, "none", 10.0);
    const CaseResult next = check_case(correct->backend, c, settings);
    EXPECT_EQ(next.status, Status::passed) << next.reason;
}

}  // namespace
