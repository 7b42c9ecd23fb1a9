// Inputs that were not turned into cases, each with its reason: a benchdnn test case that convcheck
// cannot run exactly (a backward pass, int8, post-ops, ...). They are never run as something else;
// they are listed, grouped by reason, and written to the results as "skipped" records
// (docs/results-schema.md); `--strict-benchdnn` turns any of them into exit code 2.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace convcheck::runner {

struct SkippedInput {
    std::string suite;   // the suite the input belongs to (the cases' "suite")
    std::string source;  // "<file>:<line>"
    std::string input;   // the input as written (for benchdnn: the options in effect and the problem)
    std::string reason;
};

// {"record":"skipped","suite":...,"source":...,"input":...,"reason":...}
nlohmann::json skipped_record(const SkippedInput& s);

// The reasons with their counts, most frequent first (ties: in order of first appearance).
std::vector<std::pair<std::string, std::int64_t>> skip_reasons(const std::vector<SkippedInput>& skipped);

// "skipped N inputs ..." and one line per reason with its count and a first example; nothing when empty.
void print_skipped_inputs(std::FILE* out, const std::vector<SkippedInput>& skipped);

// The message of --strict-benchdnn's refusal (exit 2): the count and the most frequent reason.
std::string strict_benchdnn_message(const std::vector<SkippedInput>& skipped);

}  // namespace convcheck::runner
