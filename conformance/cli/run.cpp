// `convcheck run --backend <name|path.so> [--suite smoke | --case '<descriptor>'] ...`: validates a
// backend plugin against the reference, case by case (docs/runner.md).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "case_selection.hpp"
#include "commands.hpp"
#include "run_report.hpp"
#include "convcheck/runner/failure_bundle.hpp"
#include "convcheck/runner/host_cpu.hpp"
#include "convcheck/runner/interruption.hpp"
#include "convcheck/runner/jobs.hpp"
#include "convcheck/runner/exec_backend.hpp"
#include "convcheck/runner/junit.hpp"
#include "numeric_options.hpp"
#include "convcheck/runner/printable.hpp"
#include "convcheck/runner/result_files.hpp"
#include "convcheck/runner/memory_limit.hpp"
#include "convcheck/runner/progress.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/shard.hpp"
#include "benchdnn_driver_option.hpp"
#include "convcheck/runner/suites.hpp"
#include "convcheck/runner/terminal_summary.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;

struct RunOptions {
    std::string backend;
    std::vector<std::string> backend_options;
    std::string suite;
    std::vector<std::string> case_descriptors;
    std::vector<std::string> case_names;  // --case-name: only the suite's cases of these names
    std::uint64_t seed = 1;
    std::string mode;
    std::string fill;
    std::string json_path, junit_path;
    std::string shard;
    double timeout_s = 30.0;
    int threads = 0;
    bool threads_given = false;
    int repeat = 1;                  // determinism mode (runner/include/convcheck/runner/determinism.hpp)
    std::vector<int> threads_sweep;
    std::string dump_failures;       // failure bundles (runner/include/convcheck/runner/failure_bundle.hpp)
    double min_coverage = kDefaultMinCoverage;
    bool min_coverage_given = false;
    std::string expectations;
    bool leak_check = false, no_shrink = false, fail_fast = false, quiet = false, no_progress = false;
    bool allow_unchecked = false;    // unchecked cases (the contract could not check them) leave exit code 0
    bool strict_benchdnn = false;
    SuiteReadOptions read;           // --benchdnn-driver
    double shrink_seconds = 60.0;
    std::string memory_limit;  // "" : default_memory_limit(), shared by the jobs
    int jobs = 0;
    bool jobs_given = false;   // else: the cores available (runner/include/convcheck/runner/jobs.hpp)
    std::vector<std::string> profiles;  // --profile
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

LoadedSuite suite_cases(const RunOptions& o, std::string* suite_name) {
    return select_cases({o.suite, o.case_descriptors, o.case_names, o.seed, o.mode, o.fill, o.read}, suite_name);
}

// The plugin did not load or negotiate (exit code 3): the results still say so, so CI shows a failed
// test naming the reason instead of "no report".
int report_plugin_failure(const RunOptions& o, RunInfo info, ResultFiles& files, const std::vector<Case>& mine,
                          const std::string& reason, double seconds) {
    std::fprintf(stderr, "convcheck: error: %s\n", printable_line(reason).c_str());
    info.backend = o.backend;
    try {
        info.backend_path = resolve_backend(o.backend);
    } catch (const std::exception&) {
        info.backend_path = o.backend;
    }
    const nlohmann::json run = run_record(info);
    files.emit(run);
    // every case did not run (summary "not_run"); JUnit shows the one failure that explains it
    RunSummary summary = summarize(o.backend, {}, static_cast<std::int64_t>(mine.size()), info.min_coverage);
    summary.coverage_shortfall.clear();  // nothing ran because of the plugin: that is the failure
    summary.error = reason;
    summary.stopped = "the plugin failed to load or negotiate";
    summary.seconds = seconds;
    summary.exit_code = kExitPluginFailed;
    files.emit(summary_record(summary));
    files.write_junit(junit_xml(run, {}, summary));
    return kExitPluginFailed;
}

int run(const RunOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    const JobsPlan jobs = plan_jobs(o.jobs_given ? std::optional<int>(o.jobs) : std::nullopt, default_jobs(),
                                    o.memory_limit.empty() ? std::nullopt
                                                           : std::optional(parse_memory_size(o.memory_limit, "--memory-limit")),
                                    available_memory_bytes(), is_exec_backend(o.backend));
    const std::int64_t memory_limit = jobs.memory_limit_bytes;
    // ---- the cases and the outputs (bad input: exit 2, thrown to main)
    std::string suite_name;
    const LoadedSuite loaded = suite_cases(o, &suite_name);
    const std::vector<Case>& cases = loaded.cases;
    const std::vector<SkippedInput>& skipped = loaded.skipped;  // inputs not turned into cases, with reasons
    if (o.strict_benchdnn && !skipped.empty()) throw std::invalid_argument(strict_benchdnn_message(skipped));
    if (!o.threads_sweep.empty() && o.threads_given)
        throw std::invalid_argument("--threads-sweep sets the thread count of every run: give it or --threads, not both");
    if (!o.dump_failures.empty()) check_bundle_folder(o.dump_failures);  // an unwritable folder: refused before any case
    const Shard shard = shard_from(o.shard);
    std::vector<Case> mine;
    for (std::size_t i = 0; i < cases.size(); ++i)
        if (shard.contains(static_cast<std::int64_t>(i))) mine.push_back(cases[i]);
    ResultFiles files(o.json_path, o.junit_path);
    std::FILE* terminal = files.json_to_stdout() ? stderr : stdout;

    RunInfo info;
    info.backend_options = o.backend_options;
    info.mode_filter = o.mode;
    info.suite = suite_name;
    info.suite_checksum = suite_checksum(cases);
    info.cases_total = static_cast<std::int64_t>(cases.size());
    info.shard = shard.text();
    info.threads = o.threads;
    info.repeat = o.repeat;
    info.threads_sweep = o.threads_sweep;
    info.dump_failures = o.dump_failures;
    info.seed = o.seed;
    info.timeout_s = o.timeout_s;
    info.leak_check = o.leak_check;
    info.allow_unchecked = o.allow_unchecked;
    describe_host(info);
    const CoverageFloor given_floor{o.min_coverage, o.min_coverage_given ? "--min-coverage" : "the default"};
    info.min_coverage = given_floor;

    const InterruptGuard interrupt;
    // ---- the backend (load or negotiation failure: exit 3)
    std::unique_ptr<BackendSession> session;
    let_idle_openmp_threads_sleep();  // before the plugin's OpenMP runtime is loaded (plugin_loader.hpp)
    try {
        session = open_backend(o.backend, o.backend_options, o.threads, o.expectations, o.timeout_s);
    } catch (const PluginError& e) {
        const int code = report_plugin_failure(o, info, files, mine, e.what(), seconds_since(start));
        interrupt.end_by_signal();  // a negotiation cut short by Ctrl-C is an interruption
        return code;
    }
    const Backend& backend = session->backend;
    info.backend = backend.info.name;
    info.backend_version = backend.info.version;
    info.backend_path = session->plugin.path();
    info.accumulation_dtype = abi_dtype_name(backend.info.accumulation_dtype);
    info.expectations_path = session->expectations_path;
    info.expectations_checksum = session->expectations.checksum();
    info.min_coverage = stricter(given_floor, session->expectations.min_coverage(backend.info.name, info.suite));
    info.memory_limit_bytes = memory_limit;
    info.memory_limit_mechanism = memory_enforcement().name();
    info.jobs = jobs.jobs;
    const nlohmann::json run_json = run_record(info);
    files.emit(run_json);
    std::int64_t skipped_here = 0;  // shards split the skipped inputs as they split the cases
    for (std::size_t i = 0; i < skipped.size(); ++i)
        if (shard.contains(static_cast<std::int64_t>(i))) files.emit(skipped_record(skipped[i])), ++skipped_here;

    RunSettings settings;
    settings.check.timeout_s = o.timeout_s;
    settings.check.leak_check = o.leak_check;
    for (const std::string& name : o.profiles) settings.check.profiles.push_back(*accuracy::parse_profile(name));
    settings.check.memory_limit_bytes = memory_limit;
    settings.shrink = !o.no_shrink;
    settings.shrink_limits.max_seconds = o.shrink_seconds;
    settings.fail_fast = o.fail_fast;
    settings.check.determinism = {o.repeat, o.threads_sweep};
    settings.dump_failures = o.dump_failures;
    settings.stop = interrupt.flag();
    settings.jobs = jobs.jobs;

    std::vector<nlohmann::json> records;
    Progress progress(mine, !o.quiet && !o.no_progress && isatty(2));
    run_cases(backend, mine, settings, [&](const CaseResult& r) {
        report_case(r, backend.info.name, files, records, o.quiet);
        progress.update(static_cast<std::int64_t>(records.size()), count_statuses(records));
    });
    progress.finish();

    const int code = finish_run(files, terminal, run_json, records,
                                {backend.info.name, mine, skipped, skipped_here, info.min_coverage, o.allow_unchecked,
                                 o.quiet, interrupt.signal_number(), seconds_since(start)});
    interrupt.end_by_signal();
    return code;
}

void add_run_command(CLI::App& app) {
    static RunOptions o;
    auto* cmd = app.add_subcommand("run", "Validate a backend plugin against the reference, case by case");
    cmd->add_option("--backend", o.backend, "plugin name (optimized, reference, onednn, ...) or path to its .so")
        ->required();
    cmd->add_option("--backend-option", o.backend_options, "key=value passed to the plugin's create (repeatable)");
    cmd->add_option("--suite", o.suite, "built-in suite (see `convcheck list`), a JSON case file or a benchdnn batch file "
                                        "(default: smoke)");
    cmd->add_option("--case", o.case_descriptors, "run this canonical descriptor instead of a suite (repeatable)");
    cmd->add_option("--case-name", o.case_names,
                    "with --suite: only the suite's cases of this name (a shape's or a stored vector's, as `convcheck "
                    "list` and the results show it; repeatable)");
    add_seed_option(cmd, "--seed", o.seed, "run seed (with --case: the case's data seed)");
    cmd->add_option("--mode", o.mode, "only this accuracy mode: exact, bound, probe, stress, precision, invalid or sampled (with --case: default bound)")
        ->check(CLI::IsMember(accuracy::mode_names()));
    cmd->add_option("--fill", o.fill, "with --case in exact mode: a special fill (ties, overflow, subnormal)")
        ->check(CLI::IsMember({"standard", "ties", "overflow", "subnormal"}));
    cmd->add_option("--json", o.json_path, "write JSON-lines results here ('-': stdout)");
    cmd->add_option("--junit", o.junit_path, "write JUnit XML here");
    cmd->add_option("--shard", o.shard, "run shard i of n (i/n); default from TEST_/GTEST_ sharding variables");
    add_seconds_option(cmd, "--timeout", o.timeout_s, false, "seconds before a case counts as hanged (default 30)");
    add_count_option(cmd, "--threads", o.threads, 0, 4096, "threads a plugin may use (0: its default)")
        ->each([](const std::string&) { o.threads_given = true; });
    add_count_option(cmd, "--repeat", o.repeat, 1, 1000,
                     "determinism mode: run every case this many times (at each --threads-sweep count) and require "
                     "bitwise-identical outputs (default 1)");
    add_count_list_option(cmd, "--threads-sweep", o.threads_sweep, 0, 4096,
                          "determinism mode: run every case at each of these thread counts (e.g. 1,2,4) and require "
                          "bitwise-identical outputs");
    cmd->add_option("--dump-failures", o.dump_failures,
                    "write every failing case's inputs, expected and actual outputs (.npy) and a manifest.json into "
                    "this folder");
    add_fraction_option(cmd, "--min-coverage", o.min_coverage,
                        "fraction of the cases that must execute (not be declined); the stricter of this and the "
                        "backend's min_coverage in backends.json applies (default 0.01)")
        ->each([](const std::string&) { o.min_coverage_given = true; });
    cmd->add_option("--expectations", o.expectations,
                    "declarations and expected failures (default: the installed backends.json; 'none': none)");
    cmd->add_option("--memory-limit", o.memory_limit,
                    "what one case may use, runner and plugin child together, e.g. 2G or 512M; --jobs x this must "
                    "fit in the memory available (default: half the memory available at start, shared by the jobs)");
    add_count_option(cmd, "--jobs", o.jobs, 1, 4096,
                     "cases checked at once, each in its own children; reported in suite order (default: the cores "
                     "available to this process)")
        ->each([](const std::string&) { o.jobs_given = true; });
    cmd->add_flag("--leak-check", o.leak_check, "run 5 create..destroy cycles per case and fail heap growth");
    cmd->add_option("--profile", o.profiles,
                    "also judge each case by another suite's published rule, and report where it disagrees with "
                    "convcheck's verdict (repeatable: webnn, nnapi, benchdnn, onnx, opinfo; docs/accuracy.md)")
        ->check(CLI::IsMember({"webnn", "nnapi", "benchdnn", "onnx", "opinfo"}));
    cmd->add_flag("--no-shrink", o.no_shrink, "do not shrink failing cases");
    add_seconds_option(cmd, "--shrink-seconds", o.shrink_seconds, true, "time limit for shrinking one failure");
    cmd->add_flag("--fail-fast", o.fail_fast, "stop at the first failing case");
    cmd->add_flag("--allow-unchecked", o.allow_unchecked,
                  "exit 0 even when cases are unchecked (the contract's bound is vacuous there and the statistics "
                  "cannot judge them: not passed); they stay unchecked in every report, and JUnit lists them as "
                  "skipped instead of failed");
    cmd->add_flag("--quiet", o.quiet, "no progress, no table: only the one-line verdict");
    cmd->add_flag("--strict-benchdnn", o.strict_benchdnn,
                  "exit 2 when a benchdnn test case cannot be run exactly (instead of skipping it with its reason)");
    add_benchdnn_driver_option(cmd, o.read);
    cmd->add_flag("--no-progress", o.no_progress, "no progress bar");
    cmd->callback([] { exit_code() = run(o); });
}

const Registration registration{"run", add_run_command};

}  // namespace

}  // namespace convcheck::cli
