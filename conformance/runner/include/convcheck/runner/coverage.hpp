// Coverage is part of the verdict. A backend that declines every case has not passed anything, and a
// pass rate over the 8 cases a backend ran out of 69 is not "100 %" of the suite. So a run counts, of
// the cases it holds (this shard's cases when sharded):
//   executed  cases that ran: neither declined by the backend nor refused by the runner
//   declined  the backend said "unsupported" (with its reason)
//   refused   the runner did not start the case (kind "over_memory_limit": it cannot fit)
//   not_run   never started: --fail-fast stopped the run, or it was interrupted
// coverage = executed / total. A run in which no case executed fails; so does one whose coverage is
// below its floor: the stricter of --min-coverage (default kDefaultMinCoverage) and the backend's
// "min_coverage" in backends.json.
//
// Of the declined cases, those of a pass the backend does not claim (ABI 1.2 prop_kinds: a forward-only
// plugin, and every plugin before 1.2, never receives a backward case) are counted apart
// (pass_not_claimed) and the floor applies to the other cases: to the cases of the passes the backend
// claims. The floors were declared over forward suites, and a suite that gains backward cases (smoke) must
// not fail a forward-only backend that executes all it did, nor let a backend that declines forward cases
// hide them behind a lower floor. The declined passes stay in the counts and the reasons, each pass is
// judged where it is the suite (the backward suite: nothing executed, not passed), and a run in which no
// case executed fails whatever it claims.
//
// Why the default is 1 %: benchdnn and the ONNX backend test report cases a backend does not
// implement ("unimplemented", skipped) without failing; their users expect a narrow backend that
// declines most of a suite to pass on what it does compute. So the default only rules out a run that
// is (almost) all declines: at least one case in a hundred must execute (one of the 69 smoke cases,
// 12 of the 1200 full ones). A backend that should cover more declares its own floor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace convcheck::runner {

inline constexpr double kDefaultMinCoverage = 0.01;

struct CoverageFloor {
    double fraction = kDefaultMinCoverage;
    std::string source = "the default";  // "--min-coverage", "backends.json (backends.optimized.min_coverage)"
};

// The stricter (higher) floor; the first when they are equal.
CoverageFloor stricter(const CoverageFloor& a, const std::optional<CoverageFloor>& b);

struct Coverage {
    std::int64_t total = 0;  // the cases of this run: executed + declined + refused + not_run
    std::int64_t executed = 0, declined = 0, refused = 0, not_run = 0;
    std::int64_t pass_not_claimed = 0;  // of the declined: a pass the backend does not claim
    // the cases the floor applies to: all but those of a pass the backend does not claim
    std::int64_t claimed() const { return total - pass_not_claimed; }
    // the backends' reasons for declining, with their counts, most frequent first
    std::vector<std::pair<std::string, std::int64_t>> decline_reasons;
    double fraction() const { return total > 0 ? double(executed) / double(total) : 0.0; }
    double claimed_fraction() const { return claimed() > 0 ? double(executed) / double(claimed()) : 0.0; }
};

// Counts the case records of a run of `total` cases (the ones without a record did not run).
Coverage coverage_of(const std::vector<nlohmann::json>& case_records, std::int64_t total);

// Why this coverage fails the run ("no case executed: ...", "coverage 11.6 % (8 of 69 cases executed)
// is below the floor ..."), or "" when it does not. A run that stopped early (not_run > 0) has already
// failed or was interrupted: its coverage is reported, not judged.
std::string coverage_shortfall(const Coverage& coverage, const CoverageFloor& floor);

// "12.5 %"
std::string percent(double fraction);

}  // namespace convcheck::runner
