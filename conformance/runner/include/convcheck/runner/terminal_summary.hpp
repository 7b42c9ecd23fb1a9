// What a run prints at its end: a table of status counts by rank and dtype, what ran and what was
// declined (and why), the failing and the unchecked cases with their reproducers, and one closing line that --quiet
// keeps. Shared by `convcheck run` and `convcheck merge`. Every count says what it counts.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/runner/results.hpp"

namespace convcheck::runner {

// The table, coverage, decline reasons (at most `max_reasons`), failures and unchecked cases (at most
// `max_failures_listed` of each), then verdict_line().
void print_summary(std::FILE* out, const nlohmann::json& run, const std::vector<nlohmann::json>& cases,
                   const RunSummary& summary, int max_failures_listed = 20, int max_reasons = 5);

// One line: backend, suite, shard; cases executed / declined / not run of the total, coverage and its
// floor, the pass rate of the executed cases, the unchecked cases, the failures, why it stopped early,
// the exit code.
std::string verdict_line(const nlohmann::json& run, const RunSummary& summary);

}  // namespace convcheck::runner
