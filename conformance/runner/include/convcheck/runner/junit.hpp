// JUnit XML for CI systems (Jenkins, GitLab, GitHub checks): one testsuite (the run), one testcase
// per case. failed and xpass are failures, crashed and hanged errors, unsupported and xfail skipped;
// unchecked is a failure (type "unchecked"), or skipped when the run allows it (--allow-unchecked);
// a case that never ran (--fail-fast, an interrupted run) is skipped with a message saying so; a
// coverage shortfall is one more failed testcase; a plugin that failed to load or negotiate is one
// failed testcase naming the reason. Every text goes through printable_line() and XML escaping, so the
// file is well-formed XML 1.0 whatever bytes a plugin sent.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/runner/results.hpp"

namespace convcheck::runner {

std::string junit_xml(const nlohmann::json& run, const std::vector<nlohmann::json>& cases, const RunSummary& summary);

}  // namespace convcheck::runner
