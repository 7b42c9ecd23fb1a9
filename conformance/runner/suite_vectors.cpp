// A golden-vector set as a suite (docs/vectors.md): a plugin validated against stored data alone.
#include <stdexcept>

#include "convcheck/formats/manifest.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> vector_suite_entries(const std::string& dir, std::vector<SkippedInput>* skipped) {
    const vectors::VectorSet set = vectors::load_vector_set(dir);
    std::vector<SuiteEntry> entries;
    for (const vectors::VectorCase& c : set.cases) {
        if (c.expect_error_attribute) continue;  // a descriptor that must be refused: nothing to execute
        SuiteEntry e(c.descriptor, c.comparison == "bitwise" ? "e" : "b", set.name + "/" + c.name);
        e.seed = c.seed;
        e.vector_dir = dir;
        e.vector_case = c.name;
        entries.push_back(std::move(e));
    }
    if (entries.empty() && skipped->empty()) throw std::invalid_argument("vector set " + dir + " has no case to run");
    return entries;
}

}  // namespace convcheck::runner
