// `convcheck merge a.jsonl b.jsonl ... [--json out.jsonl] [--junit out.xml]`: joins the results of
// the shards of one run into one file that reads like a single run: one run record, the cases in
// case-id order, one summary. Refuses files from different backends, suites or seeds, a case that
// appears twice, and (unless --allow-missing) a missing shard. Exits like `run`: 0 or 1.
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
#include "results.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;
using nlohmann::json;

struct MergeOptions {
    std::vector<std::string> inputs;
    std::string json_path, junit_path;
    bool allow_missing = false, quiet = false;
};

int merge(const MergeOptions& o) {
    json run;
    std::vector<json> cases;
    std::set<std::string> ids;
    std::set<std::int64_t> shards_seen;
    std::int64_t shard_total = -1;
    double seconds = 0.0;
    for (const std::string& path : o.inputs) {
        std::ifstream in(path);
        if (!in) throw std::invalid_argument("cannot read the results file '" + path + "'");
        int n = 0;
        bool had_run = false;
        for (std::string line; std::getline(in, line);) {
            ++n;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            json r;
            try {
                r = json::parse(line);
            } catch (const json::exception& e) {  // parse_error, or out_of_range for a number beyond double
                throw std::invalid_argument(path + ":" + std::to_string(n) + ": not JSON: " + e.what());
            }
            const std::string kind = r.value("record", "");
            if (kind == "run") {
                had_run = true;
                const std::string shard = r.value("shard", "0/1");
                const auto slash = shard.find('/');
                const std::int64_t index = std::stoll(shard.substr(0, slash)), total = std::stoll(shard.substr(slash + 1));
                if (run.is_null()) {
                    run = r;
                    shard_total = total;
                } else {
                    for (const char* key : {"backend", "suite", "seed", "backend_version"})
                        if (r.value(key, json()) != run.value(key, json()))
                            throw std::invalid_argument(path + ": its " + std::string(key) + " " + r.value(key, json()).dump() +
                                                        " differs from the first file's " + run.value(key, json()).dump());
                    if (total != shard_total)
                        throw std::invalid_argument(path + ": shard " + shard + " is not one of " +
                                                    std::to_string(shard_total) + " shards");
                }
                if (!shards_seen.insert(index).second) throw std::invalid_argument(path + ": shard " + shard + " given twice");
            } else if (kind == "case") {
                const std::string id = r.value("case_id", "");
                if (!ids.insert(id).second) throw std::invalid_argument(path + ": case " + id + " appears twice");
                cases.push_back(std::move(r));
            } else if (kind == "summary") {
                seconds = std::max(seconds, r.value("seconds", 0.0));
            }
        }
        if (!had_run) throw std::invalid_argument(path + ": no run record (is it a `convcheck run --json` file?)");
    }
    if (run.is_null()) throw std::invalid_argument("nothing to merge");
    for (std::int64_t i = 0; i < shard_total && !o.allow_missing; ++i)
        if (!shards_seen.count(i))
            throw std::invalid_argument("shard " + std::to_string(i) + "/" + std::to_string(shard_total) +
                                        " is missing (give it, or --allow-missing)");
    std::stable_sort(cases.begin(), cases.end(),
                     [](const json& a, const json& b) { return a.value("case_id", "") < b.value("case_id", ""); });
    run["shard"] = "0/1";
    run["merged_shards"] = shard_total;
    const auto counts = count_statuses(cases);
    const int code = exit_code_for(counts);
    if (!o.json_path.empty()) {
        std::ofstream out(o.json_path);
        if (!out) throw std::invalid_argument("cannot write '" + o.json_path + "'");
        out << run.dump() << '\n';
        for (const json& c : cases) out << c.dump() << '\n';
        out << summary_record(run.value("backend", ""), counts, seconds, code).dump() << '\n';
    }
    if (!o.junit_path.empty()) {
        std::ofstream out(o.junit_path);
        if (!out) throw std::invalid_argument("cannot write '" + o.junit_path + "'");
        out << junit_xml(run, cases, seconds);
    }
    if (!o.quiet) print_summary(stdout, run, cases, seconds);
    return code;
}

void add_merge_command(CLI::App& app) {
    static MergeOptions o;
    auto* cmd = app.add_subcommand("merge", "Join the JSON-lines results of the shards of one run");
    cmd->add_option("inputs", o.inputs, "the shards' results files (convcheck run --json)")->required();
    cmd->add_option("--json", o.json_path, "write the merged JSON-lines file here");
    cmd->add_option("--junit", o.junit_path, "write JUnit XML here");
    cmd->add_flag("--allow-missing", o.allow_missing, "merge even when some shards are missing");
    cmd->add_flag("--quiet", o.quiet, "no table");
    cmd->callback([] { exit_code() = merge(o); });
}

const Registration registration{"merge", add_merge_command};

}  // namespace

}  // namespace convcheck::cli
