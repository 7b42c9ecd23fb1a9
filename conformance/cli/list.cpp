// `convcheck list`: the built-in suites with their case counts; `convcheck list --suite <name|file>`:
// the cases of one suite (id, mode, descriptor, shape name), as `run` would number them.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "suites.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;

struct ListOptions {
    std::string suite;
    std::string mode;
    std::uint64_t seed = 1;
};

void list(const ListOptions& o) {
    if (o.suite.empty()) {
        std::printf("%-10s %7s  %s\n", "suite", "cases", "what");
        for (const SuiteInfo& s : builtin_suites()) {
            std::string count;
            try {
                count = std::to_string(load_cases(s.name, o.seed, o.mode).size());
            } catch (const std::exception&) {
                count = "n/a";  // a suite whose source is not in this build
            }
            std::printf("%-10s %7s  %s\n", s.name.c_str(), count.c_str(), s.description.c_str());
        }
        std::printf("\nAlso accepted by --suite: a JSON case file (.json, .jsonl) or a benchdnn shape file.\n");
        return;
    }
    for (const Case& c : load_cases(o.suite, o.seed, o.mode))
        std::printf("%-14s %-6s %s%s%s%s\n", c.id.c_str(), accuracy::to_string(c.mode), c.descriptor().c_str(),
                    c.fill == accuracy::Fill::standard ? "" : (std::string("  fill=") + accuracy::to_string(c.fill)).c_str(),
                    c.name.empty() ? "" : "  # ", c.name.c_str());
}

void add_list_command(CLI::App& app) {
    static ListOptions o;
    auto* cmd = app.add_subcommand("list", "List the built-in suites, or the cases of one suite or case file");
    cmd->add_option("--suite", o.suite, "a built-in suite name, a JSON case file or a benchdnn shape file");
    cmd->add_option("--mode", o.mode, "only this mode: exact, bound or probe")
        ->check(CLI::IsMember({"exact", "bound", "probe"}));
    cmd->add_option("--seed", o.seed, "the run seed (it sets each case's data seed)");
    cmd->callback([] { list(o); });
}

const Registration registration{"list", add_list_command};

}  // namespace

}  // namespace convcheck::cli
