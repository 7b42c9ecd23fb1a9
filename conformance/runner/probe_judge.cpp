// Probe mode's judge (DESIGN.md, "The accuracy contract"), for every operation's probe: the
// backend runs once per probed element, with a NaN in that element (discrete convolution: and a zero
// weight opposite it in the first term that reads it, probe_partners.cpp, so that a backend that skips
// a zero weight, as sparse kernels do, loses the NaN that NaN * 0 must carry). Each run is judged twice:
// where the NaN went (against the reference run with the same NaN: compare_probe), and the error
// bound over the outputs the NaN does not reach. A case's counts are sums over its runs, and say so
// in the reason and the JSON (error.probe); the worst output is the worst of every run, named with
// its coordinates, got, want and bound.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "case_pipeline.hpp"
#include "convcheck/accuracy/probe.hpp"

namespace convcheck::runner::detail {

ProbeJudge::ProbeJudge(const accuracy::Contract& contract, OutputLocation where, ProbeWords words)
    : contract_(contract), where_(std::move(where)), words_(words) {
    report_.probe = ProbeCounts{};
}

std::string ProbeJudge::element_name(std::int64_t flat) const {
    return words_.name_of ? words_.name_of(flat) : coordinates_text(where_.coordinates(flat));
}

std::string ProbeJudge::probed_name(std::int64_t flat) const {
    return words_.probed_name ? words_.probed_name(flat)
                              : std::string(words_.probed) + " element " + std::to_string(flat);
}

void ProbeJudge::locate(std::int64_t flat) {
    if (where_.touches_border(flat)) ++report_.border_mismatches;
    else ++report_.interior_mismatches;
}

void ProbeJudge::add(const ProbeRun& run) {
    const bool cc = !run.weight_error.empty(), given = !run.bounds.empty();
    const std::size_t n = run.got.size();
    const accuracy::ProbeComparison p = accuracy::compare_probe(run.want_with_nan, run.got, run.may_reach);
    // a zero of the other sign than want's where the sign is judged (post-ops: docs/post-ops.md)
    std::int64_t zero_sign = 0, first_zero_sign = -1;
    // bound mode over the outputs the NaN reaches neither in the reference nor in the backend
    std::vector<double> want, got, magnitude, weight_error, bounds;
    std::vector<std::int64_t> terms, index;
    // reserved: their peak is part of the case's memory needs (case_memory.cpp)
    want.reserve(n), got.reserve(n), magnitude.reserve(n), terms.reserve(n), index.reserve(n);
    if (cc) weight_error.reserve(n);
    if (given) bounds.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const bool expected = std::isnan(run.want_with_nan[i]), reached = std::isnan(run.got[i]);
        const bool may = !run.may_reach.empty() && run.may_reach[i];
        if (expected != reached && !(may && !expected)) locate(static_cast<std::int64_t>(i));  // a leak or a miss
        if (expected || reached) continue;
        if (!run.zero_judged.empty() && run.zero_judged[i] && run.got[i] == 0.0 &&
            std::signbit(run.got[i]) != std::signbit(run.want[i])) {
            if (zero_sign++ == 0) first_zero_sign = static_cast<std::int64_t>(i);
            locate(static_cast<std::int64_t>(i));
        }
        want.push_back(run.want[i]), got.push_back(run.got[i]), magnitude.push_back(run.magnitude[i]);
        terms.push_back(run.terms[i]), index.push_back(static_cast<std::int64_t>(i));
        if (cc) weight_error.push_back(run.weight_error[i]);
        if (given) bounds.push_back(run.bounds[i]);
    }
    const accuracy::Comparison rest =
        given ? accuracy::compare_bound_given(contract_, want, magnitude, terms, got, bounds)
        : cc  ? accuracy::compare_bound_cc(contract_, want, magnitude, terms, weight_error, got)
              : accuracy::compare_bound(contract_, want, magnitude, terms, got);
    if (rest.mismatches > 0)
        for (std::size_t k = 0; k < want.size(); ++k) {
            const double bound = given ? bounds[k]
                                 : cc  ? accuracy::cc_error_bound(contract_, want[k], magnitude[k], terms[k], weight_error[k])
                                       : accuracy::error_bound(contract_, want[k], magnitude[k], terms[k]);
            if (!(accuracy::bound_fraction(contract_, want[k], got[k], bound) <= 1.0)) locate(index[k]);
        }

    ProbeCounts& counts = *report_.probe;
    counts.src_elements.push_back(run.src_element);
    counts.leaked += p.leaked, counts.missing += p.missing, counts.over_bound += rest.mismatches;
    counts.zero_sign += zero_sign;
    accuracy::Comparison& total = report_.comparison;
    total.elements += static_cast<std::int64_t>(n);
    total.mismatches += p.leaked + p.missing + rest.mismatches + zero_sign;
    total.max_abs = std::max(total.max_abs, rest.max_abs);
    for (int h = 0; h < 11; ++h) total.bound_fraction_histogram[h] += rest.bound_fraction_histogram[h];
    if (rest.worst_index >= 0 && (total.worst_index < 0 || rest.max_bound_fraction > total.max_bound_fraction)) {
        total.max_bound_fraction = rest.max_bound_fraction;
        total.worst_index = index[rest.worst_index];
        total.worst_got = rest.worst_got, total.worst_want = rest.worst_want, total.worst_bound = rest.worst_bound;
        report_.worst_coordinates = where_.coordinates(total.worst_index);
        counts.worst_src_element = run.src_element;
    }
    if (!first_problem_.empty()) return;
    // The first run that fails is described in its own words; its counts are that run's.
    std::ostringstream m;
    m << "NaN probe at " << probed_name(run.src_element) << ": ";
    if (p.leaked || p.missing) {
        if (p.leaked) m << p.leaked << " outputs outside " << words_.field << " got NaN (first "
                        << element_name(p.first_leaked) << ")";
        if (p.leaked && p.missing) m << ", ";
        if (p.missing) m << p.missing << " of " << p.expected << " outputs inside "
                         << (p.leaked ? std::string("it") : words_.field) << " did not (first "
                         << element_name(p.first_missing) << ")";
        if (run.unwritten) m << "; " << run.unwritten << " outputs never written";
        first_kind_ = run.unwritten ? Kind::unwritten : Kind::probe;
        total.first_mismatch = p.leaked ? p.first_leaked : p.first_missing;
    } else if (rest.mismatches) {
        const std::int64_t first = index[rest.first_mismatch];
        m << rest.mismatches << " of " << rest.elements << " outputs it does not reach exceed the error bound (first "
          << element_name(first) << ": got " << format_double(run.got[first]) << ", want "
          << format_double(run.want[first]) << ")";
        first_kind_ = Kind::mismatch;
        total.first_mismatch = first;
    } else if (zero_sign) {
        m << zero_sign << " outputs it does not reach are a zero of the other sign (" << words_.zero_sign << "; first "
          << element_name(first_zero_sign) << ": got " << format_double(run.got[first_zero_sign]) << ", want "
          << format_double(run.want[first_zero_sign]) << ")";
        first_kind_ = Kind::mismatch;
        total.first_mismatch = first_zero_sign;
    } else {
        return;
    }
    first_problem_ = m.str();
}

void ProbeJudge::finish(CaseResult& r) const {
    r.error = report_;
    r.error->comparison.statistics.judged_by = "probe";
    if (first_problem_.empty() || r.status != Status::passed) return;  // a leak found earlier stays the reason
    const ProbeCounts& counts = *report_.probe;
    const accuracy::Comparison& total = report_.comparison;
    std::ostringstream m;
    m << first_problem_ << "; summed over the " << counts.src_elements.size() << " probe runs (NaN at ";
    if (!words_.probed_name) m << words_.probed << " elements ";
    for (std::size_t i = 0; i < counts.src_elements.size(); ++i)
        m << (i ? ", " : "")
          << (words_.probed_name ? words_.probed_name(counts.src_elements[i]) : std::to_string(counts.src_elements[i]));
    m << "): " << total.mismatches << " of " << total.elements << " outputs wrong (" << counts.leaked
      << " NaN outside " << words_.field_summed << ", " << counts.missing << " no NaN inside it, " << counts.over_bound
      << " over the error bound";
    if (counts.zero_sign) m << ", " << counts.zero_sign << " a zero of the other sign";
    m << "; " << report_.border_mismatches << " at the border, " << report_.interior_mismatches
      << " inside)";
    if (total.worst_index >= 0 && std::isfinite(total.max_bound_fraction) && total.max_bound_fraction > 1.0)
        m << "; worst at " << coordinates_text(report_.worst_coordinates) << " with the NaN at "
          << probed_name(counts.worst_src_element) << ": got " << format_double(total.worst_got) << ", want "
          << format_double(total.worst_want) << ", bound " << format_double(total.worst_bound) << " ("
          << format_double(total.max_bound_fraction) << "x the bound)";
    r.status = Status::failed;
    r.kind = first_kind_;
    r.reason = m.str();
}

}  // namespace convcheck::runner::detail
