// The verdict of a pass whose outputs the reference gives as sums with magnitudes and term counts
// (case_pipeline.hpp: the backward passes and transposed convolution share it): exact or bound
// comparison, the first failing output in words, the statistics and the leak check.
#include <cmath>

#include "case_pipeline.hpp"

namespace convcheck::runner::detail {

void judge_summed_outputs(const accuracy::Contract& contract, bool exact, const SummedOutputs& o, const char* outputs,
                          const std::function<std::string(std::int64_t)>& element, const ChildOutcome& outcome,
                          const CheckSettings& s, CaseResult& r) {
    const accuracy::Comparison cmp =
        exact      ? accuracy::compare_exact(o.want, o.got)
        : o.bounds ? accuracy::compare_bound_given(contract, o.want, o.magnitude, o.terms, o.got, *o.bounds)
                   : accuracy::compare_bound(contract, o.want, o.magnitude, o.terms, o.got);
    ErrorReport e;
    e.comparison = cmp;
    if (!exact && cmp.mismatches > 0 && std::isfinite(cmp.max_bound_fraction)) e.bound_growth_needed = cmp.max_bound_fraction;
    e.interior_mismatches = cmp.mismatches;  // such an output has no one receptive field to call a border
    r.error = e;
    r.status = cmp.passed() ? Status::passed : Status::failed;
    if (!cmp.passed()) {
        const std::int64_t nan = nan_outputs(o.got, o.want);
        r.kind = mismatch_kind(o.unwritten, nan);
        const std::int64_t i = cmp.first_mismatch;
        r.reason = std::to_string(cmp.mismatches) + " of " + std::to_string(cmp.elements) + " " + outputs + " " +
                   (exact ? "differ from the exact result" : "exceed the error bound") + "; first " + element(i) +
                   ": got " + format_double(o.got[i]) + ", want " + format_double(o.want[i]) + " (" +
                   std::to_string(o.terms[i]) + " terms)";
        if (e.bound_growth_needed) r.reason += "; the bound would have to grow " + format_double(*e.bound_growth_needed) + "x to pass";
        if (o.unwritten > 0) r.reason += "; " + std::to_string(o.unwritten) + " " + outputs + " never written";
        else if (nan > 0) r.reason += "; NaN in " + std::to_string(nan) + " " + outputs + " where the reference is finite";
    }
    if (!exact) apply_statistics(cmp, r);
    leak_status(outcome, s, r);
}

}  // namespace convcheck::runner::detail
