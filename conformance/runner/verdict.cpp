#include "convcheck/runner/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "convcheck/runner/check.hpp"

namespace convcheck::runner::detail {

std::string format_double(double v) {
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
}

std::string coordinates_text(const std::vector<std::int64_t>& c) {
    std::string s = "[";
    for (std::size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
    return s + "]";
}

accuracy::OnMismatch count_failures(ErrorReport& e, OutputLocation where) {
    return [&e, where = std::move(where)](std::int64_t i) {
        if (where.touches_border(i)) ++e.border_mismatches;
        else ++e.interior_mismatches;
    };
}

void complete_error_report(const OutputLocation& where, const accuracy::Comparison& cmp, bool bound_mode, ErrorReport& e) {
    e.comparison = cmp;
    if (cmp.worst_index >= 0) e.worst_coordinates = where.coordinates(cmp.worst_index);
    // the factor the bound would have to grow by (a bound comparison whose worst error is finite)
    if (cmp.mismatches > 0 && bound_mode && std::isfinite(cmp.max_bound_fraction))
        e.bound_growth_needed = cmp.max_bound_fraction;
}

Unwritten unwritten_region(const void* dst, std::int64_t elements, int element_bytes) {
    const auto* p = static_cast<const unsigned char*>(dst);
    Unwritten u;
    for (std::int64_t i = 0; i < elements; ++i)
        if (std::all_of(p + i * element_bytes, p + (i + 1) * element_bytes, [](unsigned char b) { return b == 0xFF; })) {
            if (u.count++ == 0) u.first = i;
            u.last = i;
        }
    return u;
}

std::int64_t unwritten_elements(const void* dst, std::int64_t elements, int element_bytes) {
    return unwritten_region(dst, elements, element_bytes).count;
}

std::int64_t nan_outputs(std::span<const double> got, std::span<const double> want) {
    std::int64_t count = 0;
    for (std::size_t i = 0; i < got.size(); ++i) count += std::isnan(got[i]) && !std::isnan(want[i]);
    return count;
}

Kind mismatch_kind(std::int64_t unwritten, std::int64_t nan_outputs) {
    return unwritten > 0 ? Kind::unwritten : nan_outputs > 0 ? Kind::nan : Kind::mismatch;
}

bool refused_for_memory(const CaseMemory& needs, const CheckSettings& s, CaseResult& r) {
    const std::string why = over_memory_limit(needs, s.memory_limit_bytes);
    if (why.empty()) return false;
    r.status = Status::unsupported;
    r.kind = Kind::over_memory_limit;
    r.reason = why;
    return true;
}

bool declined(const std::string& why, CaseResult& r) {
    if (why.empty()) return false;
    r.status = Status::unsupported;
    r.kind = Kind::declined;
    r.reason = why;
    return true;
}

bool outcome_status(const ChildOutcome& o, CaseResult& r) {
    if (o.workspace_bytes) r.workspace_bytes = o.workspace_bytes;
    r.workspace_used = o.workspace_used;
    r.thread_pool_tasks = o.thread_pool_tasks;
    switch (o.kind) {
        case ChildOutcome::Kind::ok: return false;
        case ChildOutcome::Kind::unsupported: r.status = Status::unsupported, r.kind = Kind::declined; break;
        case ChildOutcome::Kind::plugin_error: r.status = Status::failed, r.kind = Kind::plugin_error; break;
        case ChildOutcome::Kind::crashed: r.status = Status::crashed, r.kind = Kind::crash; break;
        case ChildOutcome::Kind::hanged: r.status = Status::hanged, r.kind = Kind::hang; break;
        case ChildOutcome::Kind::out_of_memory: r.status = Status::crashed, r.kind = Kind::out_of_memory; break;
        case ChildOutcome::Kind::paths_differ: r.status = Status::failed, r.kind = Kind::paths_differ; break;
        case ChildOutcome::Kind::gaps_written: r.status = Status::failed, r.kind = Kind::gaps_written; break;
    }
    r.reason = o.reason;
    r.error_code = o.error_code;
    return true;
}

void leak_status(const ChildOutcome& o, const CheckSettings& s, CaseResult& r) {
    const bool ran_clean = r.status == Status::passed || r.status == Status::unchecked;
    if (s.leak_check && o.heap_growth_per_cycle > s.leak_threshold_bytes && ran_clean) {
        r.status = Status::failed;
        r.kind = Kind::leak;
        r.reason = "leak: " + std::to_string(o.heap_growth_per_cycle) +
                   " bytes of heap not given back per create..execute..destroy cycle";
    }
}

void apply_statistics(const accuracy::Comparison& cmp, CaseResult& r) {
    if (r.status != Status::passed) return;  // a per-output failure is reported first
    const accuracy::Statistics& s = cmp.statistics;
    if (!s.passed()) {
        r.status = Status::failed;
        r.kind = Kind::statistics;
        const std::string held = s.judged_by == "statistics"
                                     ? "every per-output bound is vacuous"
                                     : "the " + s.judged_by.substr(0, s.judged_by.find("+statistics")) +
                                           " bound held everywhere";
        r.reason = "statistics: " + s.failure + " (" + held + "; the rounding-noise scale would have to grow " +
                   format_double(s.growth) + "x to pass)";
        if (r.error && std::isfinite(s.growth)) r.error->bound_growth_needed = s.growth;
    } else if (s.judged_by == "unchecked") {
        r.status = Status::unchecked;
        r.kind = Kind::vacuous_bound;
        r.reason = "unchecked, not counted as passed: " + s.unchecked;
    }
}

}  // namespace convcheck::runner::detail
