// convcheck: the command-line front end. Each subcommand is one file in this folder.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/runner/retained_heap.hpp"

namespace convcheck::cli {
int& exit_code() {
    static int code = kExitOk;
    return code;
}
std::map<std::string, AddCommand>& command_registry() {
    static std::map<std::string, AddCommand> registry;
    return registry;
}
}  // namespace convcheck::cli

int main(int argc, char** argv) {
    using namespace convcheck::cli;
    restart_with_huge_page_malloc(argv);
    convcheck::runner::retain_freed_heap();  // before any thread: one heap that keeps freed memory
    CLI::App app{"convcheck: conformance testing for convolution operators"};
    app.require_subcommand(1);
    for (auto& [name, add] : command_registry()) add(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : kExitBadInput;
    } catch (const convcheck::ConvError& e) {
        std::fprintf(stderr, "convcheck: error: %s\n", e.what());
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "convcheck: error: %s\n", e.what());
        return kExitBadInput;
    }
    return exit_code();
}
