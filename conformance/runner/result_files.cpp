#include "convcheck/runner/result_files.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace convcheck::runner {

bool same_file(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    if (a.empty() || b.empty() || a == "-" || b == "-") return false;
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
    return fs::weakly_canonical(fs::absolute(a), ec) == fs::weakly_canonical(fs::absolute(b), ec);
}

ResultFiles::ResultFiles(const std::string& json_path, const std::string& junit_path) : junit_path_(junit_path) {
    if (junit_path == "-") throw std::invalid_argument("--junit '-': JUnit XML goes to a file; only --json takes '-'");
    if (same_file(json_path, junit_path))
        throw std::invalid_argument("--json and --junit name the same file '" + json_path +
                                    "': give each its own path (one would overwrite the other)");
    json_stdout_ = json_path == "-";
    if (!json_path.empty() && !json_stdout_) {
        json_ = std::make_unique<std::ofstream>(json_path);
        if (!*json_) throw std::invalid_argument("cannot write the JSON results file '" + json_path + "'");
    }
    if (!junit_path.empty()) {
        junit_ = std::make_unique<std::ofstream>(junit_path);
        if (!*junit_) throw std::invalid_argument("cannot write the JUnit file '" + junit_path + "'");
    }
}

void ResultFiles::emit(const nlohmann::json& record) {
    // replace: a string that is not UTF-8 becomes U+FFFD instead of an exception (records are
    // printable_line() already; this is the last line of defence)
    const std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (json_) *json_ << line << '\n' << std::flush;
    if (json_stdout_) std::fprintf(stdout, "%s\n", line.c_str()), std::fflush(stdout);
}

void ResultFiles::write_junit(const std::string& xml) {
    if (!junit_) return;
    *junit_ << xml << std::flush;
    if (!*junit_) throw std::invalid_argument("cannot write the JUnit file '" + junit_path_ + "'");
}

}  // namespace convcheck::runner
