// Sampled mode's verdict (case_pipeline.hpp, judge_sampled), shared by the forward (conv/sampled.cpp) and the
// backward passes (backward/sampled.cpp): outputs the canary scan found unwritten first, then the sample's
// comparison under the bound, then a pass with the statistics.
#include <cmath>

#include "case_pipeline.hpp"

namespace convcheck::runner::detail {

void judge_sampled(const SampledJudgement& j, CaseResult& r) {
    const std::string exceed = std::to_string(j.cmp.mismatches) + " of " + j.sampled + " exceed the error bound";
    if (j.unwritten_count > 0) {
        r.status = Status::failed;
        r.kind = Kind::unwritten;
        r.reason = j.unwritten + "; " + exceed;
    } else if (!j.cmp.passed()) {
        const auto i = static_cast<std::size_t>(j.first_bad);
        r.status = Status::failed;
        r.kind = std::isnan(j.got[i]) ? Kind::nan : Kind::mismatch;
        r.reason = exceed + "; first " + j.first_words(i) + ": got " + format_double(j.got[i]) + ", want " +
                   format_double(j.want[i]) + j.after_want(i);
        if (std::isfinite(j.cmp.max_bound_fraction))
            r.reason += "; worst " + format_double(j.cmp.max_bound_fraction) + "x the bound";
    } else {
        r.status = Status::passed;
        apply_statistics(j.cmp, r);
    }
}

}  // namespace convcheck::runner::detail
