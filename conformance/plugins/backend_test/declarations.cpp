#include "declarations.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace convcheck::backend_test {

namespace {

std::string scalar_text(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
    return v.dump();
}

std::map<std::string, std::string> descriptor_keys(const std::string& text) {
    std::map<std::string, std::string> keys;
    std::stringstream items(text.substr(text.find(':') + 1));
    for (std::string item; std::getline(items, item, ',');) {
        const auto eq = item.find('=');
        if (eq != std::string::npos) keys[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return keys;
}

}  // namespace

std::optional<DataType> Declarations::accumulation_for(DataType dtype) const {
    for (const std::string& key : {std::string(to_string(dtype)), std::string("*")}) {
        const auto it = accumulation.find(key);
        if (it == accumulation.end()) continue;
        DataType t;
        if (!parse_data_type(it->second, &t)) throw std::runtime_error("accumulation '" + it->second + "' is not a dtype");
        return t;
    }
    return std::nullopt;
}

std::optional<std::string> Declarations::expected_failure(const ConvDescriptor& d, accuracy::Mode mode) const {
    const std::string text = to_string(d);
    const auto keys = descriptor_keys(text);
    for (const ExpectedFailure& f : expected_failures) {
        bool all = true;
        for (const auto& [key, value] : f.match) {
            if (key == "suite" || key == "case_id" || key == "op") all = false;  // the runner's cases only
            else if (key == "status") all = value == "failed";  // this test only sees comparison failures
            else if (key == "mode") all = value == accuracy::to_string(mode);
            else if (key == "descriptor_regex") all = std::regex_search(text, std::regex(value));
            else all = keys.count(key) && keys.at(key) == value;
            if (!all) break;
        }
        if (all) return f.reason;
    }
    return std::nullopt;
}

Declarations load_declarations(const std::string& path, const std::string& backend) {
    Declarations out;
    std::ifstream in(path);
    if (!in) return out;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    if (!j.contains("backends") || !j["backends"].contains(backend)) return out;
    const nlohmann::json& b = j["backends"][backend];
    if (b.contains("accumulation")) {
        if (b["accumulation"].is_string()) out.accumulation["*"] = b["accumulation"].get<std::string>();
        else
            for (const auto& [dtype, acc] : b["accumulation"].items()) out.accumulation[dtype] = scalar_text(acc);
    }
    if (b.contains("expected_failures"))
        for (const auto& x : b["expected_failures"]) {
            if (!x.contains("match") || !x.contains("reason") || x["reason"].get<std::string>().empty())
                throw std::runtime_error(path + ": backends." + backend + ".expected_failures: an entry needs match and reason");
            Declarations::ExpectedFailure f;
            f.reason = x["reason"].get<std::string>();
            for (const auto& [key, value] : x["match"].items()) f.match[key] = scalar_text(value);
            out.expected_failures.push_back(std::move(f));
        }
    return out;
}

}  // namespace convcheck::backend_test
