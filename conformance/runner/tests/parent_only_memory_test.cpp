// The runner's parent-only blocks (parent_only_memory.hpp), through the replacement operator new this program links
// as the convcheck command does: which allocations they serve, what a forked child sees of them, and that freed ones
// are kept for the next.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "convcheck/core/sanitizer_build.hpp"
#include "convcheck/runner/child_process.hpp"
#include "convcheck/runner/parent_only_memory.hpp"

using namespace convcheck::runner::parent_only_memory;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

#define SKIP_UNDER_A_SANITIZER()                                                            \
    do {                                                                                    \
        if (sanitizer_build) GTEST_SKIP() << "a sanitizer's operator new serves every block"; \
    } while (0)

#if defined(CONVCHECK_SANITIZER_BUILD)
constexpr bool sanitizer_build = true;
#else
constexpr bool sanitizer_build = false;
#endif

// Whether the page at p is mapped in this process (msync says ENOMEM where it is not).
bool mapped(const void* p) {
    const auto page = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{4095};
    return msync(reinterpret_cast<void*>(page), 4096, MS_ASYNC) == 0 || errno != ENOMEM;
}

// A block's address, kept past its free (g++'s -Wuse-after-free follows a plain cast).
[[gnu::noinline]] std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Runs `child` in a forked child (exit 0: it held); the parent's verdict is its exit status. With `as_a_case`, forks
// as child_process.cpp does: this thread's live blocks shown to the child, hidden after.
template <typename F>
int forked(F child, bool as_a_case) {
    if (as_a_case) show_to_child();
    const pid_t pid = fork();
    if (pid != 0 && as_a_case) hide_after_fork();
    if (pid == 0) _exit(child() ? 0 : 1);  // (the pool's fork handler has marked this process a child)
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
template <typename F>
int in_a_child(F child) {
    return forked(child, false);
}
template <typename F>
int in_a_case_child(F child) {
    return forked(child, true);
}

TEST(ParentOnlyMemory, OnlyLargeBlocksAllocatedWhileACaseIsCheckedComeFromIt) {
    SKIP_UNDER_A_SANITIZER();
    {
        std::vector<char> outside(4 * kMiB);
        EXPECT_FALSE(is_block(outside.data())) << "no scope open: malloc's";
    }
    const ParentOnlyScope scope;
    std::vector<char> large(kSmallestBlock), small(kSmallestBlock - 1);
    EXPECT_TRUE(is_block(large.data()));
    EXPECT_FALSE(is_block(small.data())) << "below 2 MiB: malloc's";
    const std::unique_ptr<char[]> array(new char[5 * kMiB]);
    EXPECT_TRUE(is_block(array.get()));
    // an alignment above a page's: malloc's (a block is only page-aligned by contract)
    char* aligned = new (std::align_val_t{8 * kMiB}) char[4 * kMiB];
    EXPECT_FALSE(is_block(aligned));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned) % (8 * kMiB), 0u);
    ::operator delete[](aligned, std::align_val_t{8 * kMiB});
}

TEST(ParentOnlyMemory, AForkDoesNotCopyABlock) {
    SKIP_UNDER_A_SANITIZER();
    const ParentOnlyScope scope;
    std::vector<char> block(4 * kMiB, 'x');
    ASSERT_TRUE(is_block(block.data()));
    ASSERT_TRUE(mapped(block.data()));
    const char* p = block.data();
    EXPECT_EQ(in_a_child([p] { return !mapped(p) && !mapped(p + 4 * kMiB - 1); }), 0)
        << "the child of a fork outside child_process.cpp's sees none of the blocks";
}

TEST(ParentOnlyMemory, ACasesChildSeesTheBlocksOfTheThreadThatForkedIt) {
    SKIP_UNDER_A_SANITIZER();
    const ParentOnlyScope scope;
    std::vector<char> data(3 * kMiB);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
    const char* p = data.data();
    const auto holds_the_data = [p] {
        for (std::size_t i = 0; i < 3 * kMiB; i += 4093)
            if (p[i] != static_cast<char>(i * 7)) return false;
        return true;
    };
    EXPECT_EQ(in_a_case_child(holds_the_data), 0);
    // hidden again after that fork
    EXPECT_EQ(in_a_child([p] { return !mapped(p); }), 0);
    // and shown at the next
    EXPECT_EQ(in_a_case_child(holds_the_data), 0);
}

TEST(ParentOnlyMemory, ACasesChildSeesNoneOfAnotherThreadsBlocks) {
    SKIP_UNDER_A_SANITIZER();
    std::vector<char>* other = nullptr;
    std::thread job([&] {
        const ParentOnlyScope scope;
        other = new std::vector<char>(4 * kMiB, 'o');
    });
    job.join();
    ASSERT_TRUE(is_block(other->data()));
    const ParentOnlyScope scope;
    std::vector<char> own(4 * kMiB, 's');
    const char *theirs = other->data(), *mine = own.data();
    EXPECT_EQ(in_a_case_child([theirs, mine] { return !mapped(theirs) && mapped(mine) && mine[17] == 's'; }), 0);
    const std::size_t kept = kept_bytes();
    delete other;  // freed by another thread than its own: kept all the same
    EXPECT_EQ(kept_bytes(), kept + 4 * kMiB);
}

// The runner's own fork (child_process.cpp) shows the case's blocks: a plugin child reads its case's arrays.
TEST(ParentOnlyMemory, ThePluginChildReadsTheBlocksOfItsCase) {
    SKIP_UNDER_A_SANITIZER();
    const ParentOnlyScope scope;
    const std::vector<float> scales(std::size_t{1} << 20, 0.5f);  // 4 MiB: a block
    ASSERT_TRUE(is_block(scales.data()));
    convcheck::runner::child::SharedReport shared;
    const auto w = convcheck::runner::child::run(*shared.report, 60.0, {}, [&](convcheck::runner::child::Report& r) {
        float sum = 0;
        for (std::size_t i = 0; i < scales.size(); i += 1024) sum += scales[i];
        r.result = sum == 512.0f ? convcheck::runner::child::kOk : convcheck::runner::child::kException;
    });
    ASSERT_TRUE(WIFEXITED(w.status)) << "signal " << WTERMSIG(w.status);
    EXPECT_EQ(shared.report->result, convcheck::runner::child::kOk);
}

TEST(ParentOnlyMemory, ABlockFreedWhileShownIsHiddenAgain) {
    SKIP_UNDER_A_SANITIZER();
    const ParentOnlyScope scope;
    auto* data = new std::vector<char>(4 * kMiB, 'd');
    const std::uintptr_t at = address(data->data());
    show_to_child();
    delete data;  // (another job's thread may free a block between a show and its fork)
    EXPECT_EQ(in_a_child([at] { return !mapped(reinterpret_cast<const void*>(at)); }), 0);
    hide_after_fork();
}

TEST(ParentOnlyMemory, AFreedBlockIsKeptForTheNextOfItsSize) {
    SKIP_UNDER_A_SANITIZER();
    const ParentOnlyScope scope;
    const std::size_t kept_before = kept_bytes();
    std::uintptr_t first = 0;
    {
        std::vector<double> sums(28 * kMiB / sizeof(double));  // a class no other test takes: 28 MiB
        first = address(sums.data());
    }
    EXPECT_EQ(kept_bytes(), kept_before + 28 * kMiB);
    // kept, it is hidden from forks as well
    EXPECT_EQ(in_a_case_child([first] { return !mapped(reinterpret_cast<const void*>(first)); }), 0);
    std::vector<char> next(25 * kMiB);  // the same class
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(next.data()), first);
    EXPECT_EQ(kept_bytes(), kept_before);
}

TEST(ParentOnlyMemory, AChildAllocatesFromMallocAndFreesNothingOfTheParents) {
    SKIP_UNDER_A_SANITIZER();
    const ParentOnlyScope scope;
    char* parents = new char[4 * kMiB];
    EXPECT_EQ(in_a_child([parents] {
                  std::vector<char> own(8 * kMiB, 'c');  // a scope is open on this thread: the child's is malloc's
                  const bool own_is_mallocs = !is_block(own.data());
                  delete[] parents;  // hidden in the child: nothing to free, and no fault
                  return own_is_mallocs;
              }),
              0);
    EXPECT_TRUE(is_block(parents));
    delete[] parents;
}

// The replacement keeps operator new's contract: no memory calls the new-handler (the plugin child's notes it,
// child_process.cpp), then std::bad_alloc; the nothrow form gives nullptr.
TEST(ParentOnlyMemory, OperatorNewCallsTheNewHandlerWhenMemoryRunsOut) {
    SKIP_UNDER_A_SANITIZER();  // (a sanitizer's shadow memory does not fit under RLIMIT_AS)
    EXPECT_EQ(in_a_child([] {
                  rlimit limit{std::size_t{512} * kMiB, std::size_t{512} * kMiB};
                  setrlimit(RLIMIT_AS, &limit);
                  static int calls = 0;
                  std::set_new_handler([] {
                      ++calls;
                      std::set_new_handler(nullptr);
                  });
                  bool threw = false;
                  try {
                      volatile char* p = new char[std::size_t{1} << 30];
                      p[0] = 1;
                  } catch (const std::bad_alloc&) {
                      threw = true;
                  }
                  char* none = new (std::nothrow) char[std::size_t{1} << 30];
                  return threw && calls == 1 && none == nullptr;
              }),
              0);
}

}  // namespace
