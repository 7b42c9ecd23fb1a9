// `convcheck run --jobs N` (docs/runner.md, "Parallel jobs"): the cases of a run checked N at a time.
// Each job is a thread of the runner that takes the next case of the suite, makes its data, computes
// the reference and drives the case's isolated children (child_process.hpp) exactly as a serial run
// does; the results are reported in suite order, whatever order they finish in.
//
// How many jobs, and the memory limit each case gets (the limit is shared, never multiplied):
// - without --memory-limit, the default limit (half the memory available at start) is the whole run's:
//   each of the N jobs' cases gets 1/N of it;
// - with --memory-limit L, L is what one case may use, as in a serial run; N cases at once may use
//   N x L, which must fit in the memory available at start: a --jobs that does not fit is refused
//   (exit 2), and the default number of jobs is lowered until it fits.
// An exec: or python: backend is one backend process serving one case at a time: one job.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/runner/session.hpp"

namespace convcheck::runner {

// The cores this process may run on (sched_getaffinity), at least 1: the default number of jobs.
int available_cores();
// --jobs when not given: available_cores(), or 1 in a sanitizer build (jobs.cpp says why).
int default_jobs();

struct JobsPlan {
    int jobs = 1;
    std::int64_t memory_limit_bytes = 0;  // what one case may use, runner and plugin child together
};

// `jobs`: --jobs when given; `memory_limit`: --memory-limit when given; `available`: the memory
// available at start (available_memory_bytes()); `one_process`: an exec: or python: backend.
// Throws std::invalid_argument (exit 2) naming --jobs, the value and the rule.
JobsPlan plan_jobs(std::optional<int> jobs, int cores, std::optional<std::int64_t> memory_limit,
                   std::int64_t available, bool one_process);

// run_cases with settings.jobs > 1 (session.hpp): the same results, in the same order, reported
// through on_result in suite order from the calling thread. With fail_fast no case starts after a
// failure is seen, and the results end at the first failure in suite order (cases after it that had
// started are dropped: not run), so the results are those of a serial run.
std::vector<CaseResult> run_cases_in_jobs(const Backend& backend, const std::vector<Case>& cases,
                                          const RunSettings& settings,
                                          const std::function<void(const CaseResult&)>& on_result);

}  // namespace convcheck::runner
