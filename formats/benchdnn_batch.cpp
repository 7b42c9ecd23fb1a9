// benchdnn's batch(): tokens, `#` comments, `\` continuations; locate_file(): the --batch search.
#include "convcheck/formats/benchdnn_batch.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

std::vector<BenchdnnToken> tokenize_benchdnn(std::string_view text) {
    std::vector<BenchdnnToken> tokens;
    bool continued = false;
    int line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        std::istringstream words{std::string(line)};
        std::string word;
        while (words >> word) {
            if (word.front() == '#') break;  // the rest of the line is a comment
            int line_of_token = line_number;
            if (continued && !tokens.empty()) {  // a lone '\' first in a file continues nothing
                line_of_token = tokens.back().line;
                word = tokens.back().text + word;
                tokens.pop_back();
            }
            if (word.back() == '\\') {
                continued = true;
                if (word.size() == 1) continue;
                word.pop_back();
            } else {
                continued = false;
            }
            tokens.push_back({word, line_of_token});
        }
    }
    return tokens;
}

std::string posix_dirname(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    const std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) return ".";
    std::string_view dir = path.substr(0, slash);
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    return dir.empty() ? "/" : std::string(dir);
}

namespace {
bool readable(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    std::ifstream in(path);
    return static_cast<bool>(in);
}
}  // namespace

constexpr std::size_t kMaxPaths = 30;  // benchdnn's max_paths

void BenchdnnLocator::remember_folder_of(const std::string& fname) {
    const std::string dir = posix_dirname(fname);
    bool dir_found = false;
    for (const std::string& p : search_paths_)
        if (p.starts_with(dir)) dir_found = true;  // benchdnn: search_paths[n].find(fdir) == 0
    if (!dir_found && search_paths_.size() < kMaxPaths) search_paths_.push_back(dir);
}

std::string BenchdnnLocator::locate(const std::string& fname) {
    remember_folder_of(fname);

    std::string tried = "'" + fname + "'";
    if (readable(fname)) return fname;
    for (const std::string& p : search_paths_) {
        const std::string full = p + "/" + fname;
        if (readable(full)) return full;
        tried += ", '" + full + "'";
    }
    if (!inputs_dir_.empty()) {
        const std::string full = inputs_dir_ + "/" + fname;
        if (readable(full)) {
            if (search_paths_.size() < kMaxPaths) search_paths_.push_back(inputs_dir_);
            return full;
        }
        tried += ", '" + full + "'";
    } else {
        tried += " (no benchdnn inputs folder" + (inputs_hint_.empty() ? std::string() : ": " + inputs_hint_) + ")";
    }
    throw ConvError("benchdnn --batch", fname, "no such file; tried " + tried);
}

std::string read_benchdnn_file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConvError("benchdnn file", path, "cannot be opened for reading");
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

}  // namespace convcheck
