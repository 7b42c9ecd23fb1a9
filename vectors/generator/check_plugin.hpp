// Validates a backend plugin against stored golden vectors alone: `convcheck_vectors check`.
// Every case of the given sets runs through the runner's case pipeline (conformance/runner,
// check.hpp), isolated in a child like `convcheck run`: "bitwise" cases in exact mode, "bound"
// cases in bound mode under the accuracy contract (the data file's declarations, else the plugin's
// accumulation type), the stored output as the truth. Cases the plugin declines are counted as
// unsupported; expect_error cases do not apply to plugins. A crash, a hang or an expected failure
// counts as failed: the stored data judge alone.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace convcheck::vectors {

struct PluginCheck {
    int passed = 0, failed = 0, unsupported = 0, not_applicable = 0;
    int skipped = 0;  // cases the runner cannot run (transposed convolution), counted with their reason
};

// Prints one FAIL line per failing case (with its reproducer) and a summary line per set to `out`.
// Throws std::exception when the plugin cannot be loaded or a set cannot be read.
// `options` is passed to create (ABI 1.1 create options, "key=value,..."; empty for none).
PluginCheck check_plugin(const std::string& plugin_path, const std::string& options,
                         const std::vector<std::filesystem::path>& set_dirs, std::FILE* out);

}  // namespace convcheck::vectors
