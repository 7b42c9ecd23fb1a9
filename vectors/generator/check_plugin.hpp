// Validates a backend plugin against stored golden vectors alone: `convcheck_vectors check`.
// Loads the plugin (dlopen, convcheck_get_api, create, describe), and for every case of the given
// sets asks it (conv_query / cc_query) and runs it (conv_execute / cc_execute) on the stored
// inputs, then compares with the stored output: bit for bit for "bitwise" cases, under the accuracy
// contract (the plugin's declared accumulation type) for "bound" cases. Cases the plugin declines
// are counted as unsupported; expect_error cases do not apply to plugins.
// Unlike `convcheck run`, this runs the plugin in-process, without fault isolation: a plugin that
// crashes takes the check down with it.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace convcheck::vectors {

struct PluginCheck {
    int passed = 0, failed = 0, unsupported = 0, not_applicable = 0;
};

// Prints one FAIL line per failing case (with its reproducer) and a summary line per set to `out`.
// Throws std::exception when the plugin cannot be loaded or a set cannot be read.
// `options` is passed to create (ABI 1.1 create options, "key=value,..."; empty for none).
PluginCheck check_plugin(const std::string& plugin_path, const std::string& options,
                         const std::vector<std::filesystem::path>& set_dirs, std::FILE* out);

}  // namespace convcheck::vectors
