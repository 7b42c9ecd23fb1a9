#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace convcheck::runner {

using nlohmann::json;

namespace {

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string padding_kind(const ConvDescriptor& d) {
    bool any = false, negative = false, asymmetric = false;
    for (int a = 0; a < d.rank; ++a) {
        any = any || d.pads_begin[a] != 0 || d.pads_end[a] != 0;
        negative = negative || d.pads_begin[a] < 0 || d.pads_end[a] < 0;
        asymmetric = asymmetric || d.pads_begin[a] != d.pads_end[a];
    }
    return !any ? "none" : negative ? "negative" : asymmetric ? "asymmetric" : "symmetric";
}

}  // namespace

json run_record(const RunInfo& i) {
    return {{"record", "run"},        {"schema", 1},
            {"convcheck_version", "0.1.0"}, {"backend", i.backend},
            {"backend_version", i.backend_version}, {"backend_path", i.backend_path},
            {"suite", i.suite},       {"shard", i.shard},
            {"threads", i.threads},   {"seed", i.seed},
            {"started", i.started},   {"host", i.host},
            {"accumulation_dtype", i.accumulation_dtype}};
}

json features(const Case& c) {
    if (c.op == Op::cc)
        return {{"rank", 2}, {"groups", false}, {"depthwise", false}, {"dilation", false}, {"strided", false},
                {"padding", "none"}, {"data_format", "ncx"}, {"filter_format", nullptr}, {"dtype", "f32"},
                {"bias", c.cc.find("bias=1") != std::string::npos},
                {"dialect", c.dialect.empty() ? json(nullptr) : json(c.dialect)}, {"cc", true}};
    const ConvDescriptor& d = c.conv;
    bool dilation = false, strided = false;
    for (int a = 0; a < d.rank; ++a) {
        dilation = dilation || d.dilations[a] > 1;
        strided = strided || d.strides[a] > 1;
    }
    return {{"rank", d.rank},
            {"groups", d.groups > 1},
            {"depthwise", d.groups > 1 && d.groups == d.in_channels},
            {"dilation", dilation},
            {"strided", strided},
            {"padding", c.padding.empty() ? padding_kind(d) : c.padding},
            {"data_format", std::string(to_string(d.data_format))},
            {"filter_format", std::string(to_string(d.filter_format))},
            {"dtype", std::string(to_string(d.dtype))},
            {"bias", d.has_bias},
            {"dialect", c.dialect.empty() ? json(nullptr) : json(c.dialect)},
            {"cc", false}};
}

json case_record(const CaseResult& r, const std::string& backend) {
    json j = {{"record", "case"},
              {"backend", backend},
              {"suite", r.c.suite},
              {"case_id", r.c.id},
              {"op", r.c.op == Op::conv ? "conv" : "cc"},
              {"descriptor", r.c.descriptor()},
              {"seed", r.c.seed},
              {"mode", accuracy::to_string(r.c.mode)},
              {"status", to_string(r.status)},
              {"reason", r.reason},
              {"features", features(r.c)},
              {"time_ms", r.time_ms},
              {"implementation", r.implementation},
              {"reproducer", r.reproducer}};
    if (!r.c.name.empty()) j["shape_name"] = r.c.name;
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
                      {"interior_mismatches", r.error->interior_mismatches}};
    }
    if (!r.shrunk_descriptor.empty()) {
        j["shrunk_descriptor"] = r.shrunk_descriptor;
        j["shrunk_reproducer"] = r.shrunk_reproducer;
    }
    return j;
}

json summary_record(const std::string& backend, const std::map<std::string, std::int64_t>& counts, double seconds,
                    int exit_code) {
    return {{"record", "summary"}, {"backend", backend}, {"counts", counts}, {"seconds", seconds},
            {"exit_code", exit_code}};
}

std::map<std::string, std::int64_t> count_statuses(const std::vector<json>& cases) {
    std::map<std::string, std::int64_t> counts;
    for (Status s : kAllStatuses) counts[to_string(s)] = 0;
    for (const json& c : cases) ++counts[c.value("status", "failed")];
    return counts;
}

int exit_code_for(const std::map<std::string, std::int64_t>& counts) {
    for (Status s : kAllStatuses)
        if (is_failure(s) && counts.count(to_string(s)) && counts.at(to_string(s)) > 0) return 1;
    return 0;
}

void print_summary(std::FILE* out, const json& run, const std::vector<json>& cases, double seconds,
                   int max_failures_listed) {
    const auto counts = count_statuses(cases);
    std::fprintf(out, "\nconvcheck: backend %s %s, suite %s, shard %s, %zu cases in %.1f s\n",
                 run.value("backend", "?").c_str(), run.value("backend_version", "").c_str(),
                 run.value("suite", "?").c_str(), run.value("shard", "0/1").c_str(), cases.size(), seconds);
    // counts by (rank, dtype) and status
    std::map<std::string, std::map<std::string, std::int64_t>> table;
    for (const json& c : cases) {
        const json& f = c.value("features", json::object());
        const std::string row = c.value("op", "conv") == "cc" ? "cc" :
            std::to_string(f.value("rank", 0)) + "-D " + f.value("dtype", "?");
        ++table[row][c.value("status", "failed")];
    }
    std::fprintf(out, "\n  %-10s", "");
    for (Status s : kAllStatuses) std::fprintf(out, " %11s", to_string(s));
    std::fprintf(out, "\n");
    for (const auto& [row, by_status] : table) {
        std::fprintf(out, "  %-10s", row.c_str());
        for (Status s : kAllStatuses) {
            const auto it = by_status.find(to_string(s));
            std::fprintf(out, " %11lld", static_cast<long long>(it == by_status.end() ? 0 : it->second));
        }
        std::fprintf(out, "\n");
    }
    std::fprintf(out, "  %-10s", "total");
    for (Status s : kAllStatuses) std::fprintf(out, " %11lld", static_cast<long long>(counts.at(to_string(s))));
    std::fprintf(out, "\n");
    int listed = 0;
    for (const json& c : cases) {
        Status s;
        if (!parse_status(c.value("status", "failed"), &s) || !is_failure(s)) continue;
        if (listed++ == 0) std::fprintf(out, "\nfailures:\n");
        if (listed > max_failures_listed) {
            std::fprintf(out, "  ... (see the JSON results for the rest)\n");
            break;
        }
        std::fprintf(out, "  %s %s [%s] %s\n    %s\n", c.value("case_id", "?").c_str(), c.value("status", "?").c_str(),
                     c.value("mode", "?").c_str(), c.value("reason", "").c_str(), c.value("reproducer", "").c_str());
        if (c.contains("shrunk_reproducer"))
            std::fprintf(out, "    shrunk: %s\n", c["shrunk_reproducer"].get<std::string>().c_str());
    }
    std::fprintf(out, "\n");
}

namespace {
std::string xml_escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        switch (ch) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            case '\'': o += "&apos;"; break;
            default:
                if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') o += ' ';
                else o += ch;
        }
    }
    return o;
}
}  // namespace

std::string junit_xml(const json& run, const std::vector<json>& cases, double seconds) {
    const auto counts = count_statuses(cases);
    const std::int64_t failures = counts.at("failed") + counts.at("xpass");
    const std::int64_t errors = counts.at("crashed") + counts.at("hanged");
    const std::int64_t skipped = counts.at("unsupported") + counts.at("xfail");
    const std::string name = "convcheck." + run.value("backend", std::string("?")) + "." + run.value("suite", std::string("?"));
    std::ostringstream x;
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x << "<testsuites name=\"convcheck\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\" time=\"" << seconds << "\">\n";
    x << "  <testsuite name=\"" << xml_escape(name) << "\" tests=\"" << cases.size() << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\"" << seconds << "\">\n";
    for (const json& c : cases) {
        const std::string status = c.value("status", "failed");
        x << "    <testcase classname=\"" << xml_escape(name) << "\" name=\""
          << xml_escape(c.value("case_id", "?") + " " + c.value("mode", "?") + " " + c.value("descriptor", "?"))
          << "\" time=\"" << c.value("time_ms", 0.0) / 1000.0 << "\">";
        const std::string message = xml_escape(c.value("reason", ""));
        const std::string body = xml_escape(c.value("reproducer", ""));
        if (status == "failed" || status == "xpass")
            x << "\n      <failure type=\"" << status << "\" message=\"" << message << "\">" << body << "</failure>\n    ";
        else if (status == "crashed" || status == "hanged")
            x << "\n      <error type=\"" << status << "\" message=\"" << message << "\">" << body << "</error>\n    ";
        else if (status == "unsupported" || status == "xfail")
            x << "\n      <skipped message=\"" << xml_escape(status + ": " + c.value("reason", "")) << "\"/>\n    ";
        x << "</testcase>\n";
    }
    x << "  </testsuite>\n</testsuites>\n";
    return x.str();
}

Progress::Progress(std::int64_t total, bool enabled) : total_(total), enabled_(enabled) {}

void Progress::update(std::int64_t done, const std::map<std::string, std::int64_t>& counts) {
    if (!enabled_ || total_ <= 0) return;
    const int width = 30;
    const int filled = static_cast<int>(width * done / total_);
    std::int64_t bad = 0;
    for (Status s : kAllStatuses)
        if (is_failure(s) && counts.count(to_string(s))) bad += counts.at(to_string(s));
    std::fprintf(stderr, "\r[%s%s] %lld/%lld  failing %lld ", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), static_cast<long long>(done), static_cast<long long>(total_),
                 static_cast<long long>(bad));
    std::fflush(stderr);
}

void Progress::finish() {
    if (enabled_) std::fprintf(stderr, "\r%60s\r", "");
}

}  // namespace convcheck::runner
