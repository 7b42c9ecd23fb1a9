// `convcheck export --suite S DIR` and `convcheck judge DIR`: offline runs (docs/offline.md). Export runs every
// case through the case pipeline as far as the backend's execution and writes the inputs it made (.npy) and a
// manifest; a device computes the outputs beside them; judge runs the pipeline again with the device's outputs in
// place of an execution, and reports exactly as `run` does (run_report.hpp).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "case_selection.hpp"
#include "commands.hpp"
#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/runner/check.hpp"
#include "convcheck/runner/interruption.hpp"
#include "convcheck/runner/offline.hpp"
#include "convcheck/runner/offline_manifest.hpp"
#include "convcheck/runner/printable.hpp"
#include "convcheck/runner/progress.hpp"
#include "convcheck/runner/suites.hpp"
#include "numeric_options.hpp"
#include "run_report.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;
using nlohmann::json;
namespace fs = std::filesystem;

// The backend an offline run judges: no plugin; its claims and declarations.
struct OfflineBackend {
    Expectations expectations;
    std::string expectations_path;  // "" : none
    Backend backend;
};

std::unique_ptr<OfflineBackend> offline_backend(const json& claims, const std::string& claims_file,
                                                const std::string& expectations_path) {
    auto b = std::make_unique<OfflineBackend>();
    b->backend.info = offline_info(claims);
    b->backend.spec = claims_file;
    const std::string file = expectations_path.empty() ? default_expectations_path() : expectations_path;
    if (file != "none") {
        b->expectations = Expectations::load(file);
        b->backend.expectations = &b->expectations;
        b->expectations_path = file;
    }
    return b;
}

json read_json_file(const std::string& path, const std::string& option) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(option + " " + path + ": cannot be read");
    const json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) throw std::invalid_argument(option + " " + path + ": not JSON");
    return j;
}

// ---- export ---------------------------------------------------------------------------------------------

struct ExportOptions {
    CaseSelection selection;
    std::string dir, claims, expectations;
};

int run_export(const ExportOptions& o) {
    std::string suite_name;
    const LoadedSuite loaded = select_cases(o.selection, &suite_name);
    const json claims = o.claims.empty() ? default_offline_claims() : read_json_file(o.claims, "--claims");
    std::unique_ptr<OfflineBackend> b;
    try {
        b = offline_backend(claims, o.claims, o.expectations);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("--claims: " + std::string(e.what()));
    }
    const fs::path dir = o.dir;
    if (fs::exists(dir) && (!fs::is_directory(dir) || !fs::is_empty(dir)))
        throw std::invalid_argument("export folder " + o.dir + ": exists and is not an empty folder (export writes "
                                    "into a new or empty one, so that no earlier output is judged)");
    fs::create_directories(dir);

    json cases = json::array();
    std::int64_t exported = 0;
    std::map<std::string, std::int64_t> skipped;  // reason -> count
    CheckSettings settings;
    for (const Case& c : loaded.cases) {
        ExportExecution execution(dir, c);
        Backend backend = b->backend;
        backend.offline = &execution;
        const CaseResult r = check_case(backend, c, settings);
        json entry = offline_case_entry(c);
        entry["case"] = offline_file_stem(c);
        entry["exported"] = execution.written();
        if (execution.written()) {
            entry.update(execution.entry());
            ++exported;
        } else {
            entry["skipped"] = r.reason.empty() ? std::string(to_string(r.status)) : r.reason;
            ++skipped[entry["skipped"].get<std::string>()];
        }
        cases.push_back(std::move(entry));
    }
    json selection = {{"suite", o.selection.suite}, {"cases", o.selection.case_descriptors},
                      {"case_names", o.selection.case_names}, {"seed", o.selection.seed},
                      {"mode", o.selection.mode}, {"fill", o.selection.fill}, {"claims_file", o.claims}};
    const json manifest = {
        {"format", kOfflineFormat},
        {"format_version", kOfflineFormatVersion},
        {"suite", suite_name},
        {"seed", o.selection.seed},
        {"mode", o.selection.mode},
        {"suite_checksum", suite_checksum(loaded.cases)},
        {"selection", selection},
        {"claims", claims},
        {"expectations", {{"path", b->expectations_path}, {"checksum", b->expectations.checksum()}}},
        {"files",
         {{"inputs", "<case>.<tensor>.npy: each exported case's inputs (its \"inputs\"), written by convcheck export"},
          {"outputs", "<case>.<tensor>.npy: each output the case names (its \"outputs\": file, dtype, npy_descr, "
                      "shape), written by the device beside the inputs"},
          {"declined", "<case>.declined: a text file holding the device's reason, where it does not compute the case"}}},
        {"npy",
         {{"version", "1.0 (numpy's format, NEP 1): little-endian, C order"},
          {"f32", "<f4"}, {"f16", "<f2"}, {"f64", "<f8"},
          {"bf16", "<u2: each element's 16 bits (numpy has no bfloat16 dtype); the float32 value is the bits << 16"}}},
        {"cases_total", loaded.cases.size()},
        {"cases_exported", exported},
        {"cases", cases}};
    std::ofstream(dir / "manifest.json") << manifest.dump(1) << "\n";
    std::printf("exported %lld of %zu cases of %s to %s (manifest.json)\n", static_cast<long long>(exported),
                loaded.cases.size(), suite_name.c_str(), o.dir.c_str());
    for (const auto& [reason, count] : skipped)
        std::printf("  skipped %lld: %s\n", static_cast<long long>(count), printable_line(reason).c_str());
    print_skipped_inputs(stdout, loaded.skipped);
    return kExitOk;
}

void add_export_command(CLI::App& app) {
    static ExportOptions o;
    auto* cmd = app.add_subcommand("export", "Write every case's inputs (.npy) and a manifest for a device to run "
                                             "offline (docs/offline.md)");
    cmd->add_option("--suite", o.selection.suite, "built-in suite, case list, JSON case file or benchdnn file "
                                                  "(default: smoke)");
    cmd->add_option("--case", o.selection.case_descriptors, "this canonical descriptor instead of a suite (repeatable)");
    cmd->add_option("--case-name", o.selection.case_names, "with --suite: only the suite's cases of this name");
    add_seed_option(cmd, "--seed", o.selection.seed, "run seed (with --case: the case's data seed)");
    cmd->add_option("--mode", o.selection.mode, "only this accuracy mode")->check(CLI::IsMember(accuracy::mode_names()));
    cmd->add_option("--fill", o.selection.fill, "with --case in exact mode: a special fill")
        ->check(CLI::IsMember({"standard", "ties", "overflow", "subnormal"}));
    cmd->add_option("--claims", o.claims,
                    "the device's claims, a JSON object in the exec protocol's words (docs/exec-protocol.md); "
                    "default: every dtype, rank, format, the three passes, f32 accumulation, name \"offline\"");
    cmd->add_option("--expectations", o.expectations,
                    "declarations and expected failures (default: the installed backends.json; 'none': none)");
    cmd->add_option("DIR", o.dir, "a new or empty folder")->required();
    cmd->callback([] { exit_code() = run_export(o); });
}

const Registration export_registration{"export", add_export_command};

// ---- judge ----------------------------------------------------------------------------------------------

struct JudgeOptions {
    std::string dir, json_path, junit_path, expectations;
    bool quiet = false, no_progress = false, allow_unchecked = false;
    std::vector<std::string> profiles;
};

std::vector<std::string> strings_of(const json& selection, const char* key) {
    std::vector<std::string> v;
    const json& a = selection.contains(key) ? selection[key] : json::array();
    if (!a.is_array()) throw std::invalid_argument(std::string("manifest.json: selection.") + key + " = " + a.dump() +
                                                   ": a list of strings");
    for (const json& s : a) {
        if (!s.is_string())
            throw std::invalid_argument(std::string("manifest.json: selection.") + key + " = " + a.dump() +
                                        ": a list of strings");
        v.push_back(s.get<std::string>());
    }
    return v;
}

std::string string_of(const json& selection, const char* key) {
    const json& v = selection.contains(key) ? selection[key] : json("");
    if (!v.is_string())
        throw std::invalid_argument(std::string("manifest.json: selection.") + key + " = " + v.dump() + ": a string");
    return v.get<std::string>();
}

// The manifest's cases made again from what export was asked for: the same ids, descriptors, seeds and modes.
std::vector<Case> manifest_cases(const OfflineManifest& m, std::vector<SkippedInput>* skipped) {
    CaseSelection s{string_of(m.selection, "suite"), strings_of(m.selection, "cases"),
                    strings_of(m.selection, "case_names"), m.seed, string_of(m.selection, "mode"),
                    string_of(m.selection, "fill"), {}};
    std::string suite_name;
    LoadedSuite loaded = select_cases(s, &suite_name);
    *skipped = loaded.skipped;
    if (loaded.cases.size() != m.cases.size())
        throw std::invalid_argument("manifest.json: cases holds " + std::to_string(m.cases.size()) + " cases where " +
                                    suite_name + " has " + std::to_string(loaded.cases.size()) +
                                    " (export and judge must be the same convcheck)");
    for (std::size_t i = 0; i < m.cases.size(); ++i) {
        const Case& c = loaded.cases[i];
        const OfflineCaseEntry& e = m.cases[i];
        const std::string where = "manifest.json: cases[" + std::to_string(i) + "].";
        const auto differs = [&](const char* key, const std::string& value, const std::string& made) {
            throw std::invalid_argument(where + key + " = " + value + ": convcheck makes " + made + " for case " +
                                        std::to_string(i) + " of " + suite_name +
                                        " (export and judge must be the same convcheck)");
        };
        if (e.id != c.id) differs("id", e.id, c.id);
        if (e.descriptor != c.descriptor()) differs("canonical", e.descriptor, c.descriptor());
        if (e.seed != c.seed) differs("seed", std::to_string(e.seed), std::to_string(c.seed));
        if (e.mode != accuracy::to_string(c.mode)) differs("mode", e.mode, accuracy::to_string(c.mode));
    }
    if (suite_checksum(loaded.cases) != m.suite_checksum)
        throw std::invalid_argument("manifest.json: suite_checksum = " + m.suite_checksum + ": the cases made again "
                                    "have checksum " + suite_checksum(loaded.cases));
    return std::move(loaded.cases);
}

int run_judge(const JudgeOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    const OfflineManifest m = read_offline_manifest(o.dir);
    std::vector<SkippedInput> skipped;
    const std::vector<Case> cases = manifest_cases(m, &skipped);
    const std::string expectations = !o.expectations.empty() ? o.expectations
                                     : m.expectations.empty() ? "none" : m.expectations;
    const std::unique_ptr<OfflineBackend> b = offline_backend(m.claims, string_of(m.selection, "claims_file"),
                                                              expectations);
    ResultFiles files(o.json_path, o.junit_path);
    std::FILE* terminal = files.json_to_stdout() ? stderr : stdout;

    const PluginInfo& info_of = b->backend.info;
    RunInfo info;
    info.backend = info_of.name;
    info.backend_version = info_of.version;
    info.backend_path = "offline:" + o.dir;
    info.accumulation_dtype = abi_dtype_name(info_of.accumulation_dtype);
    info.mode_filter = m.mode_filter;
    info.suite = m.suite;
    info.suite_checksum = m.suite_checksum;
    info.cases_total = static_cast<std::int64_t>(cases.size());
    info.seed = m.seed;
    info.allow_unchecked = o.allow_unchecked;
    info.expectations_path = b->expectations_path;
    info.expectations_checksum = b->expectations.checksum();
    info.min_coverage = stricter(CoverageFloor{}, b->expectations.min_coverage(info_of.name, info.suite));
    describe_host(info);
    const json run_json = run_record(info);
    files.emit(run_json);
    for (const SkippedInput& s : skipped) files.emit(skipped_record(s));

    CheckSettings settings;
    for (const std::string& name : o.profiles) settings.profiles.push_back(*accuracy::parse_profile(name));
    const InterruptGuard interrupt;
    std::vector<json> records;
    Progress progress(cases, !o.quiet && !o.no_progress && isatty(2));
    for (const Case& c : cases) {
        if (interrupt.signal_number()) break;
        JudgeExecution execution(o.dir, c);
        Backend backend = b->backend;
        backend.offline = &execution;
        report_case(check_case(backend, c, settings), info_of.name, files, records, o.quiet);
        progress.update(static_cast<std::int64_t>(records.size()), count_statuses(records));
    }
    progress.finish();
    const int code = finish_run(files, terminal, run_json, records,
                                {info_of.name, cases, skipped, static_cast<std::int64_t>(skipped.size()),
                                 info.min_coverage, o.allow_unchecked, o.quiet, interrupt.signal_number(),
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
    interrupt.end_by_signal();
    return code;
}

void add_judge_command(CLI::App& app) {
    static JudgeOptions o;
    auto* cmd = app.add_subcommand("judge", "Judge the outputs a device wrote into an exported folder, as `run` "
                                            "would (docs/offline.md)");
    cmd->add_option("DIR", o.dir, "the folder `convcheck export` wrote, with the device's outputs")->required();
    cmd->add_option("--json", o.json_path, "write JSON-lines results here ('-': stdout)");
    cmd->add_option("--junit", o.junit_path, "write JUnit XML here");
    cmd->add_option("--expectations", o.expectations,
                    "declarations and expected failures (default: the file export read; 'none': none)");
    cmd->add_option("--profile", o.profiles, "also judge each case by another suite's published rule (repeatable)")
        ->check(CLI::IsMember({"webnn", "nnapi", "benchdnn", "onnx", "opinfo"}));
    cmd->add_flag("--allow-unchecked", o.allow_unchecked, "exit 0 even when cases are unchecked");
    cmd->add_flag("--quiet", o.quiet, "no progress, no table: only the one-line verdict");
    cmd->add_flag("--no-progress", o.no_progress, "no progress bar");
    cmd->callback([] { exit_code() = run_judge(o); });
}

const Registration judge_registration{"judge", add_judge_command};

}  // namespace

}  // namespace convcheck::cli
