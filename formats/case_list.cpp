#include "convcheck/formats/case_list.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace convcheck::formats {

namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& field, const std::string& value,
                         const std::string& rule) {
    throw CaseListError(where + ": " + field + " '" + value + "': " + rule);
}

std::vector<std::string> fields_of(const std::string& line) {
    std::vector<std::string> fields;
    std::istringstream in(line.substr(0, line.find('#')));
    for (std::string f; in >> f;) fields.push_back(f);
    return fields;
}

std::uint64_t seed_of(const std::string& where, const std::string& text) {
    const char* rule = "a seed is a decimal integer in [0, 2^64)";
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) refuse(where, "seed", text, rule);
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE) refuse(where, "seed", text, rule);
    return static_cast<std::uint64_t>(v);
}

}  // namespace

std::vector<CaseListEntry> read_case_list(const std::string& path, const std::string& text) {
    std::vector<CaseListEntry> entries;
    std::istringstream lines(text);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        const std::vector<std::string> fields = fields_of(line);
        if (fields.empty()) continue;
        CaseListEntry e;
        e.where = path + ":" + std::to_string(number);
        if (fields.size() < 3)
            refuse(e.where, "line", line, "a case is '<descriptor> <modes> <name> [fill=<fill>] [seed=<n>]' (" +
                                              std::to_string(fields.size()) + " field(s) given)");
        e.descriptor = fields[0], e.modes = fields[1], e.name = fields[2] == "-" ? "" : fields[2];
        if (e.modes.find('=') != std::string::npos || e.modes.find(',') != std::string::npos)
            refuse(e.where, "modes", e.modes, "the second field is the mode letters (b, e, p, s, r, i, l)");
        for (std::size_t i = 3; i < fields.size(); ++i) {
            const std::string& f = fields[i];
            const auto eq = f.find('=');
            const std::string key = eq == std::string::npos ? f : f.substr(0, eq);
            const std::string value = eq == std::string::npos ? "" : f.substr(eq + 1);
            if (key == "fill" && eq != std::string::npos && e.fill.empty() && !value.empty()) {
                e.fill = value;
            } else if (key == "seed" && eq != std::string::npos && !e.seed) {
                e.seed = seed_of(e.where, value);
            } else if (key == "fill" || key == "seed") {
                refuse(e.where, key, f, "given twice, or without a value");
            } else {
                refuse(e.where, "field", f, "after the name only fill=<fill> and seed=<n> are read");
            }
        }
        entries.push_back(std::move(e));
    }
    if (entries.empty()) throw CaseListError(path + ": no case in the list");
    return entries;
}

}  // namespace convcheck::formats
