// The records of a results file (docs/results-schema.md) and the verdict of a run. `convcheck run`
// and `convcheck merge` share all of it (and terminal_summary.hpp, junit.hpp), so a merged file reads
// exactly like one from a single run. Text a plugin sent is made printable (printable.hpp) here.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/runner/case.hpp"
#include "convcheck/runner/coverage.hpp"

namespace convcheck::runner {

// Everything that defines a run (docs/results-schema.md, the "run" record). `convcheck merge` joins
// only shards that agree on every defining field (defining_run_fields()).
struct RunInfo {
    std::string backend, backend_version, backend_path, suite, shard = "0/1", started, host, accumulation_dtype;
    std::string cpu_model, cpu_flags;  // the host's CPU (host_cpu.hpp): "cpu" conditions of backends.json read it
    std::vector<std::string> backend_options;  // --backend-option items, in order
    std::string mode_filter;                   // --mode, or "" for every mode of the suite
    std::string suite_checksum;                // suite_checksum() of the suite's cases, before sharding
    std::int64_t cases_total = 0;              // the suite's cases, before sharding
    int threads = 0;
    int repeat = 1;                  // determinism mode (determinism.hpp): runs per thread count
    std::vector<int> threads_sweep;  // its thread counts; empty: none given
    std::string dump_failures;       // --dump-failures folder, or ""
    std::uint64_t seed = 1;
    double timeout_s = 0;
    std::int64_t memory_limit_bytes = 0;  // the limit on a plugin child's memory; 0 = none
    std::string memory_limit_mechanism;   // memory_limit.hpp: "rss_poll+rlimit_data", "rss_poll", ...
    int jobs = 1;                         // cases checked at once (jobs.hpp); not defining: the results are the same
    CoverageFloor min_coverage;
    bool leak_check = false;
    bool allow_unchecked = false;  // --allow-unchecked: unchecked cases do not fail the run
    std::string expectations_path, expectations_checksum;  // "" when the run used none
};

// The run record's fields that must agree between shards of one run. Not among them: where things
// were (backend_path, expectations_path: shards run on different machines; the checksums and the
// backend's name and version say what was there), when and on what host (started, host), the shard,
// memory_limit_bytes (its default follows each machine's available memory) and jobs.
const std::vector<std::string>& defining_run_fields();

nlohmann::json run_record(const RunInfo& info);
nlohmann::json case_record(const CaseResult& r, const std::string& backend);

// What the summary record, the terminal summary and JUnit say about a whole run.
struct RunSummary {
    std::string backend;
    std::map<std::string, std::int64_t> counts;  // one entry per status name (all eight, zeros included)
    Coverage coverage;
    CoverageFloor floor;
    std::string coverage_shortfall;             // why coverage fails the run, or ""
    // Whether unchecked cases (status unchecked: the contract could not check them) leave the exit
    // code 0: the run record's allow_unchecked (--allow-unchecked). JUnit then lists them as skipped.
    bool allow_unchecked = false;
    std::vector<nlohmann::json> not_run_cases;  // {"case_id", "mode", "descriptor"} of the cases never started
    std::string stopped;                        // why cases did not run ("interrupted by SIGINT", ...), or ""
    std::string error;                          // the plugin failed to load or negotiate (exit code 3), or ""
    std::int64_t skipped_inputs = 0;            // inputs of this shard not turned into cases ("skipped" records)
    double seconds = 0.0;
    int exit_code = 0;
};

// Counts, coverage and the verdict of the case records of a run of `total` cases. The exit code is 1
// when a case failed, crashed, hanged or xpassed, or the coverage is short, or a case is unchecked
// and allow_unchecked is false; else 0.
RunSummary summarize(const std::string& backend, const std::vector<nlohmann::json>& cases, std::int64_t total,
                     const CoverageFloor& floor, bool allow_unchecked = false);
nlohmann::json summary_record(const RunSummary& summary);

// The features of a case as the schema names them.
nlohmann::json features(const Case& c);

// Status counts of case records (all eight statuses present).
std::map<std::string, std::int64_t> count_statuses(const std::vector<nlohmann::json>& cases);

// sha256 of the cases' ids, modes, seeds and descriptors, in order: "sha256:<hex>". Two runs with the
// same checksum ran the same cases on the same data.
std::string suite_checksum(const std::vector<Case>& cases);

}  // namespace convcheck::runner
