// The built-in suites that are lists: conformance/data/suites/<name>.cases (case lists, formats/include/convcheck/formats/case_list.hpp),
// built into the runner (conformance/runner/part.cmake embeds each file's text), so that an installed
// `convcheck` needs no data folder and the lists stay plain data with their comments.
#include <stdexcept>

#include "convcheck/formats/case_list.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

struct BuiltinCaseList {
    const char* name;  // the file's stem: "smoke" for smoke.cases
    const char* text;
};
// Generated from conformance/data/suites/*.cases (part.cmake).
extern const BuiltinCaseList kBuiltinCaseLists[];
extern const std::size_t kBuiltinCaseListCount;

namespace {

std::vector<SuiteEntry> builtin_list(const std::string& name) {
    for (std::size_t i = 0; i < kBuiltinCaseListCount; ++i)
        if (name == kBuiltinCaseLists[i].name)
            return case_list_entries("conformance/data/suites/" + name + ".cases", kBuiltinCaseLists[i].text);
    throw std::logic_error("no built-in case list conformance/data/suites/" + name + ".cases");
}

}  // namespace

std::vector<SuiteEntry> smoke_suite() { return builtin_list("smoke"); }
std::vector<SuiteEntry> edge_suite() { return builtin_list("edge"); }
std::vector<SuiteEntry> invalid_suite() { return builtin_list("invalid"); }
std::vector<SuiteEntry> invalid_transposed_suite() { return builtin_list("invalid_transposed"); }
std::vector<SuiteEntry> accuracy_suite() { return builtin_list("accuracy"); }
std::vector<SuiteEntry> large_suite() { return builtin_list("large"); }
std::vector<SuiteEntry> backward_suite() { return builtin_list("backward"); }
std::vector<SuiteEntry> transposed_suite() { return builtin_list("transposed"); }

}  // namespace convcheck::runner
