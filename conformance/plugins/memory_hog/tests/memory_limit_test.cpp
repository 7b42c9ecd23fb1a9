// Memory is bounded and named (docs/runner.md, "Memory"): a plugin child that uses memory without
// bound ends as "out of memory" with the limit in its reason, quickly, and the runner goes on; a
// case whose own data cannot fit under the limit is refused before anything runs, naming the bytes
// it needs and the limit; the estimate of the runner's part holds against the measured peak.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "convcheck/runner/case_memory.hpp"
#include "convcheck/runner/memory_limit.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"
#include "convcheck/core/sanitizer_build.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

constexpr std::int64_t kMiB = 1 << 20;
const char* kSmallCase = "conv:n=1,c=2,o=3,in=6x5,k=3x3,pb=1x1,pe=1x1,bias=1";

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Case one_case(const std::string& descriptor, const std::string& mode = "bound") {
    return expand("memory", {SuiteEntry(descriptor)}, 1, mode).front();
}

TEST(MemorySize, ReadsBinaryUnits) {
    EXPECT_EQ(parse_memory_size("2G", "--memory-limit"), 2 * 1024 * kMiB);
    EXPECT_EQ(parse_memory_size("512M", "--memory-limit"), 512 * kMiB);
    EXPECT_EQ(parse_memory_size("1.5GiB", "--memory-limit"), 1536 * kMiB);
    EXPECT_EQ(parse_memory_size("64kb", "--memory-limit"), 64 * 1024);
    EXPECT_EQ(parse_memory_size("1073741824", "--memory-limit"), 1024 * kMiB);
    EXPECT_EQ(memory_text(11776 * kMiB), "11.5 GiB");
    EXPECT_EQ(memory_text(2048 * kMiB), "2 GiB");
    EXPECT_EQ(memory_text(300 * 1024), "300 KiB");
}

TEST(MemorySize, RefusesWhatIsNotAPositiveFiniteSizeNamingOptionValueAndRule) {
    for (const char* bad : {"", "0", "-1", "nan", "inf", "2X", "1e30", "0.1", "G", "1e400"}) {
        try {
            parse_memory_size(bad, "--memory-limit");
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("--memory-limit '" + std::string(bad) + "'"), std::string::npos) << what;
            EXPECT_TRUE(what.find("must") != std::string::npos || what.find("unit") != std::string::npos) << what;
        }
    }
}

TEST(MemoryLimit, TheDefaultIsHalfTheAvailableMemory) {
    const std::int64_t available = available_memory_bytes();
    ASSERT_GT(available, 0);
    // MemAvailable moves while other processes run: within a quarter of it
    EXPECT_LE(default_memory_limit(), available * 3 / 4 + 256 * kMiB);
    EXPECT_GE(default_memory_limit(), 256 * kMiB);
    EXPECT_NE(memory_enforcement().name(), "none") << "no mechanism to bound a child's memory on this machine";
}

// The child touches 8 MiB after 8 MiB, forever: the parent kills it at the limit, long before the
// time limit, and names the limit; the next case of the same run is checked as usual.
TEST(OutOfMemory, AChildThatGrowsWithoutBoundIsKilledAtTheLimitAndNamed) {
    auto hog = open_backend("memory_hog", {"hog=grow"}, 0, "none", 10.0);
    CheckSettings settings;
    settings.memory_limit_bytes = 256 * kMiB;
    settings.timeout_s = 120.0;
    const auto t0 = std::chrono::steady_clock::now();
    const CaseResult r = check_case(hog->backend, one_case(kSmallCase), settings);
    const double seconds = seconds_since(t0);
    EXPECT_EQ(r.status, Status::crashed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "out_of_memory") << r.reason;
    EXPECT_NE(r.reason.find("out of memory: the plugin's child exceeded the memory limit of 256 MiB in execute"),
              std::string::npos)
        << r.reason;
    EXPECT_LT(seconds, 30.0) << "the hog was stopped only after " << seconds << " s: " << r.reason;
    // the runner goes on: the same backend, a correct plugin, checks the next case
    auto correct = open_backend("memory_hog", {"hog=none"}, 0, "none", 10.0);
    const CaseResult next = check_case(correct->backend, one_case(kSmallCase), settings);
    EXPECT_EQ(next.status, Status::passed) << next.reason;
    EXPECT_STREQ(to_string(next.kind), "");
}

// One allocation of three times the limit: under RLIMIT_DATA it fails at once (std::bad_alloc
// escapes the plugin); without it (sanitizer builds) touching it is stopped by the parent.
TEST(OutOfMemory, OneBlockBeyondTheLimitIsOutOfMemory) {
    const std::int64_t limit = 256 * kMiB;
    auto hog = open_backend("memory_hog", {"hog=one_block", "bytes=" + std::to_string(3 * limit)}, 0, "none", 10.0);
    CheckSettings settings;
    settings.memory_limit_bytes = limit;
    settings.timeout_s = 120.0;
    const CaseResult r = check_case(hog->backend, one_case(kSmallCase), settings);
    EXPECT_STREQ(to_string(r.kind), "out_of_memory") << r.reason;
    EXPECT_NE(r.reason.find("256 MiB"), std::string::npos) << r.reason;
    if (memory_enforcement().rlimit_data) {
        EXPECT_NE(r.reason.find("an allocation failed in execute"), std::string::npos) << r.reason;
    } else {
        EXPECT_NE(r.reason.find("exceeded the memory limit"), std::string::npos) << r.reason;
    }
}

// A backend that catches the std::bad_alloc and returns an error is out of memory all the same.
TEST(OutOfMemory, AnAllocationFailureThePluginReportsAsAnErrorIsOutOfMemory) {
    const std::int64_t limit = 256 * kMiB;
    auto hog =
        open_backend("memory_hog", {"hog=one_block_error", "bytes=" + std::to_string(3 * limit)}, 0, "none", 10.0);
    CheckSettings settings;
    settings.memory_limit_bytes = limit;
    settings.timeout_s = 120.0;
    const CaseResult r = check_case(hog->backend, one_case(kSmallCase), settings);
    EXPECT_EQ(r.status, Status::crashed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "out_of_memory") << r.reason;
    if (memory_enforcement().rlimit_data) {
        EXPECT_NE(r.reason.find("an allocation failed in execute under the memory limit of 256 MiB; then: execute "
                                "(out_of_memory): memory_hog: std::bad_alloc"),
                  std::string::npos)
            << r.reason;
    }
}

// Every child has a budget, by default the default limit.
TEST(OutOfMemory, EveryExecutionHasABudget) {
    ConvExecution e;
    EXPECT_EQ(e.memory.limit_bytes, default_memory_limit());
    CcExecution cc;
    EXPECT_EQ(cc.memory.limit_bytes, default_memory_limit());
}

// `in=268435456`: 256 Mi outputs, whose data in double and reference result need ~12 GiB in the
// runner. Refused at once, before any data is made, naming the bytes and the limit.
TEST(OverMemoryLimit, ACaseTooBigForTheLimitIsRefusedBeforeItRuns) {
    auto session = open_backend("optimized", {}, 0, "none", 10.0);
    CheckSettings settings;
    settings.memory_limit_bytes = 2048 * kMiB;
    const auto t0 = std::chrono::steady_clock::now();
    const CaseResult r = check_case(session->backend, one_case("conv:c=1,o=1,in=268435456,k=1"), settings);
    EXPECT_LT(seconds_since(t0), 2.0);
    EXPECT_EQ(r.status, Status::unsupported) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "over_memory_limit") << r.reason;
    EXPECT_NE(r.reason.find("over the memory limit: the runner needs 12"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("more than the limit of 2 GiB (2147483648 bytes; --memory-limit)"), std::string::npos)
        << r.reason;
    // and bench refuses it the same way
    const ChildOutcome timed = time_case(session->backend, one_case("conv:c=1,o=1,in=268435456,k=1"), 0, 1, 10.0,
                                         2048 * kMiB);
    EXPECT_EQ(timed.kind, ChildOutcome::Kind::unsupported);
    EXPECT_NE(timed.reason.find("over the memory limit"), std::string::npos) << timed.reason;
}

std::int64_t status_kib(const char* key) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::string(key).size()));
    return -1;
}

// The growth of this process's resident memory while checking c, measured in a fresh child process
// (so no heap freed by an earlier case hides part of it): VmHWM after, less VmRSS before.
std::int64_t measured_peak(const Backend& backend, const Case& c, Status* status) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    std::fflush(nullptr);  // the child must not print what the parent has buffered
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const int clear = open("/proc/self/clear_refs", O_WRONLY);  // "5": the peak restarts from now
        const bool reset = clear >= 0 && write(clear, "5", 1) == 1;
        if (clear >= 0) close(clear);
        const std::int64_t before = status_kib("VmRSS:") * 1024;
        const CaseResult r = check_case(backend, c, CheckSettings{});
        const std::int64_t result[2] = {reset ? status_kib("VmHWM:") * 1024 - before : -1,
                                        static_cast<std::int64_t>(r.status)};
        [[maybe_unused]] const ssize_t n = write(fds[1], result, sizeof(result));
        _exit(0);
    }
    close(fds[1]);
    std::int64_t result[2] = {-1, 0};
    const bool read_all = read(fds[0], result, sizeof(result)) == static_cast<ssize_t>(sizeof(result));
    close(fds[0]);
    int wait_status = 0;
    waitpid(pid, &wait_status, 0);
    *status = static_cast<Status>(result[1]);
    return read_all ? result[0] : -1;
}

// The runner's measured peak for a case stays within case_memory's estimate, and the estimate is
// not wildly above it (a refusal must not turn away what fits).
TEST(CaseMemory, TheEstimateBoundsTheRunnersMeasuredPeak) {
#if defined(CONVCHECK_SANITIZER_BUILD)
    GTEST_SKIP() << "a sanitizer's shadow memory and redzones add to every allocation the estimate counts";
#endif
    auto session = open_backend("optimized", {}, 2, "none", 30.0);
    auto reference = open_backend("reference", {}, 2, "none", 60.0);  // the CC backward pass (ABI 1.4)
    const struct {
        const char* descriptor;
        const char* mode;
    } cases[] = {
        {"conv:c=8,o=8,in=384x384,k=3,pb=1,pe=1,bias=1", "bound"},
        {"conv:c=8,o=8,in=384x384,k=3,pb=1,pe=1,bias=1", "exact"},
        {"conv:c=8,o=8,in=256x256,k=3,pb=1,pe=1", "probe"},
        {"conv:c=16,o=4,in=96x96x32,k=1,dt=f16,data=nxc", "bound"},
        {"conv:c=16,o=16,in=384x384,k=3,pb=1,pe=1,dt=bf16,data=nxc", "sampled"},  // the buffers only
        {"cc:n=1,cin=4,cout=4,in=192x192,scale=2x2,support=3x3", "bound"},
        {"cc:n=1,cin=4,cout=4,in=128x128,scale=2x2,support=3x3", "probe"},
        {"cc:n=2,cin=4,cout=4,in=64x64,scale=2x2,support=3x3,bias=1,dir=bwd", "bound"},
    };
    for (const auto& x : cases) {
        const Case c = one_case(x.descriptor, x.mode);
        const CaseMemory estimate = case_memory(c);
        Status status = Status::failed;
        const Backend& backend = c.op == Op::cc_backward ? reference->backend : session->backend;
        const std::int64_t peak = measured_peak(backend, c, &status);
        ASSERT_GT(peak, 0) << "could not measure the peak (needs /proc/self/clear_refs)";
        EXPECT_EQ(status, Status::passed) << x.descriptor << " " << x.mode;
        EXPECT_LE(peak, estimate.total()) << x.descriptor << " " << x.mode << ": measured " << memory_text(peak)
                                          << ", estimated " << estimate.text();
        EXPECT_LE(estimate.total(), peak * 3 / 2 + 16 * kMiB)
            << x.descriptor << " " << x.mode << ": measured " << memory_text(peak) << ", estimated "
            << estimate.text();
        std::printf("%s %s: measured %s, estimated %s\n", x.descriptor, x.mode, memory_text(peak).c_str(),
                    memory_text(estimate.total()).c_str());
    }
}

}  // namespace
