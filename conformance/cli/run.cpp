// `convcheck run --backend <name|path.so> [--suite smoke | --case '<descriptor>'] ...`: validates a
// backend plugin against the reference, case by case (docs/runner.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "abi_descriptor.hpp"
#include "commands.hpp"
#include "results.hpp"
#include "session.hpp"
#include "shard.hpp"
#include "suites.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;

struct RunOptions {
    std::string backend;
    std::vector<std::string> backend_options;
    std::string suite;
    std::vector<std::string> case_descriptors;
    std::uint64_t seed = 1;
    std::string mode;
    std::string fill;
    std::string json_path, junit_path;
    std::string shard;
    double timeout_s = 30.0;
    int threads = 0;
    std::string expectations;
    bool leak_check = false, no_shrink = false, fail_fast = false, quiet = false, no_progress = false;
    double shrink_seconds = 60.0;
};

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return text;
}

std::string host_name() {
    char name[256] = {0};
    gethostname(name, sizeof(name) - 1);
    return name;
}

int run(const RunOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    // ---- the cases (bad input: exit 2, thrown to main)
    std::vector<Case> cases;
    std::string suite_name;
    if (!o.case_descriptors.empty()) {
        if (!o.suite.empty()) throw std::invalid_argument("give either --suite or --case, not both");
        suite_name = "cli";
        std::vector<SuiteEntry> entries;
        for (const auto& text : o.case_descriptors) {
            entries.emplace_back(text);
            entries.back().seed = o.seed;
            if (!o.fill.empty()) accuracy::parse_fill(o.fill, &entries.back().fill);
        }
        const bool special = !o.fill.empty() && o.fill != "standard";  // special fills are exact-mode data
        cases = expand("cli", entries, o.seed, !o.mode.empty() ? o.mode : special ? "exact" : "bound");
    } else {
        suite_name = o.suite.empty() ? "smoke" : o.suite;
        cases = load_cases(suite_name, o.seed, o.mode);
    }
    const Shard shard = shard_from(o.shard);
    std::vector<Case> mine;
    for (std::size_t i = 0; i < cases.size(); ++i)
        if (shard.contains(static_cast<std::int64_t>(i))) mine.push_back(cases[i]);

    // ---- the backend (load or negotiation failure: exit 3)
    std::unique_ptr<BackendSession> session;
    try {
        session = open_backend(o.backend, o.backend_options, o.threads, o.expectations, o.timeout_s);
    } catch (const PluginError& e) {
        std::fprintf(stderr, "convcheck: error: %s\n", e.what());
        return kExitPluginFailed;
    }
    const Backend& backend = session->backend;

    // ---- outputs
    std::unique_ptr<std::ofstream> json_file;
    std::FILE* json_stdout = nullptr;
    if (o.json_path == "-") json_stdout = stdout;
    else if (!o.json_path.empty()) {
        json_file = std::make_unique<std::ofstream>(o.json_path);
        if (!*json_file) throw std::invalid_argument("cannot write the JSON results file '" + o.json_path + "'");
    }
    auto emit = [&](const nlohmann::json& record) {
        const std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (json_file) *json_file << line << '\n' << std::flush;
        if (json_stdout) std::fprintf(json_stdout, "%s\n", line.c_str()), std::fflush(json_stdout);
    };
    RunInfo info;
    info.backend = backend.info.name;
    info.backend_version = backend.info.version;
    info.backend_path = session->plugin.path();
    info.suite = suite_name;
    info.shard = shard.text();
    info.threads = o.threads;
    info.seed = o.seed;
    info.started = utc_now();
    info.host = host_name();
    info.accumulation_dtype = abi_dtype_name(backend.info.accumulation_dtype);
    const nlohmann::json run_json = run_record(info);
    emit(run_json);

    RunSettings settings;
    settings.check.timeout_s = o.timeout_s;
    settings.check.leak_check = o.leak_check;
    settings.shrink = !o.no_shrink;
    settings.shrink_limits.max_seconds = o.shrink_seconds;
    settings.fail_fast = o.fail_fast;

    std::vector<nlohmann::json> records;
    Progress progress(static_cast<std::int64_t>(mine.size()), !o.quiet && !o.no_progress && isatty(2));
    run_cases(backend, mine, settings, [&](const CaseResult& r) {
        records.push_back(case_record(r, backend.info.name));
        emit(records.back());
        if (!o.quiet && is_failure(r.status) && !isatty(2))
            std::fprintf(stderr, "%s %s: %s\n  %s\n", r.c.id.c_str(), to_string(r.status), r.reason.c_str(),
                         r.reproducer.c_str());
        progress.update(static_cast<std::int64_t>(records.size()), count_statuses(records));
    });
    progress.finish();

    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto counts = count_statuses(records);
    const int code = exit_code_for(counts);
    emit(summary_record(backend.info.name, counts, seconds, code));
    if (!o.junit_path.empty()) {
        std::ofstream junit(o.junit_path);
        if (!junit) throw std::invalid_argument("cannot write the JUnit file '" + o.junit_path + "'");
        junit << junit_xml(run_json, records, seconds);
    }
    if (!o.quiet) print_summary(json_stdout ? stderr : stdout, run_json, records, seconds);
    return code;
}

void add_run_command(CLI::App& app) {
    static RunOptions o;
    auto* cmd = app.add_subcommand("run", "Validate a backend plugin against the reference, case by case");
    cmd->add_option("--backend", o.backend, "plugin name (optimized, reference, onednn, ...) or path to its .so")
        ->required();
    cmd->add_option("--backend-option", o.backend_options, "key=value passed to the plugin's create (repeatable)");
    cmd->add_option("--suite", o.suite, "built-in suite (see `convcheck list`), a JSON case file or a benchdnn shape file "
                                        "(default: smoke)");
    cmd->add_option("--case", o.case_descriptors, "run this canonical descriptor instead of a suite (repeatable)");
    cmd->add_option("--seed", o.seed, "run seed (with --case: the case's data seed)");
    cmd->add_option("--mode", o.mode, "only this accuracy mode: exact, bound or probe (with --case: default bound)")
        ->check(CLI::IsMember({"exact", "bound", "probe"}));
    cmd->add_option("--fill", o.fill, "with --case in exact mode: a special fill (ties, overflow, subnormal)")
        ->check(CLI::IsMember({"standard", "ties", "overflow", "subnormal"}));
    cmd->add_option("--json", o.json_path, "write JSON-lines results here ('-': stdout)");
    cmd->add_option("--junit", o.junit_path, "write JUnit XML here");
    cmd->add_option("--shard", o.shard, "run shard i of n (i/n); default from TEST_/GTEST_ sharding variables");
    cmd->add_option("--timeout", o.timeout_s, "seconds before a case counts as hanged")->check(CLI::PositiveNumber);
    cmd->add_option("--threads", o.threads, "threads a plugin may use (0: its default)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--expectations", o.expectations,
                    "declarations and expected failures (default: the installed backends.json; 'none': none)");
    cmd->add_flag("--leak-check", o.leak_check, "run 5 create..destroy cycles per case and fail heap growth");
    cmd->add_flag("--no-shrink", o.no_shrink, "do not shrink failing cases");
    cmd->add_option("--shrink-seconds", o.shrink_seconds, "time limit for shrinking one failure");
    cmd->add_flag("--fail-fast", o.fail_fast, "stop at the first failing case");
    cmd->add_flag("--quiet", o.quiet, "no progress, no table");
    cmd->add_flag("--no-progress", o.no_progress, "no progress bar");
    cmd->callback([] { exit_code() = run(o); });
}

const Registration registration{"run", add_run_command};

}  // namespace

}  // namespace convcheck::cli
