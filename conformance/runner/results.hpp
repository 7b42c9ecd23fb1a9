// The records of a results file (docs/results-schema.md) and what is built from them: the summary
// table and JUnit XML. `convcheck run` and `convcheck merge` share all of it, so a merged file reads
// exactly like one from a single run.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "case.hpp"

namespace convcheck::runner {

struct RunInfo {
    std::string backend, backend_version, backend_path, suite, shard = "0/1", started, host, accumulation_dtype;
    int threads = 0;
    std::uint64_t seed = 1;
    std::int64_t memory_limit_bytes = 0;
    std::string memory_limit_mechanism;  // memory_limit.hpp: "rss_poll+rlimit_data", "rss_poll", ...
};

nlohmann::json run_record(const RunInfo& info);
nlohmann::json case_record(const CaseResult& r, const std::string& backend);
// counts: one entry per status name (all seven, zeros included).
nlohmann::json summary_record(const std::string& backend, const std::map<std::string, std::int64_t>& counts,
                              double seconds, int exit_code);

// The features of a case as the schema names them.
nlohmann::json features(const Case& c);

// Status counts of case records (all seven statuses present).
std::map<std::string, std::int64_t> count_statuses(const std::vector<nlohmann::json>& cases);
// 0 when no case failed, crashed, hanged or xpassed; else 1.
int exit_code_for(const std::map<std::string, std::int64_t>& counts);

// A plain-text table: status counts, counts by rank and dtype, and the failing cases with their
// reproducers (at most `max_failures_listed`).
void print_summary(std::FILE* out, const nlohmann::json& run, const std::vector<nlohmann::json>& cases,
                   double seconds, int max_failures_listed = 20);

// JUnit XML: one testsuite (the run), one testcase per case record.
std::string junit_xml(const nlohmann::json& run, const std::vector<nlohmann::json>& cases, double seconds);

}  // namespace convcheck::runner
