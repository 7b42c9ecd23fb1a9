#include "convcheck/runner/coverage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "convcheck/runner/printable.hpp"

namespace convcheck::runner {

CoverageFloor stricter(const CoverageFloor& a, const std::optional<CoverageFloor>& b) {
    return b && b->fraction > a.fraction ? *b : a;
}

Coverage coverage_of(const std::vector<nlohmann::json>& cases, std::int64_t total) {
    Coverage c;
    c.total = total;
    std::map<std::string, std::int64_t> reasons;
    for (const nlohmann::json& r : cases) {
        if (r.value("kind", "") == "over_memory_limit") ++c.refused;
        else if (r.value("status", "") == "unsupported") {
            ++c.declined;
            if (r.value("pass_not_claimed", false)) ++c.pass_not_claimed;
            ++reasons[printable_line(r.value("reason", ""))];  // merge reads files written elsewhere
        } else ++c.executed;
    }
    c.not_run = std::max<std::int64_t>(0, total - static_cast<std::int64_t>(cases.size()));
    c.decline_reasons.assign(reasons.begin(), reasons.end());
    std::stable_sort(c.decline_reasons.begin(), c.decline_reasons.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return c;
}

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f %%", 100.0 * fraction);
    return text;
}

std::string coverage_shortfall(const Coverage& c, const CoverageFloor& floor) {
    if (c.not_run > 0 || c.total == 0) return "";
    const std::string counts =
        std::to_string(c.executed) + " of " + std::to_string(c.total) + " cases executed, " +
        std::to_string(c.declined) + " declined by the backend" +
        (c.pass_not_claimed ? " (" + std::to_string(c.pass_not_claimed) + " of a pass it does not claim)" : "") +
        (c.refused ? ", " + std::to_string(c.refused) + " refused by the runner" : "");
    if (c.executed == 0) return "no case executed (" + counts + "): a run that checked nothing has not passed";
    // the comparison in cases, not in rounded percentages: at least ceil(floor * claimed) must execute
    const auto needed = static_cast<std::int64_t>(std::ceil(floor.fraction * double(c.claimed()) - 1e-9));
    if (c.executed >= needed) return "";
    const std::string of = c.pass_not_claimed ? " cases of the passes the backend claims" : " cases";
    return "coverage " + percent(c.pass_not_claimed ? c.claimed_fraction() : c.fraction()) + " (" + counts +
           ") is below the floor " + percent(floor.fraction) + " from " + floor.source + ": at least " +
           std::to_string(needed) + " of the " + std::to_string(c.claimed()) + of + " must execute";
}

}  // namespace convcheck::runner
