// `convcheck list`: the built-in suites with their case counts; `convcheck list --suite <name|file>`:
// the cases of one suite (id, mode, descriptor, shape name), as `run` would number them, then the
// suite's design: the distribution of each attribute's values and the coverage of value pairs
// (suite_design.hpp). `--json` prints the design as one JSON object instead.
#include <algorithm>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "numeric_options.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/suite_design.hpp"
#include "benchdnn_driver_option.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;

struct ListOptions {
    std::string suite;
    std::string mode;
    std::uint64_t seed = 1;
    bool strict_benchdnn = false;
    SuiteReadOptions read;  // --benchdnn-driver
    bool json = false;
};

// The design of a suite's discrete geometries (each descriptor once, whatever its modes; a backward
// pass's descriptor counts apart from its forward one; the invalid suite's descriptors have no design:
// each breaks a rule). Which cases have such a geometry: their traits entry's design_geometry.
nlohmann::json design_json(const std::string& suite, const std::vector<Case>& cases) {
    std::vector<ConvDescriptor> descriptors;
    for (const Case& c : cases) {
        const OperationTraits& op = operation(c.op);
        const ConvDescriptor* d = op.design_geometry ? op.design_geometry(c) : nullptr;
        if (d && c.mode != accuracy::Mode::invalid && (descriptors.empty() || !(descriptors.back() == *d)))
            descriptors.push_back(*d);
    }
    const auto counts = distribution(descriptors);
    const PairCoverage pairs = pair_coverage(descriptors);
    nlohmann::json j = {{"record", "design"}, {"suite", suite}, {"cases", cases.size()},
                        {"conv_descriptors", descriptors.size()}};
    for (int f = 0; f < kFactors; ++f)
        for (std::size_t v = 0; v < counts[f].size(); ++v)
            j["distribution"][design_factors()[f].name][design_factors()[f].values[v]] = counts[f][v];
    // The passes' shares (a backward descriptor is one of the design too, its pass apart).
    for (Pass pass : {Pass::forward, Pass::backward_data, Pass::backward_weights})
        j["passes"][std::string(to_string(pass))] =
            std::count_if(descriptors.begin(), descriptors.end(), [&](const ConvDescriptor& d) { return d.pass == pass; });
    j["pair_coverage"] = {{"covered", pairs.covered}, {"total", pairs.total},
                          {"fraction", pairs.total ? double(pairs.covered) / double(pairs.total) : 0.0},
                          {"missing", pairs.missing}};
    j["pair_coverage"]["by_factors"] = nlohmann::json::array();
    for (const auto& of : pairs.by_factors)
        j["pair_coverage"]["by_factors"].push_back({{"factors", {design_factors()[of.first].name, design_factors()[of.second].name}},
                                                    {"covered", of.covered},
                                                    {"total", of.total}});
    return j;
}

void print_design(const nlohmann::json& j) {
    const auto n = j["conv_descriptors"].get<std::int64_t>();
    if (n == 0) return;
    std::printf("\n# design of the %lld discrete descriptors (docs/selftest.md, \"Designed suites\")\n",
                static_cast<long long>(n));
    for (const auto& f : design_factors()) {
        std::string line;
        for (const char* v : f.values) {
            const auto count = j["distribution"][f.name][v].get<std::int64_t>();
            char item[96];
            std::snprintf(item, sizeof(item), "  %s %lld (%.0f%%)", v, static_cast<long long>(count), 100.0 * count / n);
            line += item;
        }
        std::printf("#   %-9s%s\n", f.name, line.c_str());
    }
    std::string passes;
    for (const auto& [pass, count] : j["passes"].items()) {
        char item[96];
        std::snprintf(item, sizeof(item), "  %s %lld (%.0f%%)", pass.c_str(), count.get<long long>(),
                      100.0 * count.get<double>() / double(n));
        passes += item;
    }
    std::printf("#   %-9s%s\n", "pass", passes.c_str());
    const auto& p = j["pair_coverage"];
    std::printf("# pair coverage: %lld of %lld feasible value pairs (%.1f%%)\n", p["covered"].get<long long>(),
                p["total"].get<long long>(), 100.0 * p["fraction"].get<double>());
    for (const auto& m : p["missing"]) std::printf("#   missing: %s\n", m.get<std::string>().c_str());
}

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
        std::printf("\nAlso accepted by --suite: a JSON case file (.json, .jsonl) or a benchdnn batch file\n"
                "(options and --batch= read as benchdnn's conv driver reads them; what cannot run exactly is listed as skipped).\n");
        return;
    }
    const LoadedSuite loaded = load_suite(o.suite, o.seed, o.mode, o.read);
    if (o.strict_benchdnn && !loaded.skipped.empty()) throw std::invalid_argument(strict_benchdnn_message(loaded.skipped));
    if (o.json) {
        std::printf("%s\n", design_json(o.suite, loaded.cases).dump().c_str());
        return;
    }
    for (const Case& c : loaded.cases)
        std::printf("%-14s %-6s %s%s%s%s\n", c.id.c_str(), accuracy::to_string(c.mode), c.descriptor().c_str(),
                    c.fill == accuracy::Fill::standard ? "" : (std::string("  fill=") + accuracy::to_string(c.fill)).c_str(),
                    c.name.empty() ? "" : "  # ", c.name.c_str());
    print_skipped_inputs(stdout, loaded.skipped);
    print_design(design_json(o.suite, loaded.cases));
}

void add_list_command(CLI::App& app) {
    static ListOptions o;
    auto* cmd = app.add_subcommand("list", "List the built-in suites, or the cases of one suite or case file");
    cmd->add_option("--suite", o.suite, "a built-in suite name, a JSON case file or a benchdnn batch file");
    cmd->add_option("--mode", o.mode, "only this mode: exact, bound, probe, stress, precision, invalid or sampled")
        ->check(CLI::IsMember(accuracy::mode_names()));
    add_seed_option(cmd, "--seed", o.seed, "the run seed (it sets each case's data seed)");
    cmd->add_flag("--strict-benchdnn", o.strict_benchdnn, "exit 2 when a benchdnn test case cannot be run exactly");
    add_benchdnn_driver_option(cmd, o.read);
    cmd->add_flag("--json", o.json, "with --suite: the suite's design (distribution, pair coverage) as JSON");
    cmd->callback([] { list(o); });
}

const Registration registration{"list", add_list_command};

}  // namespace

}  // namespace convcheck::cli
