#include "convcheck/runner/host_cpu.hpp"

#include <fstream>
#include <sstream>

namespace convcheck::runner {

namespace {

// The value of the first line of /proc/cpuinfo that starts with `key` ("flags", "model name").
std::string cpuinfo_value(const std::string& key) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const auto start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
    }
    return "";
}

bool flag_token(const std::string& t) {
    if (t.empty()) return false;
    for (char ch : t)
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')) return false;
    return true;
}

}  // namespace

const std::set<std::string>& host_cpu_flags() {
    static const std::set<std::string> flags = [] {
        std::set<std::string> s;
        std::istringstream words(cpuinfo_value("flags"));
        for (std::string w; words >> w;) s.insert(w);
        return s;
    }();
    return flags;
}

const std::string& host_cpu_model() {
    static const std::string model = cpuinfo_value("model name");
    return model;
}

bool cpu_condition_holds(const std::string& condition, const std::set<std::string>& flags, std::string* error) {
    std::string text = condition;
    for (char& ch : text)
        if (ch == ',') ch = ' ';
    std::istringstream words(text);
    bool any = false, holds = true;
    for (std::string w; words >> w;) {
        any = true;
        const bool absent = w[0] == '!';
        const std::string flag = absent ? w.substr(1) : w;
        if (!flag_token(flag)) {
            if (error) *error = "'" + w + "' is not a CPU flag as /proc/cpuinfo writes it ([a-z0-9_]+, '!' to require its absence)";
            return false;
        }
        if ((flags.count(flag) != 0) == absent) holds = false;
    }
    if (!any) {
        if (error) *error = "is empty: name the CPU flags the entry needs (\"avx512_bf16\", \"!avx512bw\")";
        return false;
    }
    if (error) error->clear();
    return holds;
}

}  // namespace convcheck::runner
