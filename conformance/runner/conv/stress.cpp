// Stress mode (docs/accuracy.md): one execution per data kind of stress_fill.hpp, each judged by
// bound mode's contract (the per-output bound, then the statistics). The first kind that fails
// names the case's failure; the recorded comparison is the worst kind's. A kind the contract cannot
// check (unchecked) makes the case unchecked unless another kind fails it.
#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "operation.hpp"
#include "convcheck/accuracy/stress_fill.hpp"

namespace convcheck::runner::detail {

void check_conv_stress(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    std::optional<ErrorReport> worst;
    std::string unchecked;
    for (const accuracy::DataKind kind : accuracy::kStressKinds) {
        const accuracy::RandomFill f = accuracy::make_stress_fill(d, contract, kind, c.seed);
        const auto want = reference::fast_convolution_summation(d, f.src, f.weights, f.bias);
        const Buffers b = make_buffers(d, f.src, f.weights, f.bias);
        const ChildOutcome o = run_backend(backend, d, b, s, needs);
        if (outcome_status(o, r)) {
            r.reason = std::string("data kind ") + accuracy::to_string(kind) + ": " + r.reason;
            return;
        }
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        const std::int64_t unwritten = unwritten_elements(d, b.dst.data());
        const std::vector<double> got = reference::dst_to_ncx(d, b.dst.data());
        ErrorReport e;
        const auto cmp = accuracy::compare_bound(contract, want.dst, want.magnitude, want.terms, got,
                                                 count_failures(e, conv_location(d)));
        complete_error_report(conv_location(d), cmp, true, e);
        CaseResult one;
        one.error = e;
        one.status = cmp.passed() ? Status::passed : Status::failed;
        if (!cmp.passed()) {
            one.kind = mismatch_kind(unwritten, nan_outputs(got, want.dst));
            one.reason = mismatch_reason(d, e, accuracy::Mode::bound, got, want.dst, unwritten);
        }
        apply_statistics(cmp, one);
        leak_status(o, s, one);
        if (one.status != Status::passed && one.status != Status::unchecked) {
            r.status = one.status;
            r.kind = one.kind;
            r.reason = std::string("data kind ") + accuracy::to_string(kind) + ": " + one.reason;
            r.error = one.error;
            return;
        }
        if (cmp.statistics.judged_by == "unchecked" && unchecked.empty()) {
            unchecked = one.reason + " (data kind " + accuracy::to_string(kind) + ")";
            e.comparison.statistics.judged_by = "unchecked";
            worst = e;
        }
        if (!worst || (worst->comparison.statistics.judged_by != "unchecked" &&
                       cmp.max_bound_fraction > worst->comparison.max_bound_fraction))
            worst = e;
    }
    r.status = unchecked.empty() ? Status::passed : Status::unchecked;
    r.kind = unchecked.empty() ? Kind::none : Kind::vacuous_bound;
    r.error = worst;
    r.reason = unchecked;
}

}  // namespace convcheck::runner::detail
