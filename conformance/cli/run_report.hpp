// What `run` and `judge` report, alike: the host in the run record, each case's record and its lines on
// stderr, and the end of the run (the summary record, JUnit, the terminal summary and the exit code).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/runner/result_files.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/skipped_inputs.hpp"

namespace convcheck::cli {

// The run record's host fields: started (UTC), host, cpu_model, cpu_flags.
void describe_host(runner::RunInfo& info);

// A case's record: kept in `records`, written to the results, and a failure's reason and reproducer on stderr
// (unless quiet, or stderr is a terminal, where the progress line shows it).
void report_case(const runner::CaseResult& r, const std::string& backend, runner::ResultFiles& files,
                 std::vector<nlohmann::json>& records, bool quiet);

struct RunEnd {
    std::string backend;                              // the backend's name
    const std::vector<runner::Case>& cases;           // the cases asked for: those without a record did not run
    const std::vector<runner::SkippedInput>& skipped;  // the inputs not turned into cases
    std::int64_t skipped_here = 0;                    // how many of them this shard reports
    runner::CoverageFloor min_coverage;
    bool allow_unchecked = false, quiet = false;
    int signal = 0;                                   // the signal that interrupted the run, or 0
    double seconds = 0;
};

// Writes the summary record and JUnit, prints the terminal summary (or the one-line verdict when quiet), and
// returns the run's exit code.
int finish_run(runner::ResultFiles& files, std::FILE* terminal, const nlohmann::json& run_json,
               const std::vector<nlohmann::json>& records, const RunEnd& end);

}  // namespace convcheck::cli
