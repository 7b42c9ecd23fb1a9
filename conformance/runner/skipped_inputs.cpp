// Skipped inputs: their results record and their report grouped by reason.
#include "convcheck/runner/skipped_inputs.hpp"

#include <algorithm>
#include <map>

namespace convcheck::runner {

nlohmann::json skipped_record(const SkippedInput& s) {
    return {{"record", "skipped"}, {"suite", s.suite}, {"source", s.source}, {"input", s.input}, {"reason", s.reason}};
}

std::vector<std::pair<std::string, std::int64_t>> skip_reasons(const std::vector<SkippedInput>& skipped) {
    std::vector<std::pair<std::string, std::int64_t>> reasons;
    std::map<std::string, std::size_t> at;
    for (const SkippedInput& s : skipped) {
        auto [it, fresh] = at.emplace(s.reason, reasons.size());
        if (fresh) reasons.emplace_back(s.reason, 0);
        ++reasons[it->second].second;
    }
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return reasons;
}

void print_skipped_inputs(std::FILE* out, const std::vector<SkippedInput>& skipped) {
    if (skipped.empty()) return;
    std::fprintf(out, "\nskipped %zu input%s that convcheck cannot run exactly (never run as something else; "
                      "--strict-benchdnn makes this exit 2), by reason:\n",
                 skipped.size(), skipped.size() == 1 ? "" : "s");
    for (const auto& entry : skip_reasons(skipped)) {
        // (not a structured binding: clang 14, which builds the fuzz targets, cannot capture one in a lambda)
        const std::string& reason = entry.first;
        const auto first = std::find_if(skipped.begin(), skipped.end(), [&](const SkippedInput& s) { return s.reason == reason; });
        std::fprintf(out, "  %8lld  %s\n            e.g. %s  %s\n", static_cast<long long>(entry.second),
                     reason.c_str(), first->source.c_str(), first->input.c_str());
    }
}

std::string strict_benchdnn_message(const std::vector<SkippedInput>& skipped) {
    const auto reasons = skip_reasons(skipped);
    return "--strict-benchdnn: " + std::to_string(skipped.size()) + " input(s) cannot be run exactly, e.g. " +
           skipped.front().source + " `" + skipped.front().input + "`: " + skipped.front().reason +
           " (most frequent reason, " + std::to_string(reasons.front().second) + " inputs: " + reasons.front().first + ")";
}

}  // namespace convcheck::runner
