#include "convcheck/runner/terminal_summary.hpp"

#include <algorithm>
#include <map>

#include "convcheck/runner/printable.hpp"

namespace convcheck::runner {

using nlohmann::json;

namespace {

std::string count_of(std::int64_t n, const char* what) { return std::to_string(n) + " " + what; }

void print_table(std::FILE* out, const std::vector<json>& cases, const RunSummary& s) {
    // counts by (rank, dtype) and status
    std::map<std::string, std::map<std::string, std::int64_t>> table;
    for (const json& c : cases) {
        const json& f = c.value("features", json::object());
        const std::string row = c.value("op", "conv") == "cc" ? "cc" :
            std::to_string(f.value("rank", 0)) + "-D " + f.value("dtype", "?");
        ++table[row][c.value("status", "failed")];
    }
    std::fprintf(out, "\n  %-10s", "cases");
    for (Status st : kAllStatuses) std::fprintf(out, " %11s", to_string(st));
    std::fprintf(out, "\n");
    for (const auto& [row, by_status] : table) {
        std::fprintf(out, "  %-10s", row.c_str());
        for (Status st : kAllStatuses) {
            const auto it = by_status.find(to_string(st));
            std::fprintf(out, " %11lld", static_cast<long long>(it == by_status.end() ? 0 : it->second));
        }
        std::fprintf(out, "\n");
    }
    std::fprintf(out, "  %-10s", "total");
    for (Status st : kAllStatuses) std::fprintf(out, " %11lld", static_cast<long long>(s.counts.at(to_string(st))));
    std::fprintf(out, "\n");
}

void print_coverage(std::FILE* out, const RunSummary& s, int max_reasons) {
    const Coverage& c = s.coverage;
    std::fprintf(out, "\n  %s, %s, %s%s of %s in this run: coverage %s (floor %s from %s)\n",
                 count_of(c.executed, "cases executed").c_str(), count_of(c.declined, "declined by the backend").c_str(),
                 c.refused ? (count_of(c.refused, "refused by the runner") + ", ").c_str() : "",
                 count_of(c.not_run, "not run").c_str(), count_of(c.total, "cases").c_str(), percent(c.fraction()).c_str(),
                 percent(s.floor.fraction).c_str(), s.floor.source.c_str());
    if (c.pass_not_claimed > 0)
        std::fprintf(out, "  %s of a pass the backend does not claim (prop_kinds): the floor applies to the other %s, "
                          "coverage %s of those\n",
                     count_of(c.pass_not_claimed, "declined cases are").c_str(), count_of(c.claimed(), "cases").c_str(),
                     percent(c.claimed_fraction()).c_str());
    const std::int64_t passed = s.counts.at("passed") + s.counts.at("xfail");
    const std::int64_t unchecked = s.counts.at("unchecked");
    if (c.executed > 0)
        std::fprintf(out, "  pass rate %s of the cases executed (%s, %s)\n", percent(double(passed) / double(c.executed)).c_str(),
                     count_of(s.counts.at("passed"), "passed").c_str(),
                     count_of(s.counts.at("xfail"), "failed as declared (xfail)").c_str());
    if (unchecked > 0)
        std::fprintf(out, "  %s: the per-output bound is vacuous there and the statistics cannot judge them; "
                          "not passed (status unchecked, error.judged_by \"unchecked\"): %s\n",
                     count_of(unchecked, "cases unchecked").c_str(),
                     s.allow_unchecked ? "allowed by --allow-unchecked" : "they fail the run unless --allow-unchecked");
    if (!c.decline_reasons.empty()) std::fprintf(out, "  why the backend declined (cases: reason):\n");
    int shown = 0;
    for (const auto& [reason, count] : c.decline_reasons) {
        if (shown++ == max_reasons) {
            std::fprintf(out, "    ... %zu more reasons (see the JSON summary's decline_reasons)\n",
                         c.decline_reasons.size() - static_cast<std::size_t>(max_reasons));
            break;
        }
        std::fprintf(out, "    %6lld: %s\n", static_cast<long long>(count), reason.c_str());
    }
}

// The cases whose status `which` selects, under `title`, each with its reason and reproducer.
void print_cases(std::FILE* out, const std::vector<json>& cases, const char* title, bool (*which)(Status),
                 int max_listed) {
    int listed = 0;
    for (const json& c : cases) {
        Status st;
        if (!parse_status(c.value("status", "failed"), &st) || !which(st)) continue;
        if (listed++ == 0) std::fprintf(out, "\n%s:\n", title);
        if (listed > max_listed) {
            std::fprintf(out, "  ... (see the JSON results for the rest)\n");
            break;
        }
        std::fprintf(out, "  %s %s [%s] %s\n    %s\n", c.value("case_id", "?").c_str(), c.value("status", "?").c_str(),
                     c.value("mode", "?").c_str(), printable_line(c.value("reason", "")).c_str(),
                     printable_line(c.value("reproducer", "")).c_str());
        if (c.contains("shrunk_reproducer"))
            std::fprintf(out, "    shrunk: %s\n", printable_line(c.value("shrunk_reproducer", "")).c_str());
    }
}

}  // namespace

std::string verdict_line(const json& run, const RunSummary& s) {
    const Coverage& c = s.coverage;
    std::int64_t failing = 0;
    for (Status st : kAllStatuses)
        if (is_failure(st)) failing += s.counts.at(to_string(st));
    std::string line = "convcheck: " + run.value("backend", std::string("?")) + " on " + run.value("suite", std::string("?")) +
                       " (shard " + run.value("shard", std::string("0/1")) + "): ";
    if (!s.error.empty()) return line + "did not run: " + s.error + "; exit code " + std::to_string(s.exit_code);
    line += count_of(c.executed, "cases executed") + ", " + count_of(c.declined, "declined") + ", " +
            (c.refused ? count_of(c.refused, "refused") + ", " : "") + count_of(c.not_run, "not run") + " of " +
            count_of(c.total, "cases") + " (coverage " + percent(c.fraction()) +
            (c.pass_not_claimed ? ", " + percent(c.claimed_fraction()) + " of the " + count_of(c.claimed(), "cases") +
                                      " of the passes it claims"
                                : "") +
            ", floor " + percent(s.floor.fraction) + "); ";
    const std::int64_t passed = s.counts.at("passed") + s.counts.at("xfail");
    const std::int64_t unchecked = s.counts.at("unchecked");
    if (c.executed > 0) line += "pass rate " + percent(double(passed) / double(c.executed)) + " of those executed, ";
    if (unchecked > 0)
        line += count_of(unchecked, "unchecked (vacuous bound, not passed") +
                (s.allow_unchecked ? "; allowed by --allow-unchecked), " : "), ");
    line += count_of(failing, failing == 1 ? "case failing" : "cases failing");
    if (!s.stopped.empty()) line += "; stopped early: " + s.stopped;
    if (!s.coverage_shortfall.empty()) line += "; FAILED: " + s.coverage_shortfall;
    return line + "; exit code " + std::to_string(s.exit_code);
}

// --profile: for each profile the cases judged, and where its rule and convcheck's verdict part: a false green
// passes the profile where convcheck fails the case, a false red fails it where convcheck passes it.
static void print_profiles(std::FILE* out, const std::vector<json>& cases) {
    struct Counts {
        long judged = 0, agree = 0, false_green = 0, false_red = 0, not_applicable = 0;
        std::string first_green, first_red;
    };
    std::vector<std::pair<std::string, Counts>> all;
    for (const json& c : cases) {
        if (!c.contains("profiles")) continue;
        const std::string status = c.value("status", "");
        const bool passed = status == "passed", failed = status == "failed";
        for (const auto& item : c["profiles"].items()) {
            const std::string name = item.key();  // a named copy: clang 14 captures no structured binding
            const json& v = item.value();
            auto it = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.first == name; });
            if (it == all.end()) all.emplace_back(name, Counts{}), it = all.end() - 1;
            Counts& n = it->second;
            if (!v.value("applies", true)) {
                ++n.not_applicable;
                continue;
            }
            if (!passed && !failed) continue;  // xfail, crashed, ...: no verdict of convcheck's to compare
            ++n.judged;
            const bool profile_passed = v.value("passed", false);
            if (profile_passed == passed) ++n.agree;
            else if (profile_passed) {
                if (n.false_green++ == 0) n.first_green = c.value("reproducer", "");
            } else if (n.false_red++ == 0) {
                n.first_red = c.value("reproducer", "");
            }
        }
    }
    if (all.empty()) return;
    std::fprintf(out, "\n  tolerance profiles (other suites' rules on the same outputs; docs/accuracy.md):\n");
    for (const auto& [name, n] : all) {
        std::fprintf(out, "    %-9s %ld judged: %ld agree with convcheck, %ld false green (pass the profile, fail convcheck), "
                          "%ld false red (fail the profile, pass convcheck)%s\n",
                     name.c_str(), n.judged, n.agree, n.false_green, n.false_red,
                     n.not_applicable ? (", " + std::to_string(n.not_applicable) + " where it has no rule").c_str() : "");
        if (!n.first_green.empty()) std::fprintf(out, "      first false green: %s\n", n.first_green.c_str());
        if (!n.first_red.empty()) std::fprintf(out, "      first false red: %s\n", n.first_red.c_str());
    }
}

void print_summary(std::FILE* out, const json& run, const std::vector<json>& cases, const RunSummary& s,
                   int max_failures_listed, int max_reasons) {
    std::fprintf(out, "\nconvcheck: backend %s %s, suite %s, shard %s, %zu cases in %.1f s\n",
                 run.value("backend", "?").c_str(), run.value("backend_version", "").c_str(),
                 run.value("suite", "?").c_str(), run.value("shard", "0/1").c_str(), cases.size(), s.seconds);
    print_table(out, cases, s);
    print_coverage(out, s, max_reasons);
    print_cases(out, cases, "failures", is_failure, max_failures_listed);
    print_cases(out, cases, "unchecked", [](Status st) { return st == Status::unchecked; }, max_failures_listed);
    print_profiles(out, cases);
    if (!s.stopped.empty())
        std::fprintf(out, "\nstopped early: %s; %s did not run\n", s.stopped.c_str(),
                     count_of(s.coverage.not_run, "cases").c_str());
    std::fprintf(out, "\n%s\n", verdict_line(run, s).c_str());
}

}  // namespace convcheck::runner
