// `convcheck merge a.jsonl b.jsonl ... [--json out.jsonl] [--junit out.xml]`: joins the results of
// the shards of one run into one file that reads like a single run: one run record, the cases in
// case-id order, one summary with the coverage verdict over all of them. Refuses shards that differ in
// any defining field of their run records (results.hpp: defining_run_fields()), naming the field and
// both values; a case that appears twice; a shard without its closing summary (an incomplete run);
// an output that would overwrite an input; and (unless --allow-missing) a missing shard.
// Exits like `run`: 0 or 1.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "convcheck/runner/junit.hpp"
#include "convcheck/runner/number_text.hpp"
#include "convcheck/runner/result_files.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/terminal_summary.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;
using nlohmann::json;

struct MergeOptions {
    std::vector<std::string> inputs;
    std::string json_path, junit_path;
    bool allow_missing = false, quiet = false;
};

// One shard's file, read.
struct ShardFile {
    json run, summary;
    std::vector<json> cases;
    std::vector<json> skipped;  // "skipped" records: inputs of this shard not turned into cases
    std::int64_t index = 0, total = 1;
};

ShardFile read_shard(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("cannot read the results file '" + path + "'");
    ShardFile f;
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json r;
        try {
            r = json::parse(line);
        } catch (const json::exception& e) {  // parse_error, or out_of_range for a number beyond double
            throw std::invalid_argument(path + ":" + std::to_string(n) + ": not JSON: " + e.what());
        }
        const std::string kind = r.is_object() ? r.value("record", "") : "";
        if (kind == "run") {
            if (!f.run.is_null()) throw std::invalid_argument(path + ":" + std::to_string(n) + ": a second run record");
            f.run = r;
        } else if (kind == "case") {
            f.cases.push_back(std::move(r));
        } else if (kind == "skipped") {
            f.skipped.push_back(std::move(r));
        } else if (kind == "summary") {
            f.summary = r;
        }
    }
    if (f.run.is_null()) throw std::invalid_argument(path + ": no run record (is it a `convcheck run --json` file?)");
    if (f.summary.is_null())
        throw std::invalid_argument(path + ": no summary record: an incomplete run (killed before its end); run the "
                                           "shard again");
    const std::string shard = f.run.value("shard", "0/1");
    const auto slash = shard.find('/');
    const auto index = parse_unsigned(shard.substr(0, slash)), total = parse_unsigned(shard.substr(slash + 1));
    if (slash == std::string::npos || !index || !total || *total < 1 || *index >= *total)
        throw std::invalid_argument(path + ": run record's shard '" + shard + "' is not i/n with i < n");
    const auto declared = f.summary.value("skipped_inputs", static_cast<std::int64_t>(0));
    if (declared != static_cast<std::int64_t>(f.skipped.size()))
        throw std::invalid_argument(path + ": its summary counts " + std::to_string(declared) +
                                    " skipped inputs but the file holds " + std::to_string(f.skipped.size()) +
                                    " \"skipped\" records: a damaged results file");
    f.index = static_cast<std::int64_t>(*index);
    f.total = static_cast<std::int64_t>(*total);
    return f;
}

void refuse_different_runs(const ShardFile& first, const std::string& first_path, const ShardFile& f,
                           const std::string& path) {
    for (const std::string& key : defining_run_fields()) {
        const json a = first.run.value(key, json()), b = f.run.value(key, json());
        if (a != b)
            throw std::invalid_argument("the shards are not one run: " + key + " is " + b.dump() + " in " + path +
                                        " but " + a.dump() + " in " + first_path);
    }
    if (f.total != first.total)
        throw std::invalid_argument(path + ": shard " + f.run.value("shard", "") + " is not one of " +
                                    std::to_string(first.total) + " shards");
}

int merge(const MergeOptions& o) {
    for (const std::string& input : o.inputs)
        for (const std::string& output : {o.json_path, o.junit_path})
            if (same_file(input, output))
                throw std::invalid_argument("the output '" + output + "' is the input '" + input +
                                            "': merge never writes over its inputs");
    std::vector<ShardFile> shards;
    std::set<std::string> ids;
    std::set<std::int64_t> shards_seen;
    std::int64_t total = 0;
    double seconds = 0.0;
    std::vector<json> cases, not_run_cases, skipped;
    std::vector<std::string> stopped;
    for (std::size_t i = 0; i < o.inputs.size(); ++i) {
        ShardFile f = read_shard(o.inputs[i]);
        if (!shards.empty()) refuse_different_runs(shards.front(), o.inputs.front(), f, o.inputs[i]);
        if (!shards_seen.insert(f.index).second)
            throw std::invalid_argument(o.inputs[i] + ": shard " + f.run.value("shard", "") + " given twice");
        for (json& c : f.cases) {
            const std::string id = c.value("case_id", "");
            if (!ids.insert(id).second) throw std::invalid_argument(o.inputs[i] + ": case " + id + " appears twice");
            cases.push_back(std::move(c));
        }
        // a file from before the summary had "total": its cases were all there were
        total += f.summary.value("total", static_cast<std::int64_t>(f.cases.size()));
        for (const json& c : f.summary.value("not_run_cases", json::array())) not_run_cases.push_back(c);
        for (json& r : f.skipped) skipped.push_back(std::move(r));
        if (f.summary.contains("stopped") && f.summary["stopped"].is_string())
            stopped.push_back("shard " + f.run.value("shard", "") + ": " + f.summary["stopped"].get<std::string>());
        seconds = std::max(seconds, f.summary.value("seconds", 0.0));
        f.cases.clear();
        shards.push_back(std::move(f));
    }
    if (shards.empty()) throw std::invalid_argument("nothing to merge");
    const std::int64_t shard_total = shards.front().total;
    for (std::int64_t i = 0; i < shard_total && !o.allow_missing; ++i)
        if (!shards_seen.count(i))
            throw std::invalid_argument("shard " + std::to_string(i) + "/" + std::to_string(shard_total) +
                                        " is missing (give it, or --allow-missing)");
    std::stable_sort(cases.begin(), cases.end(),
                     [](const json& a, const json& b) { return a.value("case_id", "") < b.value("case_id", ""); });
    json run = shards.front().run;
    run["shard"] = "0/1";
    run["merged_shards"] = shard_total;
    // every shard judged itself against the same floor (a defining field); the merged run is judged
    // against it once more, over all its cases
    CoverageFloor floor;
    floor.fraction = run.value("min_coverage", kDefaultMinCoverage);
    floor.source = run.value("min_coverage_source", std::string("the default"));
    // and allow_unchecked (a defining field too) decides once more whether unchecked cases fail it
    RunSummary summary = summarize(run.value("backend", ""), cases, total, floor, run.value("allow_unchecked", false));
    summary.not_run_cases = not_run_cases;
    summary.skipped_inputs = static_cast<std::int64_t>(skipped.size());
    for (const std::string& s : stopped) summary.stopped += (summary.stopped.empty() ? "" : "; ") + s;
    if (!summary.stopped.empty() && summary.exit_code == 0) summary.exit_code = 1;  // a shard did not finish
    summary.seconds = seconds;
    ResultFiles files(o.json_path, o.junit_path);
    files.emit(run);
    for (const json& r : skipped) files.emit(r);
    for (const json& c : cases) files.emit(c);
    files.emit(summary_record(summary));
    files.write_junit(junit_xml(run, cases, summary));
    std::FILE* terminal = o.json_path == "-" ? stderr : stdout;
    if (o.quiet) std::fprintf(terminal, "%s\n", verdict_line(run, summary).c_str());
    else print_summary(terminal, run, cases, summary);
    return summary.exit_code;
}

void add_merge_command(CLI::App& app) {
    static MergeOptions o;
    auto* cmd = app.add_subcommand("merge", "Join the JSON-lines results of the shards of one run");
    cmd->add_option("inputs", o.inputs, "the shards' results files (convcheck run --json)")->required();
    cmd->add_option("--json", o.json_path, "write the merged JSON-lines file here ('-': stdout)");
    cmd->add_option("--junit", o.junit_path, "write JUnit XML here");
    cmd->add_flag("--allow-missing", o.allow_missing, "merge even when some shards are missing");
    cmd->add_flag("--quiet", o.quiet, "no table: only the one-line verdict");
    cmd->callback([] { exit_code() = merge(o); });
}

const Registration registration{"merge", add_merge_command};

}  // namespace

}  // namespace convcheck::cli
