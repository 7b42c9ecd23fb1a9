// Each `convcheck` subcommand lives in its own file and adds itself to the app here.
// A command that fails on bad input throws CLI::Error-derived exceptions or returns exit code 2.
#pragma once

#include <CLI/CLI.hpp>

namespace convcheck::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitPluginFailed = 3;

// Set by a command's callback; main() returns it.
int& exit_code();

void add_demo_command(CLI::App& app);

}  // namespace convcheck::cli
