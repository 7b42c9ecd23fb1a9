#include "convcheck/runner/results.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/printable.hpp"
#include "convcheck/formats/sha256.hpp"

namespace convcheck::runner {

using nlohmann::json;

namespace {

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// The statistics of a bound-mode comparison (accuracy/include/convcheck/accuracy/statistics.hpp); null where none were taken.
json statistics_record(const accuracy::Statistics& s) {
    if (s.outputs == 0 && s.vacuous_outputs == 0) return nullptr;
    const double T = double(s.outputs);
    return {{"outputs", s.outputs},
            {"vacuous_outputs", s.vacuous_outputs},
            {"sum_squares", finite_or_null(s.sum_squares)},
            {"variance_limit", 4.0 * T},
            {"sum", finite_or_null(s.sum)},
            {"sum_toward_zero", finite_or_null(s.sum_toward_zero)},
            {"bias_limit", s.bias_rules ? json(std::sqrt(40.0 * T)) : json(nullptr)},  // null: variance rule only
            {"applied", s.applied()},
            {"failure", s.failure.empty() ? json(nullptr) : json(s.failure)},
            {"growth_to_pass", s.failure.empty() ? json(nullptr) : finite_or_null(s.growth)}};
}

}  // namespace

const std::vector<std::string>& defining_run_fields() {
    // the options a user chose come before the checksum, so a message names the option that differs
    static const std::vector<std::string> fields = {
        "schema",     "convcheck_version", "backend",   "backend_version", "backend_options", "accumulation_dtype",
        "suite",      "mode_filter",       "seed",      "cases_total",     "suite_checksum",  "threads",
        "timeout_s",  "min_coverage",      "leak_check", "expectations_checksum", "repeat", "threads_sweep",
        "allow_unchecked"};
    return fields;
}

json run_record(const RunInfo& i) {
    json options = json::array();
    for (const std::string& o : i.backend_options) options.push_back(printable_line(o));
    auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(printable_line(s)); };
    return {{"record", "run"},
            {"schema", 1},
            {"convcheck_version", "0.1.0"},
            {"backend", printable_line(i.backend)},
            {"backend_version", printable_line(i.backend_version)},
            {"backend_path", printable_line(i.backend_path)},
            {"backend_options", options},
            {"suite", printable_line(i.suite)},
            {"suite_checksum", i.suite_checksum},
            {"cases_total", i.cases_total},
            {"mode_filter", text_or_null(i.mode_filter)},
            {"shard", i.shard},
            {"threads", i.threads},
            {"repeat", i.repeat},
            {"threads_sweep", i.threads_sweep.empty() ? json(nullptr) : json(i.threads_sweep)},
            {"dump_failures", text_or_null(i.dump_failures)},
            {"seed", i.seed},
            {"timeout_s", i.timeout_s},
            {"memory_limit_bytes", i.memory_limit_bytes},
            {"memory_limit_mechanism", i.memory_limit_mechanism},
            {"jobs", i.jobs},
            {"min_coverage", i.min_coverage.fraction},
            {"min_coverage_source", i.min_coverage.source},
            {"leak_check", i.leak_check},
            {"allow_unchecked", i.allow_unchecked},
            {"expectations_path", text_or_null(i.expectations_path)},
            {"expectations_checksum", text_or_null(i.expectations_checksum)},
            {"started", i.started},
            {"host", printable_line(i.host)},
            {"cpu_model", printable_line(i.cpu_model)},
            {"cpu_flags", i.cpu_flags},
            {"accumulation_dtype", i.accumulation_dtype}};
}

json features(const Case& c) { return operation(c.op).features(c); }

json case_record(const CaseResult& r, const std::string& backend) {
    json j = {{"record", "case"},
              {"backend", backend},
              {"suite", r.c.suite},
              {"case_id", r.c.id},
              {"op", operation(r.c.op).name},
              {"descriptor", r.c.descriptor()},
              {"seed", r.c.seed},
              {"mode", accuracy::to_string(r.c.mode)},
              {"status", to_string(r.status)},
              {"kind", to_string(r.kind)},
              {"reason", printable_line(r.reason)},
              {"features", features(r.c)},
              {"time_ms", r.time_ms},
              {"implementation", printable_line(r.implementation)},
              {"reproducer", printable_line(r.reproducer)}};
    if (!r.c.name.empty()) j["shape_name"] = r.c.name;
    if (r.pass_not_claimed) j["pass_not_claimed"] = true;
    if (!r.error_code.empty()) j["error_code"] = r.error_code;
    if (r.workspace_bytes) j["workspace_bytes"] = *r.workspace_bytes;
    if (r.workspace_used) j["workspace_used"] = *r.workspace_used;
    if (r.thread_pool_tasks > 0) j["thread_pool_tasks"] = r.thread_pool_tasks;
    if (r.requantization_fit) j["requantization_fit"] = *r.requantization_fit;
    for (const accuracy::ProfileVerdict& p : r.profiles)
        j["profiles"][std::string(accuracy::to_string(p.profile))] =
            p.applies ? json{{"passed", p.passed}, {"failing", p.failing}, {"worst_ratio", finite_or_null(p.worst_ratio)}}
                      : json{{"applies", false}};
    if (r.c.fill != accuracy::Fill::standard) j["fill"] = accuracy::to_string(r.c.fill);
    if (r.error) {
        const auto& c = r.error->comparison;
        json worst = {{"index", r.error->worst_coordinates},
                      {"got", finite_or_null(c.worst_got)},
                      {"want", finite_or_null(c.worst_want)},
                      {"bound", finite_or_null(c.worst_bound)}};
        j["error"] = {{"elements", c.elements},
                      {"mismatches", c.mismatches},
                      {"max_abs", finite_or_null(c.max_abs)},
                      {"max_bound_fraction", finite_or_null(c.max_bound_fraction)},
                      {"bound_fraction_histogram", c.bound_fraction_histogram},
                      {"worst", worst},
                      {"border_mismatches", r.error->border_mismatches},
                      {"interior_mismatches", r.error->interior_mismatches},
                      {"judged_by", c.statistics.judged_by},
                      {"bound_growth_needed", r.error->bound_growth_needed ? finite_or_null(*r.error->bound_growth_needed)
                                                                           : json(nullptr)},
                      {"statistics", statistics_record(c.statistics)}};
        if (const auto& p = r.error->probe)  // probe mode: elements and mismatches are sums over these runs
            j["error"]["probe"] = {{"runs", p->src_elements.size()},
                                   {"src_elements", p->src_elements},
                                   {"leaked", p->leaked},
                                   {"missing", p->missing},
                                   {"over_bound", p->over_bound},
                                   {"zero_sign", p->zero_sign},
                                   {"worst_src_element", p->worst_src_element < 0 ? json(nullptr) : json(p->worst_src_element)}};
    }
    if (!r.failure_bundle.empty()) j["failure_bundle"] = printable_line(r.failure_bundle);
    if (!r.shrunk_descriptor.empty()) {
        j["shrunk_descriptor"] = r.shrunk_descriptor;
        j["shrunk_reproducer"] = printable_line(r.shrunk_reproducer);
    }
    return j;
}

std::map<std::string, std::int64_t> count_statuses(const std::vector<json>& cases) {
    std::map<std::string, std::int64_t> counts;
    for (Status s : kAllStatuses) counts[to_string(s)] = 0;
    for (const json& c : cases) ++counts[c.value("status", "failed")];
    return counts;
}

RunSummary summarize(const std::string& backend, const std::vector<json>& cases, std::int64_t total,
                     const CoverageFloor& floor, bool allow_unchecked) {
    RunSummary s;
    s.backend = backend;
    s.counts = count_statuses(cases);
    s.coverage = coverage_of(cases, total);
    s.floor = floor;
    s.coverage_shortfall = coverage_shortfall(s.coverage, floor);
    s.allow_unchecked = allow_unchecked;
    bool failed = !s.coverage_shortfall.empty() || (!allow_unchecked && s.counts.at("unchecked") > 0);
    for (Status status : kAllStatuses)
        failed = failed || (is_failure(status) && s.counts.at(to_string(status)) > 0);
    s.exit_code = failed ? 1 : 0;
    return s;
}

json summary_record(const RunSummary& s) {
    json reasons = json::array();
    for (const auto& [reason, count] : s.coverage.decline_reasons) reasons.push_back({{"reason", reason}, {"count", count}});
    json j = {{"record", "summary"},
              {"backend", printable_line(s.backend)},
              {"counts", s.counts},
              {"total", s.coverage.total},
              {"executed", s.coverage.executed},
              {"declined", s.coverage.declined},
              {"pass_not_claimed", s.coverage.pass_not_claimed},
              {"refused", s.coverage.refused},
              {"not_run", s.coverage.not_run},
              {"coverage", s.coverage.fraction()},
              {"min_coverage", s.floor.fraction},
              {"min_coverage_source", s.floor.source},
              {"coverage_shortfall", s.coverage_shortfall.empty() ? json(nullptr) : json(s.coverage_shortfall)},
              {"decline_reasons", reasons},
              {"unchecked", s.counts.at("unchecked")},
              {"allow_unchecked", s.allow_unchecked},
              {"not_run_cases", s.not_run_cases},
              {"skipped_inputs", s.skipped_inputs},
              {"stopped", s.stopped.empty() ? json(nullptr) : json(printable_line(s.stopped))},
              {"seconds", s.seconds},
              {"exit_code", s.exit_code},
              {"complete", true}};
    if (!s.error.empty()) j["error"] = printable_line(s.error);
    return j;
}

std::string suite_checksum(const std::vector<Case>& cases) {
    std::string text;
    for (const Case& c : cases)
        text += c.id + " " + accuracy::to_string(c.mode) + " " + std::to_string(c.seed) + " " + c.descriptor() + "\n";
    return "sha256:" + vectors::sha256_hex(std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace convcheck::runner
