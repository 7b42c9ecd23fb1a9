// Each `convcheck` subcommand lives in its own file in this folder and registers itself with
//   static const Registration registration{"name", add_my_command};
// main() adds every registered command to the app, in name order. No central list to edit.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>

namespace convcheck::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitPluginFailed = 3;

// Set by a command's callback; main() returns it. Throwing ConvError (or any std::exception)
// from a callback prints "convcheck: error: ..." and exits with kExitBadInput.
int& exit_code();

// Starts convcheck once more with glibc's malloc putting large blocks in transparent huge pages, unless
// GLIBC_TUNABLES already names glibc.malloc.hugetlb (huge_pages.cpp); returns only when it does not restart.
void restart_with_huge_page_malloc(char** argv);

using AddCommand = std::function<void(CLI::App&)>;
std::map<std::string, AddCommand>& command_registry();

struct Registration {
    Registration(const std::string& name, AddCommand add) { command_registry()[name] = std::move(add); }
};

}  // namespace convcheck::cli
