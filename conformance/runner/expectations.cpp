#include "convcheck/runner/expectations.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <span>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "convcheck/runner/host_cpu.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/formats/sha256.hpp"

#ifndef CONVCHECK_SOURCE_DATA_DIR
#define CONVCHECK_SOURCE_DATA_DIR ""
#endif

namespace convcheck::runner {

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& origin, const std::string& where, const std::string& rule) {
    throw std::invalid_argument(origin + ": " + where + ": " + rule);
}

// A coverage floor at `where`: a fraction of the cases, not a percentage (a JSON number is finite).
double fraction(const json& m, const std::string& origin, const std::string& where) {
    if (!m.is_number() || m.get<double>() < 0.0 || m.get<double>() > 1.0)
        bad(origin, where, m.dump() + " is not a fraction in [0, 1] (0.9: nine cases in ten)");
    return m.get<double>();
}

bool is_dtype_name(const std::string& t) { return t == "f32" || t == "f16" || t == "bf16" || t == "f64"; }

std::string scalar_text(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
    return v.dump();
}

// "conv:n=1,c=2,..." -> {"n": "1", "c": "2", ...}
std::map<std::string, std::string> descriptor_keys(const std::string& text) {
    std::map<std::string, std::string> keys;
    std::string body = text.substr(text.find(':') == std::string::npos ? 0 : text.find(':') + 1);
    std::stringstream items(body);
    for (std::string item; std::getline(items, item, ',');) {
        const auto eq = item.find('=');
        if (eq != std::string::npos) keys[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return keys;
}

// "bound": {"kind": ..., "reason": ...}, "input_precision": {"dtype": ..., "reason": ...} and
// "bias": {"added": ..., "reason": ...}, "fp8_conversion": {"overflow": ..., "reason": ...} and
// "post_op_signed_zero": {"relu": ..., "reason": ...}: the
// value must be one of `allowed`, the reason non-empty, and nothing else may be in the object.
DeclaredSlack slack(const json& v, const std::string& origin, const std::string& where, const std::string& key,
                    const std::vector<std::string>& allowed, const std::string& what) {
    std::string choices;
    for (const std::string& a : allowed) choices += (choices.empty() ? "" : ", ") + a;
    if (!v.is_object())
        bad(origin, where, "must be an object {\"" + key + "\": " + choices + ", \"reason\": \"why\"}");
    for (const auto& [name, value] : v.items())
        if (name != key && name != "reason")
            bad(origin, where + "." + name, "is not a key of this declaration (it has \"" + key + "\" and \"reason\")");
    if (!v.contains(key) || !v[key].is_string())
        bad(origin, where + "." + key, "is required: " + what + ", one of " + choices);
    DeclaredSlack d;
    d.value = v[key].get<std::string>();
    if (std::find(allowed.begin(), allowed.end(), d.value) == allowed.end())
        bad(origin, where + "." + key, "'" + d.value + "' is not one of " + choices);
    if (!v.contains("reason") || !v["reason"].is_string() || v["reason"].get<std::string>().empty())
        bad(origin, where + ".reason", "a non-empty reason is required: a declaration says why, with what was measured");
    d.reason = v["reason"].get<std::string>();
    return d;
}

// "post_op_nan": {"clip": ..., "relu": ..., "max": ..., "min": ..., "reason": ...}: each key one of its policy's
// names, at least one of them, a non-empty reason, nothing else.
PostOpNanPolicy post_op_nan(const json& v, const std::string& origin, const std::string& where) {
    const std::string shape = "must be an object {\"clip\": propagate | to_lower_bound | to_upper_bound, \"relu\": "
                              "propagate | to_zero, \"max\": propagate | number, \"min\": propagate | number, "
                              "\"reason\": \"what was measured\"}";
    if (!v.is_object()) bad(origin, where, shape);
    PostOpNanPolicy p;
    int ops = 0;
    for (const auto& [name, value] : v.items()) {
        if (name == "reason") continue;
        const std::string at = where + "." + name;
        if (name != "clip" && name != "relu" && name != "max" && name != "min")
            bad(origin, at, "is not a key of this declaration (it has \"clip\", \"relu\", \"max\", \"min\" and \"reason\")");
        const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
        const bool ok = name == "clip"   ? parse_clip_nan(text, &p.clip)
                        : name == "relu" ? parse_relu_nan(text, &p.relu)
                        : name == "max"  ? parse_min_max_nan(text, &p.max)
                                         : parse_min_max_nan(text, &p.min);
        if (!value.is_string() || !ok)
            bad(origin, at, "'" + text + "' is not one of " +
                                (name == "clip"   ? "propagate, to_lower_bound, to_upper_bound"
                                 : name == "relu" ? "propagate, to_zero"
                                                  : "propagate, number"));
        ++ops;
    }
    if (ops == 0) bad(origin, where, "names no op: " + shape);
    if (!v.contains("reason") || !v["reason"].is_string() || v["reason"].get<std::string>().empty())
        bad(origin, where + ".reason", "a non-empty reason is required: what was measured, and how");
    return p;
}

}  // namespace

Expectations Expectations::load(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("cannot read the expectations file '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    const std::string bytes = text.str();
    Expectations e = parse(bytes, path);
    e.checksum_ = "sha256:" + vectors::sha256_hex(std::as_bytes(std::span(bytes.data(), bytes.size())));
    return e;
}

Expectations Expectations::parse(const std::string& text, const std::string& origin) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a number beyond double
        bad(origin, "JSON", e.what());
    }
    if (!j.is_object() || !j.contains("backends") || !j["backends"].is_object())
        bad(origin, "top level", "must be an object with a \"backends\" object");
    Expectations e;
    e.origin_ = origin;
    for (const auto& [name, entry] : j["backends"].items()) {
        const std::string where = "backends." + name;
        if (!entry.is_object()) bad(origin, where, "must be an object");
        BackendDeclaration decl;
        if (entry.contains("accumulation")) {
            const json& a = entry["accumulation"];
            if (a.is_string()) decl.accumulation["*"] = a.get<std::string>();
            else if (a.is_object())
                for (const auto& [dtype, acc] : a.items()) decl.accumulation[dtype] = scalar_text(acc);
            else bad(origin, where + ".accumulation", "must be a dtype name or an object {output dtype: dtype}");
            for (const auto& [dtype, acc] : decl.accumulation)
                if (!is_dtype_name(acc))
                    bad(origin, where + ".accumulation." + dtype, "'" + acc + "' is not one of f32, f16, bf16, f64");
        }
        if (entry.contains("accumulation_on_cpu")) {
            const json& list = entry["accumulation_on_cpu"];
            if (!list.is_array()) bad(origin, where + ".accumulation_on_cpu", "must be an array");
            int i = 0;
            for (const json& x : list) {
                const std::string at = where + ".accumulation_on_cpu[" + std::to_string(i++) + "]";
                if (!x.is_object() || !x.contains("cpu") || !x["cpu"].is_string() || !x.contains("accumulation") ||
                    !x["accumulation"].is_object())
                    bad(origin, at, "must be an object with a \"cpu\" condition and an \"accumulation\" object");
                if (!x.contains("reason") || !x["reason"].is_string() || x["reason"].get<std::string>().empty())
                    bad(origin, at, "needs a non-empty \"reason\": what was measured on which CPU");
                AccumulationOnCpu a{x["cpu"].get<std::string>(), x["reason"].get<std::string>(), {}};
                std::string error;
                cpu_condition_holds(a.cpu, {}, &error);
                if (!error.empty()) bad(origin, at + ".cpu", error);
                for (const auto& [dtype, acc] : x["accumulation"].items()) {
                    a.accumulation[dtype] = scalar_text(acc);
                    if (!is_dtype_name(a.accumulation[dtype]))
                        bad(origin, at + ".accumulation." + dtype,
                            "'" + a.accumulation[dtype] + "' is not one of f32, f16, bf16, f64");
                }
                decl.accumulation_on_cpu.push_back(std::move(a));
            }
        }
        if (entry.contains("min_coverage")) decl.min_coverage = fraction(entry["min_coverage"], origin, where + ".min_coverage");
        if (entry.contains("min_coverage_on_cpu")) {
            const json& list = entry["min_coverage_on_cpu"];
            if (!list.is_array()) bad(origin, where + ".min_coverage_on_cpu", "must be an array");
            std::size_t i = 0;
            for (const json& x : list) {
                const std::string at = where + ".min_coverage_on_cpu[" + std::to_string(i++) + "]";
                if (!x.is_object() || !x.contains("cpu") || !x["cpu"].is_string() || !x.contains("min_coverage"))
                    bad(origin, at, "must be an object with a \"cpu\" condition and a \"min_coverage\" fraction");
                const double m = fraction(x["min_coverage"], origin, at + ".min_coverage");
                if (!x.contains("reason") || !x["reason"].is_string() || x["reason"].get<std::string>().empty())
                    bad(origin, at, "needs a non-empty \"reason\": what the library lacks on that CPU, as measured");
                CoverageOnCpu c{x["cpu"].get<std::string>(), x["reason"].get<std::string>(), m};
                std::string error;
                cpu_condition_holds(c.cpu, {}, &error);
                if (!error.empty()) bad(origin, at + ".cpu", error);
                decl.min_coverage_on_cpu.push_back(std::move(c));
            }
        }
        if (entry.contains("min_coverage_suites")) {
            const json& suites = entry["min_coverage_suites"];
            if (!suites.is_object())
                bad(origin, where + ".min_coverage_suites", suites.dump() + " is not an object of suite names and fractions");
            for (const auto& [suite, m] : suites.items())
                decl.min_coverage_suites[suite] = fraction(m, origin, where + ".min_coverage_suites." + suite);
        }
        if (entry.contains("bound"))
            decl.bound = slack(entry["bound"], origin, where + ".bound", "kind", {"whole_tensor"},
                               "the bound the backend's algorithm needs (per_output, the default, needs no declaration)");
        if (entry.contains("input_precision"))
            decl.input_precision = slack(entry["input_precision"], origin, where + ".input_precision", "dtype",
                                         {"tf32", "bf16"}, "the precision src and weights are rounded to before multiplying");
        if (entry.contains("bias"))
            decl.bias = slack(entry["bias"], origin, where + ".bias", "added", {"after_output_rounding"},
                              "when the bias is added (with the sum, before one rounding to dst, needs no declaration)");
        if (entry.contains("fp8_conversion"))
            decl.fp8_conversion = slack(entry["fp8_conversion"], origin, where + ".fp8_conversion", "overflow",
                                        {"saturating", "non_saturating"},
                                        "what an fp8 output past the largest normal becomes (OCP's two modes: "
                                        "non_saturating, the default, gives e4m3's NaN and e5m2's infinity; "
                                        "saturating the largest normal)");
        if (entry.contains("post_op_nan")) {
            decl.post_op_nan = post_op_nan(entry["post_op_nan"], origin, where + ".post_op_nan");
            decl.post_op_nan_reason = entry["post_op_nan"]["reason"].get<std::string>();
        }
        if (entry.contains("post_op_signed_zero"))
            decl.post_op_signed_zero = slack(entry["post_op_signed_zero"], origin, where + ".post_op_signed_zero", "relu",
                                             {"minus_zero", "plus_zero"},
                                             "the sign of what relu (alpha 0) makes of a negative value: minus_zero, "
                                             "the default, is the formula's alpha s; plus_zero is MAXPS(s, 0)'s");
        if (entry.contains("nondeterministic")) {
            const json& n = entry["nondeterministic"];
            const std::string at = where + ".nondeterministic";
            if (!n.is_object()) bad(origin, at, "must be an object {\"reason\": \"...\"}");
            for (const auto& [key, value] : n.items())
                if (key != "reason") bad(origin, at + "." + key, "is not a key of it (it has only \"reason\")");
            if (!n.contains("reason") || !n["reason"].is_string() || n["reason"].get<std::string>().empty())
                bad(origin, at, "needs a non-empty \"reason\": a declared nondeterminism says why, with its evidence");
            decl.nondeterministic = n["reason"].get<std::string>();
        }
        if (entry.contains("expected_failures")) {
            if (!entry["expected_failures"].is_array()) bad(origin, where + ".expected_failures", "must be an array");
            int i = 0;
            for (const json& x : entry["expected_failures"]) {
                const std::string at = where + ".expected_failures[" + std::to_string(i++) + "]";
                if (!x.is_object() || !x.contains("match") || !x["match"].is_object())
                    bad(origin, at, "must be an object with a \"match\" object");
                if (!x.contains("reason") || !x["reason"].is_string() || x["reason"].get<std::string>().empty())
                    bad(origin, at, "needs a non-empty \"reason\": an expected failure says why");
                ExpectedFailure f;
                f.reason = x["reason"].get<std::string>();
                if (x.contains("may_pass")) {
                    if (!x["may_pass"].is_boolean()) bad(origin, at + ".may_pass", "must be true or false");
                    f.may_pass = x["may_pass"].get<bool>();
                }
                for (const auto& [key, value] : x["match"].items()) f.match[key] = scalar_text(value);
                if (f.match.count("descriptor_regex")) {
                    try {
                        std::regex check(f.match["descriptor_regex"]);
                    } catch (const std::regex_error& err) {
                        bad(origin, at + ".match.descriptor_regex", std::string("not a valid regex: ") + err.what());
                    }
                }
                if (f.match.count("cpu")) {
                    std::string error;
                    cpu_condition_holds(f.match["cpu"], {}, &error);
                    if (!error.empty()) bad(origin, at + ".match.cpu", error);
                }
                if (f.match.count("status")) {
                    Status s;
                    if (!parse_status(f.match["status"], &s) || !is_failure(s) || s == Status::xpass)
                        bad(origin, at + ".match.status", "must be failed, crashed or hanged");
                }
                decl.expected_failures.push_back(std::move(f));
            }
        }
        e.backends_[name] = std::move(decl);
    }
    return e;
}

std::optional<std::string> Expectations::accumulation(const std::string& backend, const std::string& dtype,
                                                      bool any_dtype) const {
    const auto it = backends_.find(backend);
    if (it == backends_.end()) return std::nullopt;
    // the entry for this output dtype, else for all ('*')
    auto lookup = [&](const std::map<std::string, std::string>& by_dtype) -> std::optional<std::string> {
        for (const std::string& key : {dtype, any_dtype ? std::string("*") : dtype})
            if (const auto a = by_dtype.find(key); a != by_dtype.end()) return a->second;
        return std::nullopt;
    };
    for (const AccumulationOnCpu& on : it->second.accumulation_on_cpu)
        if (cpu_holds(on.cpu))
            if (auto a = lookup(on.accumulation)) return a;
    return lookup(it->second.accumulation);
}

const BackendDeclaration* Expectations::declaration(const std::string& backend) const {
    const auto it = backends_.find(backend);
    return it == backends_.end() ? nullptr : &it->second;
}

std::optional<CoverageFloor> Expectations::min_coverage(const std::string& backend, const std::string& suite) const {
    const auto it = backends_.find(backend);
    if (it == backends_.end()) return std::nullopt;
    if (const auto own = it->second.min_coverage_suites.find(suite); own != it->second.min_coverage_suites.end())
        return CoverageFloor{own->second, origin_ + " (backends." + backend + ".min_coverage_suites." + suite + ")"};
    for (std::size_t i = 0; i < it->second.min_coverage_on_cpu.size(); ++i)
        if (const CoverageOnCpu& on = it->second.min_coverage_on_cpu[i]; cpu_holds(on.cpu))
            return CoverageFloor{on.min_coverage, origin_ + " (backends." + backend + ".min_coverage_on_cpu[" +
                                                      std::to_string(i) + "], cpu " + on.cpu + ")"};
    if (!it->second.min_coverage) return std::nullopt;
    return CoverageFloor{*it->second.min_coverage, origin_ + " (backends." + backend + ".min_coverage)"};
}

std::optional<std::string> Expectations::nondeterministic(const std::string& backend) const {
    const auto it = backends_.find(backend);
    if (it == backends_.end()) return std::nullopt;
    return it->second.nondeterministic;
}

const ExpectedFailure* Expectations::expected_failure(const std::string& backend, const Case& c, Status status) const {
    const auto it = backends_.find(backend);
    if (it == backends_.end()) return nullptr;
    const std::string text = c.descriptor();
    const auto keys = descriptor_keys(text);
    for (const ExpectedFailure& f : it->second.expected_failures) {
        bool all = true;
        for (const auto& [key, value] : f.match) {
            if (key == "mode") all = value == accuracy::to_string(c.mode);
            else if (key == "suite") all = value == c.suite;
            else if (key == "op") all = value == operation(c.op).name;
            else if (key == "case_id") all = value == c.id;
            else if (key == "fill") all = value == accuracy::to_string(c.fill);  // exact mode's special fill
            else if (key == "cpu") all = cpu_holds(value);
            else if (key == "status") all = status == Status::passed || value == to_string(status);
            else if (key == "descriptor_regex") all = std::regex_search(text, std::regex(value));
            else {
                const auto k = keys.find(key);
                all = k != keys.end() && k->second == value;
            }
            if (!all) break;
        }
        if (all) return &f;
    }
    return nullptr;
}

bool Expectations::cpu_holds(const std::string& condition) const {
    return cpu_condition_holds(condition, cpu_flags_ ? *cpu_flags_ : host_cpu_flags(), nullptr);
}

std::string default_expectations_path() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "convcheck" / "backends.json";
        if (fs::exists(installed, ec)) return installed.string();
    }
    const fs::path source = fs::path(CONVCHECK_SOURCE_DATA_DIR) / "backends.json";
    if (*CONVCHECK_SOURCE_DATA_DIR && fs::exists(source, ec)) return source.string();
    return "";
}

}  // namespace convcheck::runner
