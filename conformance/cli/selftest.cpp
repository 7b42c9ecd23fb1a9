// `convcheck selftest --suite S`: how strong is a suite? Runs every mutant of the bundled mutants
// plugin (one deliberate bug each, plus honest variants that must pass) against the suite's cases —
// a built-in suite, a JSON case file or a benchdnn shape file — and prints the kill matrix: for
// each mutant, whether the suite caught it, in which modes and how often, and which it missed
// (docs/selftest.md). Exit code 0 when every bug is caught (but those meant for another suite: strides,
// invalid, large, backward, transposed; and the forward bugs on the backward or transposed suite, which hold no
// forward case: listed as "elsewhere") and every honest variant passes, else 1.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "convcheck/runner/plugin_loader.hpp"
#include "convcheck/runner/selftest.hpp"
#include "benchdnn_driver_option.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;

struct SelftestOptions {
    std::string suite = "smoke";
    SuiteReadOptions read;  // --benchdnn-driver
    std::uint64_t seed = 1;
    std::string mode;
    std::vector<std::string> mutants;
    std::string json_path;
    double timeout_s = 10.0;
};

std::string caught_text(const MutantVerdict& v) {
    std::string text;
    for (const char* mode : {"exact", "bound", "probe", "determinism"}) {  // determinism: nondeterministic failures
        const auto f = v.failed.count(mode) ? v.failed.at(mode) : 0, c = v.crashed.count(mode) ? v.crashed.at(mode) : 0;
        if (f) text += std::string(text.empty() ? "" : ", ") + mode + " " + std::to_string(f);
        if (c) text += std::string(text.empty() ? "" : ", ") + "crash(" + mode + ") " + std::to_string(c);
    }
    return text;
}

// "killed", "killed*" (not in the check meant for it), "MISSED", "elsewhere" (left to the suite meant for
// it); "passes" / "FAILS" for correct code.
std::string verdict_text(const MutantVerdict& v, const std::string& suite) {
    if (v.kind != "bug") return v.killed() ? "FAILS" : "passes";
    if (!v.killed()) return v.meant_for_another_suite(suite) ? "elsewhere" : "MISSED";
    return v.killed_as_meant() ? "killed" : "killed*";
}

nlohmann::json verdict_json(const MutantVerdict& v, const std::string& suite) {
    return {{"name", v.name},          {"kind", v.kind},         {"class", v.bug_class},
            {"meant", v.meant},        {"what", v.what},         {"verdict", verdict_text(v, suite)},
            {"killed", v.killed()},    {"killed_as_meant", v.killed_as_meant()},
            {"cases", v.cases},        {"passed", v.passed},     {"unsupported", v.unsupported},
            {"unchecked", v.unchecked},
            {"failed", v.failed},      {"crashed", v.crashed},   {"first_case", v.first_case},
            {"first_reason", v.first_reason}, {"first_reproducer", v.first_reproducer}};
}

int selftest(const SelftestOptions& o) {
    const std::vector<Case> cases = load_cases(o.suite, o.seed, o.mode, o.read);
    SelftestSettings settings;
    settings.timeout_s = o.timeout_s;
    settings.only = o.mutants;
    const bool json_stdout = o.json_path == "-";
    std::FILE* out = json_stdout ? stderr : stdout;
    std::fprintf(out, "convcheck selftest: suite %s (%zu cases), seed %llu\n\n", o.suite.c_str(), cases.size(),
                 static_cast<unsigned long long>(o.seed));
    std::fprintf(out, "%-30s %-13s %-6s %-8s %s\n", "mutant", "class", "meant", "verdict", "cases that caught it");
    std::vector<MutantVerdict> verdicts;
    try {
        verdicts = run_selftest(cases, settings, [&](const MutantVerdict& v) {
            std::fprintf(out, "%-30s %-13s %-6s %-8s %s\n", v.name.c_str(), v.bug_class.c_str(), v.meant.c_str(),
                         verdict_text(v, o.suite).c_str(), caught_text(v).c_str());
            std::fflush(out);
        });
    } catch (const PluginError& e) {
        std::fprintf(stderr, "convcheck: error: %s\n", e.what());
        return kExitPluginFailed;
    }
    std::int64_t bugs = 0, killed = 0, as_meant = 0;
    std::vector<std::string> missed, elsewhere, false_alarms;
    nlohmann::json rows = nlohmann::json::array();
    for (const MutantVerdict& v : verdicts) {
        rows.push_back(verdict_json(v, o.suite));
        if (v.kind == "bug") {
            ++bugs;
            killed += v.killed();
            as_meant += v.killed_as_meant();
            if (!v.killed()) (v.meant_for_another_suite(o.suite) ? elsewhere : missed).push_back(v.name);
        } else if (v.killed()) {
            false_alarms.push_back(v.name + " (" + v.first_case + ": " + v.first_reason + ")");
        }
    }
    std::fprintf(out, "\n%lld of %lld bugs caught (%lld in the check meant for them; * marks the others)",
                 static_cast<long long>(killed), static_cast<long long>(bugs), static_cast<long long>(as_meant));
    if (!elsewhere.empty())
        std::fprintf(out, "; %zu left to the suite meant for them (its cases are not in this one)", elsewhere.size());
    std::fprintf(out, "\n");
    for (const auto& m : missed) std::fprintf(out, "  missed: %s\n", m.c_str());
    for (const MutantVerdict& v : verdicts)
        if (v.kind == "bug" && !v.killed() && v.meant_for_another_suite(o.suite))
            std::fprintf(out, "  elsewhere: %s (convcheck selftest --suite %s)\n", v.name.c_str(), v.suite_meant().c_str());
    for (const auto& f : false_alarms) std::fprintf(out, "  correct code FAILS: %s\n", f.c_str());
    const nlohmann::json record = {{"record", "selftest"}, {"suite", o.suite},     {"seed", o.seed},
                                   {"cases", cases.size()}, {"bugs", bugs},       {"killed", killed},
                                   {"killed_as_meant", as_meant}, {"missed", missed}, {"elsewhere", elsewhere},
                                   {"false_alarms", false_alarms},
                                   {"mutants", rows}};
    if (json_stdout) std::printf("%s\n", record.dump().c_str());
    else if (!o.json_path.empty()) {
        std::ofstream file(o.json_path);
        if (!file) throw std::invalid_argument("cannot write the JSON file '" + o.json_path + "'");
        file << record.dump() << '\n';
    }
    return missed.empty() && false_alarms.empty() ? kExitOk : kExitFailures;
}

void add_selftest_command(CLI::App& app) {
    static SelftestOptions o;
    auto* cmd = app.add_subcommand("selftest", "How strong is a suite: run the bundled mutants against it and print "
                                               "the kill matrix");
    cmd->add_option("--suite", o.suite, "built-in suite, a JSON case file or a benchdnn shape file (default: smoke)");
    add_benchdnn_driver_option(cmd, o.read);
    cmd->add_option("--seed", o.seed, "run seed (sets each case's data seed)");
    cmd->add_option("--mode", o.mode, "only this accuracy mode: exact, bound or probe")
        ->check(CLI::IsMember({"exact", "bound", "probe"}));
    cmd->add_option("--mutant", o.mutants, "only this mutant (repeatable; names in mutants.def)");
    cmd->add_option("--json", o.json_path, "write the kill matrix as one JSON object here ('-': stdout)");
    cmd->add_option("--timeout", o.timeout_s, "seconds before a case counts as hanged")->check(CLI::PositiveNumber);
    cmd->callback([] { exit_code() = selftest(o); });
}

const Registration registration{"selftest", add_selftest_command};

}  // namespace

}  // namespace convcheck::cli
