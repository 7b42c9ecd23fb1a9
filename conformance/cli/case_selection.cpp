// The cases a command is asked for (case_selection.hpp): run, export and judge pick them alike.
#include "case_selection.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace convcheck::cli {

using namespace convcheck::runner;

namespace {

// The suite's cases named in --case-name (each name must match at least one case; ids and seeds as in the
// whole suite, so a case runs on the same data as it did there).
LoadedSuite named_cases(LoadedSuite loaded, const std::vector<std::string>& names, const std::string& suite) {
    const auto named = [&](const Case& c) { return std::find(names.begin(), names.end(), c.name) != names.end(); };
    std::vector<Case> kept;
    std::copy_if(loaded.cases.begin(), loaded.cases.end(), std::back_inserter(kept), named);
    for (const std::string& name : names)
        if (std::none_of(kept.begin(), kept.end(), [&](const Case& c) { return c.name == name; })) {
            std::string some;
            for (std::size_t i = 0; i < loaded.cases.size() && i < 3; ++i) some += (i ? ", " : "") + loaded.cases[i].name;
            throw std::invalid_argument("--case-name '" + name + "': suite " + suite + " has no case of that name (" +
                                        std::to_string(loaded.cases.size()) + " cases" +
                                        (some.empty() ? "" : ", e.g. " + some) + "; `convcheck list --suite " + suite +
                                        "` names them)");
        }
    loaded.cases = std::move(kept);
    return loaded;
}

}  // namespace

LoadedSuite select_cases(const CaseSelection& o, std::string* suite_name) {
    if (o.case_descriptors.empty()) {
        *suite_name = o.suite.empty() ? "smoke" : o.suite;
        LoadedSuite loaded = load_suite(*suite_name, o.seed, o.mode, o.read);
        return o.case_names.empty() ? loaded : named_cases(std::move(loaded), o.case_names, *suite_name);
    }
    if (!o.suite.empty()) throw std::invalid_argument("give either --suite or --case, not both");
    if (!o.case_names.empty()) throw std::invalid_argument("--case-name picks cases of a --suite, not of --case");
    refuse_unused_benchdnn_driver(o.read, "--case", "a descriptor");
    *suite_name = "cli";
    std::vector<SuiteEntry> entries;
    for (const auto& text : o.case_descriptors) {
        entries.emplace_back(text);
        entries.back().seed = o.seed;
        if (!o.fill.empty()) accuracy::parse_fill(o.fill, &entries.back().fill);
    }
    const bool special = !o.fill.empty() && o.fill != "standard";  // special fills are exact-mode data
    return {expand("cli", entries, o.seed, !o.mode.empty() ? o.mode : special ? "exact" : "bound"), {}};
}

}  // namespace convcheck::cli
