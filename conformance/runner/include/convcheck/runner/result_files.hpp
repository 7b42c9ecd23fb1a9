// Where results go: --json (JSON lines, a file or "-" for stdout) and --junit (JUnit XML). Both are
// opened (and so emptied) before anything runs: an unwritable path is refused up front (exit 2), and
// a run that is killed never leaves a previous run's passing report behind. Two outputs naming one
// file, or an output naming an input (merge), are refused: one would silently overwrite the other.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace convcheck::runner {

// True when the two paths name one file (also through links or "./"); "" and "-" name none.
bool same_file(const std::string& a, const std::string& b);

class ResultFiles {
public:
    // Throws std::invalid_argument naming the path when a file cannot be written or both are one file.
    ResultFiles(const std::string& json_path, const std::string& junit_path);
    // Writes one record as a JSON line, flushed (a record per case survives a crash of the runner).
    void emit(const nlohmann::json& record);
    bool json_to_stdout() const { return json_stdout_; }
    void write_junit(const std::string& xml);

private:
    std::unique_ptr<std::ofstream> json_, junit_;
    bool json_stdout_ = false;
    std::string junit_path_;
};

}  // namespace convcheck::runner
