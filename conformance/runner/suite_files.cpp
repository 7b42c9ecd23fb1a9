// Case files. A JSON case file is an array of entries, or {"cases": [...]}, or JSON lines (a results
// file of `convcheck run --json`: its "case" records are re-run with their own seeds and modes):
//   {"descriptor": "conv:c=3,o=8,in=12x10,k=3x3", "modes": "be", "name": "mine/1", "seed": 7}
// ("mode": "exact" may replace "modes"; "fill": "ties" names a special exact-mode fill). A ".cases" file is a
// case list (formats/include/convcheck/formats/case_list.hpp, the built-in lists' format), a ".onnx" file an ONNX model (suite_onnx.hpp);
// anything else is read as a benchdnn batch file.
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "convcheck/formats/case_list.hpp"
#include "convcheck/runner/suite_onnx.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

namespace {

using nlohmann::json;

[[noreturn]] void bad_entry(const std::string& where, const std::string& key, const json& value, const std::string& rule) {
    throw std::invalid_argument(where + ": \"" + key + "\" is " + value.dump() + ": " + rule);
}

SuiteEntry entry_from_json(const json& x, const std::string& where) {
    if (!x.is_object() || !x.contains("descriptor") || !x["descriptor"].is_string())
        throw std::invalid_argument(where + ": a case needs a \"descriptor\" string");
    SuiteEntry e;
    e.descriptor = x["descriptor"].get<std::string>();
    if (x.contains("modes")) {
        if (!x["modes"].is_string()) bad_entry(where, "modes", x["modes"], "must be a string of mode letters (b, e, p, s, r, i, l)");
        e.modes = x["modes"].get<std::string>();
    }
    if (x.contains("mode")) {
        const char* rule = "must be \"exact\", \"bound\", \"probe\", \"stress\", \"precision\", \"invalid\" or \"sampled\"";
        if (!x["mode"].is_string()) bad_entry(where, "mode", x["mode"], rule);
        accuracy::Mode mode;
        if (!accuracy::parse_mode_name(x["mode"].get<std::string>(), &mode)) bad_entry(where, "mode", x["mode"], rule);
        e.modes = std::string(1, accuracy::mode_letter(mode));
    }
    if (x.contains("name") && x["name"].is_string()) e.name = x["name"].get<std::string>();
    if (x.contains("fill") && (!x["fill"].is_string() || !accuracy::parse_fill(x["fill"].get<std::string>(), &e.fill)))
        bad_entry(where, "fill", x["fill"], "must be \"standard\", \"ties\", \"overflow\" or \"subnormal\"");
    if (x.contains("dialect") && x["dialect"].is_string()) e.dialect = x["dialect"].get<std::string>();
    if (x.contains("seed")) {
        // an integer JSON number in [0, 2^64); a float or a negative number is refused, never converted
        if (!x["seed"].is_number_unsigned()) bad_entry(where, "seed", x["seed"], "must be an integer in [0, 2^64)");
        e.seed = x["seed"].get<std::uint64_t>();
    }
    if (x.contains("features") && x["features"].is_object() && x["features"].contains("dialect") &&
        x["features"]["dialect"].is_string())
        e.dialect = x["features"]["dialect"].get<std::string>();
    return e;
}

std::vector<SuiteEntry> json_entries(const std::string& path, const std::string& text) {
    std::vector<SuiteEntry> entries;
    json j;
    try {
        j = json::parse(text);
    } catch (const json::out_of_range& e) {  // e.g. a number beyond double: not a JSON-lines question
        throw std::invalid_argument(path + ": not JSON: " + e.what());
    } catch (const json::parse_error&) {
        // JSON lines: one object per line; only "case" records (or plain entries) are cases
        std::istringstream lines(text);
        int n = 0;
        for (std::string line; std::getline(lines, line);) {
            ++n;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            json x;
            try {
                x = json::parse(line);
            } catch (const json::exception& e) {  // parse_error, or out_of_range for a number beyond double
                throw std::invalid_argument(path + ":" + std::to_string(n) + ": not JSON: " + e.what());
            }
            if (x.contains("record") && x["record"] != "case") continue;
            entries.push_back(entry_from_json(x, path + ":" + std::to_string(n)));
        }
        return entries;
    }
    const json& list = j.is_object() && j.contains("cases") ? j["cases"] : j;
    if (!list.is_array()) throw std::invalid_argument(path + ": expected an array of cases or {\"cases\": [...]}");
    for (std::size_t i = 0; i < list.size(); ++i)
        entries.push_back(entry_from_json(list[i], path + ": case " + std::to_string(i)));
    return entries;
}

}  // namespace

std::vector<SuiteEntry> case_list_entries(const std::string& path, const std::string& text) {
    std::vector<SuiteEntry> entries;
    for (const formats::CaseListEntry& x : formats::read_case_list(path, text)) {
        SuiteEntry e(x.descriptor, x.modes, x.name);
        if (!x.fill.empty() && !accuracy::parse_fill(x.fill, &e.fill))
            throw std::invalid_argument(x.where + ": fill '" + x.fill +
                                        "': must be standard, ties, overflow or subnormal");
        e.seed = x.seed;
        entries.push_back(std::move(e));
    }
    return entries;
}

std::vector<SuiteEntry> benchdnn_entries(const std::string& path, const std::string& text,
                                         std::vector<SkippedInput>* skipped, BenchdnnDriver driver,
                                         BenchdnnVersion version);

void refuse_unused_benchdnn_driver(const SuiteReadOptions& read, const std::string& source, const std::string& what) {
    if (read.benchdnn_driver != BenchdnnDriver::conv)
        throw std::invalid_argument(std::string("--benchdnn-driver ") + benchdnn_driver_name(read.benchdnn_driver) +
                                    ": " + source + " is " + what + ", not a benchdnn batch file");
    if (read.benchdnn_version != BenchdnnVersion::current)
        throw std::invalid_argument(std::string("--benchdnn-version ") + benchdnn_version_name(read.benchdnn_version) +
                                    ": " + source + " is " + what + ", not a benchdnn batch file");
}

std::vector<SuiteEntry> suite_entries_from_text(const std::string& path, const std::string& text,
                                                std::vector<SkippedInput>* skipped, const SuiteReadOptions& read) {
    const bool benchdnn = !path.ends_with(".json") && !path.ends_with(".jsonl") && !path.ends_with(".cases");
    if (!benchdnn) refuse_unused_benchdnn_driver(read, "'" + path + "'", "a case file");
    if (path.ends_with(".json") || path.ends_with(".jsonl")) return json_entries(path, text);
    if (path.ends_with(".cases")) return case_list_entries(path, text);
    return benchdnn_entries(path, text, skipped, read.benchdnn_driver, read.benchdnn_version);
}

std::vector<SuiteEntry> file_suite_entries(const std::string& path, std::vector<SkippedInput>* skipped,
                                           const SuiteReadOptions& read) {
    if (path.ends_with(".onnx")) refuse_unused_benchdnn_driver(read, "'" + path + "'", "an ONNX model");
    if (path.ends_with(".onnx")) {  // an ONNX model: its convolution nodes (suite_onnx.hpp)
        OnnxModelSuite model = onnx_model_suite(path);
        if (!model.skipped.empty() && !skipped)
            throw std::invalid_argument(path + ": " + model.skipped.front().source + ": " + model.skipped.front().reason);
        if (skipped) skipped->insert(skipped->end(), model.skipped.begin(), model.skipped.end());
        return std::move(model.entries);
    }
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("cannot read the case file '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    return suite_entries_from_text(path, text.str(), skipped, read);
}

}  // namespace convcheck::runner
