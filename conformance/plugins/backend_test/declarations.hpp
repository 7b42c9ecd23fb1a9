// The per-backend declarations this test honours, read from the runner's data file
// (conformance/data/backends.json; schema in conformance/runner/expectations.hpp and docs/runner.md):
//   {"schema": 1, "backends": {"<name>": {"accumulation": "f32" | {"<dtype>": "<dtype>"},
//       "expected_failures": [{"match": {"dt": "f16", "mode": "bound", ...}, "reason": "..."}]}}}
// This test evaluates the match keys that describe a case here: "mode", "descriptor_regex" and the
// canonical descriptor's keys. An entry that also names "suite", "case_id" or "op" is about the
// runner's suites only and is ignored here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accuracy.hpp"
#include "descriptor.hpp"

namespace convcheck::backend_test {

struct Declarations {
    std::map<std::string, std::string> accumulation;  // output dtype or "*" -> accumulation dtype
    struct ExpectedFailure {
        std::map<std::string, std::string> match;
        std::string reason;
    };
    std::vector<ExpectedFailure> expected_failures;

    // The declared accumulation type for output dtype `dtype`, if any.
    std::optional<DataType> accumulation_for(DataType dtype) const;
    // The reason of the expected failure covering (d, mode), or nullopt.
    std::optional<std::string> expected_failure(const ConvDescriptor& d, accuracy::Mode mode) const;
};

// The declarations of `backend` in the file at `path` (none when the file or the backend is absent).
// Throws std::runtime_error naming the file and the entry when it is malformed.
Declarations load_declarations(const std::string& path, const std::string& backend);

}  // namespace convcheck::backend_test
