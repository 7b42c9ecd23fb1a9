// benchdnn batch files as benchdnn's `batch()` and `locate_file()` read them (tests/benchdnn/common.cpp,
// oneDNN v3.7.1): the file's tokens, and where a `--batch=FILE` is looked for.
//
// Tokens: whitespace separates them; a token that starts with `#` comments out the rest of its line
// (a `#` inside a token is kept); a token ending in `\` continues into the next token.
//
// Where `--batch=FILE` is found (locate_file): FILE as given (relative to the working directory),
// then FILE under each search path in the order they were added, then `<inputs>/FILE`. Before the
// search, the directory part of FILE as written (dirname: "." for a bare name) joins the search paths
// unless a path already there starts with it; at most 30 paths, as in benchdnn. benchdnn's inputs
// folder is `<its executable's folder>/inputs/<driver>`; convcheck takes it from BenchdnnLocator::inputs_dir.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace convcheck {

struct BenchdnnToken {
    std::string text;
    int line = 0;  // 1-based line where the token starts
};

// Splits a batch file's text into tokens, as benchdnn's batch() does.
std::vector<BenchdnnToken> tokenize_benchdnn(std::string_view text);

// benchdnn's locate_file, with its search paths (they accumulate over one run, as benchdnn's static
// list does).
class BenchdnnLocator {
public:
    // `inputs_hint` ends the error when no inputs folder is given (what to set, e.g. the environment variable).
    explicit BenchdnnLocator(std::string inputs_dir = {}, std::string inputs_hint = {})
        : inputs_dir_(std::move(inputs_dir)), inputs_hint_(std::move(inputs_hint)) {}
    // The path to open for `fname`; throws ConvError ("benchdnn --batch") naming every place tried.
    std::string locate(const std::string& fname);
    // The first step of locate: the folder of `fname` as written joins the search paths.
    void remember_folder_of(const std::string& fname);
    const std::vector<std::string>& search_paths() const { return search_paths_; }

private:
    std::string inputs_dir_, inputs_hint_;
    std::vector<std::string> search_paths_;
};

// POSIX dirname(3): "a/b" -> "a", "b" -> ".", "/b" -> "/", "a/b/" -> "a".
std::string posix_dirname(std::string_view path);

// Reads a whole file; throws ConvError naming the path when it cannot be read.
std::string read_benchdnn_file_text(const std::string& path);

}  // namespace convcheck
