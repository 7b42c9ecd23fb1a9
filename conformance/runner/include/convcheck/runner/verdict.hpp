// Internal to the runner: the verdict on one case, whatever its operation. How a child's outcome
// becomes a status, where the failing outputs lie (border or inside), how a mismatch is named
// (unwritten, NaN, mismatch), the statistics' verdict on a bound comparison, and the leak check.
// An operation supplies only where its outputs are (OutputLocation).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "convcheck/runner/case.hpp"
#include "convcheck/runner/case_memory.hpp"
#include "convcheck/runner/child_process.hpp"

namespace convcheck::runner {
struct CheckSettings;
}

namespace convcheck::runner::detail {

std::string format_double(double v);
std::string coordinates_text(const std::vector<std::int64_t>& c);

// Where an operation's outputs are: a flat output index as [n, c, spatial...], and whether the
// output's receptive field (conv) or window (CC) reaches the border.
struct OutputLocation {
    std::function<std::vector<std::int64_t>(std::int64_t)> coordinates;  // flat index -> [n, c, spatial...]
    std::function<bool(std::int64_t)> touches_border;  // the output's receptive field or window reaches the border
};
// Counts each failing output into e, at the border or inside: pass it to an accuracy:: comparison, which calls it
// once per output it fails (the pass/fail rule is decided there only). e must outlive the comparison.
accuracy::OnMismatch count_failures(ErrorReport& e, OutputLocation where);
// Completes e, whose failing outputs count_failures counted while cmp was made: the comparison, the worst output's
// coordinates, and for a failed bound (bound_mode) how far the bound would have to grow.
void complete_error_report(const OutputLocation& where, const accuracy::Comparison& cmp, bool bound_mode, ErrorReport& e);

// How many of `elements` outputs still hold the "never written" fill (all bytes 0xFF, a NaN in
// every dtype).
std::int64_t unwritten_elements(const void* dst, std::int64_t elements, int element_bytes);
// The same with where: how many, and the first and last such element (buffer offsets; -1 when none).
struct Unwritten {
    std::int64_t count = 0, first = -1, last = -1;
};
Unwritten unwritten_region(const void* dst, std::int64_t elements, int element_bytes);
// Outputs that are NaN where the reference is not.
std::int64_t nan_outputs(std::span<const double> got, std::span<const double> want);
// The kind of a failed comparison: outputs never written, else NaN outputs, else a mismatch.
Kind mismatch_kind(std::int64_t unwritten, std::int64_t nan_outputs);
// Refuses the case (unsupported, over_memory_limit) when the runner's part does not fit under the
// memory limit; false when it fits.
bool refused_for_memory(const CaseMemory& needs, const CheckSettings& s, CaseResult& r);
// Declines the case (unsupported, declined) with `why` when it is not empty; false when it is.
bool declined(const std::string& why, CaseResult& r);
// Turns a child outcome that is not "ok" into the case's status; false when it was ok.
bool outcome_status(const ChildOutcome& o, CaseResult& r);
// A leak found by the leak check fails a case that otherwise passed or was unchecked.
void leak_status(const ChildOutcome& o, const CheckSettings& s, CaseResult& r);
// A passed bound-mode comparison whose statistics fail becomes a failure; one whose outputs the
// contract cannot check (a vacuous bound the statistics cannot judge; statistics.hpp) becomes
// unchecked (kind vacuous_bound) and says why in its reason. The case record's error.judged_by
// carries the outcome.
void apply_statistics(const accuracy::Comparison& cmp, CaseResult& r);

}  // namespace convcheck::runner::detail
