// The built-in suites that are lists: conformance/data/suites/<name>.cases (case lists, formats/include/convcheck/formats/case_list.hpp),
// built into the runner (conformance/runner/part.cmake embeds each file's text), so that an installed
// `convcheck` needs no data folder and the lists stay plain data with their comments.
#include <optional>
#include <string>
#include <vector>

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

// A list's description: its file's first comment paragraph (the "# " lines before the first line that is
// not a comment or is "#" alone), joined with spaces.
std::string first_comment_paragraph(const std::string& text) {
    std::string description;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        if (line.rfind("# ", 0) != 0) break;
        description += (description.empty() ? "" : " ") + line.substr(2);
        at = end + 1;
    }
    return description;
}

}  // namespace

std::vector<SuiteInfo> builtin_case_lists() {
    std::vector<SuiteInfo> lists;
    for (std::size_t i = 0; i < kBuiltinCaseListCount; ++i) {
        const std::string name = kBuiltinCaseLists[i].name;
        lists.push_back({name, first_comment_paragraph(kBuiltinCaseLists[i].text),
                         "conformance/data/suites/" + name + ".cases"});
    }
    return lists;
}

std::optional<std::vector<SuiteEntry>> builtin_case_list_entries(const std::string& name) {
    for (std::size_t i = 0; i < kBuiltinCaseListCount; ++i)
        if (name == kBuiltinCaseLists[i].name)
            return case_list_entries("conformance/data/suites/" + name + ".cases", kBuiltinCaseLists[i].text);
    return std::nullopt;
}

}  // namespace convcheck::runner
