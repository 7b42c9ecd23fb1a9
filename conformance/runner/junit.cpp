#include "convcheck/runner/junit.hpp"

#include <sstream>

#include "convcheck/runner/printable.hpp"

namespace convcheck::runner {

using nlohmann::json;

namespace {

// Markup characters as entities; the text is printable_line()'s (valid UTF-8, no control character),
// so nothing else can break XML 1.0.
std::string xml_text(const std::string& s) {
    std::string o;
    for (char ch : printable_line(s)) {
        switch (ch) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            case '\'': o += "&apos;"; break;
            default: o += ch;
        }
    }
    return o;
}

// A testcase that did not run as one: the reason as a failure.
void failed_testcase(std::ostringstream& x, const std::string& classname, const std::string& name,
                     const std::string& type, const std::string& message) {
    x << "    <testcase classname=\"" << xml_text(classname) << "\" name=\"" << xml_text(name) << "\" time=\"0\">\n"
      << "      <failure type=\"" << type << "\" message=\"" << xml_text(message) << "\">" << xml_text(message)
      << "</failure>\n    </testcase>\n";
}

}  // namespace

std::string junit_xml(const json& run, const std::vector<json>& cases, const RunSummary& s) {
    const auto& counts = s.counts;
    const bool short_coverage = !s.coverage_shortfall.empty(), load_failed = !s.error.empty();
    const std::int64_t not_run = static_cast<std::int64_t>(s.not_run_cases.size());
    const std::int64_t tests = static_cast<std::int64_t>(cases.size()) + not_run + short_coverage + load_failed;
    // unchecked: a failure (not passed), or skipped where the user allowed it (--allow-unchecked), so
    // that JUnit and the exit code agree
    const std::int64_t unchecked = counts.at("unchecked");
    const std::int64_t failures = counts.at("failed") + counts.at("xpass") + short_coverage + load_failed +
                                  (s.allow_unchecked ? 0 : unchecked);
    const std::int64_t errors = counts.at("crashed") + counts.at("hanged");
    const std::int64_t skipped = counts.at("unsupported") + counts.at("xfail") + not_run + (s.allow_unchecked ? unchecked : 0);
    const std::string name = "convcheck." + run.value("backend", std::string("?")) + "." + run.value("suite", std::string("?"));
    std::ostringstream x;
    const std::string totals = "tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
                               "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
                               "\" time=\"" + std::to_string(s.seconds) + "\"";
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x << "<testsuites name=\"convcheck\" " << totals << ">\n";
    x << "  <testsuite name=\"" << xml_text(name) << "\" " << totals << ">\n";
    if (load_failed) failed_testcase(x, name, "plugin load and negotiation", "plugin_failed", s.error);
    for (const json& c : cases) {
        const std::string status = c.value("status", "failed");
        x << "    <testcase classname=\"" << xml_text(name) << "\" name=\""
          << xml_text(c.value("case_id", "?") + " " + c.value("mode", "?") + " " + c.value("descriptor", "?"))
          << "\" time=\"" << c.value("time_ms", 0.0) / 1000.0 << "\">";
        const std::string message = xml_text(c.value("reason", ""));
        const std::string body = xml_text(c.value("reproducer", ""));
        if (status == "failed" || status == "xpass" || (status == "unchecked" && !s.allow_unchecked))
            x << "\n      <failure type=\"" << xml_text(status) << "\" message=\"" << message << "\">" << body
              << "</failure>\n    ";
        else if (status == "crashed" || status == "hanged")
            x << "\n      <error type=\"" << xml_text(status) << "\" message=\"" << message << "\">" << body
              << "</error>\n    ";
        else if (status == "unsupported" || status == "xfail" || status == "unchecked")
            x << "\n      <skipped message=\""
              << xml_text((status == "unchecked" ? "unchecked (allowed by --allow-unchecked)" : status) + ": " +
                          c.value("reason", ""))
              << "\"/>\n    ";
        x << "</testcase>\n";
    }
    for (const json& c : s.not_run_cases)
        x << "    <testcase classname=\"" << xml_text(name) << "\" name=\""
          << xml_text(c.value("case_id", "?") + " " + c.value("mode", "?") + " " + c.value("descriptor", "?"))
          << "\" time=\"0\">\n      <skipped message=\"" << xml_text("not run: " + s.stopped) << "\"/>\n    </testcase>\n";
    if (short_coverage) failed_testcase(x, name, "coverage", "coverage", s.coverage_shortfall);
    x << "  </testsuite>\n</testsuites>\n";
    return x.str();
}

}  // namespace convcheck::runner
