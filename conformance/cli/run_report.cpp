// What `run` and `judge` report, alike (run_report.hpp).
#include "run_report.hpp"

#include <unistd.h>

#include <csignal>
#include <ctime>

#include "convcheck/runner/host_cpu.hpp"
#include "convcheck/runner/junit.hpp"
#include "convcheck/runner/terminal_summary.hpp"

namespace convcheck::cli {

using namespace convcheck::runner;

void describe_host(RunInfo& info) {
    const std::time_t t = std::time(nullptr);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    info.started = text;
    char name[256] = {0};
    gethostname(name, sizeof(name) - 1);
    info.host = name;
    info.cpu_model = host_cpu_model();
    for (const std::string& flag : host_cpu_flags()) info.cpu_flags += (info.cpu_flags.empty() ? "" : " ") + flag;
}

void report_case(const CaseResult& r, const std::string& backend, ResultFiles& files,
                 std::vector<nlohmann::json>& records, bool quiet) {
    records.push_back(case_record(r, backend));
    files.emit(records.back());
    if (!quiet && (is_failure(r.status) || r.status == Status::unchecked) && !isatty(2))
        std::fprintf(stderr, "%s %s: %s\n  %s\n", r.c.id.c_str(), to_string(r.status),
                     records.back().value("reason", "").c_str(), records.back().value("reproducer", "").c_str());
}

int finish_run(ResultFiles& files, std::FILE* terminal, const nlohmann::json& run_json,
               const std::vector<nlohmann::json>& records, const RunEnd& end) {
    const std::vector<Case>& mine = end.cases;
    RunSummary summary = summarize(end.backend, records, static_cast<std::int64_t>(mine.size()), end.min_coverage,
                                   end.allow_unchecked);
    summary.skipped_inputs = end.skipped_here;
    for (std::size_t i = records.size(); i < mine.size(); ++i)
        summary.not_run_cases.push_back(
            {{"case_id", mine[i].id}, {"mode", accuracy::to_string(mine[i].mode)}, {"descriptor", mine[i].descriptor()}});
    if (end.signal)
        summary.stopped = std::string("interrupted by ") + (end.signal == SIGINT ? "SIGINT" : "SIGTERM");
    else if (records.size() < mine.size() && !records.empty())
        summary.stopped = "--fail-fast: stopped after " + records.back().value("case_id", "?") + " " +
                          records.back().value("status", "?");
    if (end.signal) summary.exit_code = 128 + end.signal;
    summary.seconds = end.seconds;
    files.emit(summary_record(summary));
    files.write_junit(junit_xml(run_json, records, summary));
    if (end.quiet) std::fprintf(terminal, "%s\n", verdict_line(run_json, summary).c_str());
    else {
        print_summary(terminal, run_json, records, summary);
        print_skipped_inputs(terminal, end.skipped);
    }
    return summary.exit_code;
}

}  // namespace convcheck::cli
