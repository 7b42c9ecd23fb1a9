// How many jobs a run gets and what memory each case may use (jobs.hpp): the default limit is shared
// between the jobs, an explicit limit is per case and N of them must fit in the memory available, an
// exec: or python: backend runs one case at a time.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "convcheck/runner/jobs.hpp"
#include "convcheck/runner/memory_limit.hpp"

using namespace convcheck::runner;

namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

std::string refusal(std::optional<int> jobs, std::optional<std::int64_t> limit, std::int64_t available, bool exec) {
    try {
        plan_jobs(jobs, 2, limit, available, exec);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(Jobs, TheDefaultIsTheCoresAndTheDefaultLimitIsShared) {
    const JobsPlan p = plan_jobs(std::nullopt, 4, std::nullopt, 20 * kGiB, false);
    EXPECT_EQ(p.jobs, 4);
    EXPECT_EQ(p.memory_limit_bytes, default_memory_limit() / 4);
    const JobsPlan one = plan_jobs(1, 4, std::nullopt, 20 * kGiB, false);
    EXPECT_EQ(one.memory_limit_bytes, default_memory_limit());  // --jobs 1: the serial run's limit
}

TEST(Jobs, AnExplicitLimitIsPerCaseAndTheDefaultJobsFitInTheMemoryAvailable) {
    const JobsPlan p = plan_jobs(std::nullopt, 16, 4 * kGiB, 10 * kGiB, false);
    EXPECT_EQ(p.jobs, 2);  // 3 cases of 4 GiB each would not fit in 10 GiB
    EXPECT_EQ(p.memory_limit_bytes, 4 * kGiB);
    EXPECT_EQ(plan_jobs(std::nullopt, 16, 40 * kGiB, 10 * kGiB, false).jobs, 1);  // one case: its own limit
    EXPECT_EQ(plan_jobs(2, 16, 5 * kGiB, 10 * kGiB, false).jobs, 2);
}

TEST(Jobs, JobsThatCannotFitAreRefusedNamingTheRule) {
    const std::string why = refusal(3, 4 * kGiB, 10 * kGiB, false);
    EXPECT_NE(why.find("--jobs 3: 3 cases at once may use 3 x --memory-limit 4 GiB = 12 GiB, more than the 10 GiB of "
                       "memory available: give at most --jobs 2 or a smaller --memory-limit"),
              std::string::npos)
        << why;
    EXPECT_EQ(refusal(1, 40 * kGiB, 10 * kGiB, false), "");  // one job: the limit is the user's to give
}

TEST(Jobs, AnExecBackendRunsOneCaseAtATime) {
    EXPECT_EQ(plan_jobs(std::nullopt, 8, std::nullopt, 20 * kGiB, true).jobs, 1);
    EXPECT_EQ(plan_jobs(std::nullopt, 8, std::nullopt, 20 * kGiB, true).memory_limit_bytes, default_memory_limit());
    EXPECT_NE(refusal(2, std::nullopt, 20 * kGiB, true).find("--jobs 2: an exec: or python: backend is one backend "
                                                             "process that serves one case at a time"),
              std::string::npos);
}

TEST(Jobs, TheCoresAvailableAreAtLeastOne) { EXPECT_GE(available_cores(), 1); }

}  // namespace
