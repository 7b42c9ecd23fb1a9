// The cases a command is asked for: a suite (or case file), or --case descriptors, narrowed by --case-name and
// --mode (run.cpp, and export/judge in offline.cpp, pick their cases alike).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/runner/suites.hpp"

namespace convcheck::cli {

struct CaseSelection {
    std::string suite;                         // "" : smoke, unless descriptors are given
    std::vector<std::string> case_descriptors;  // --case
    std::vector<std::string> case_names;        // --case-name: only the suite's cases of these names
    std::uint64_t seed = 1;
    std::string mode, fill;
    runner::SuiteReadOptions read;              // --benchdnn-driver
};

// The cases; *suite_name is the suite's name ("cli" for --case). Bad input: std::invalid_argument (exit 2).
runner::LoadedSuite select_cases(const CaseSelection& s, std::string* suite_name);

}  // namespace convcheck::cli
