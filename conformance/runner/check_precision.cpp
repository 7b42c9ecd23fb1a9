// Precision mode (docs/accuracy.md): the data of precision_fill.hpp, whose exact results need every
// significand bit of the inputs, compared bitwise. On a mismatch, the reference is run again on the
// inputs rounded to each reduced precision (TF32, bf16): when the backend's result is exactly that
// one, the message says the backend rounds its inputs to it.
#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "check_detail.hpp"
#include "precision_fill.hpp"

namespace convcheck::runner::detail {

namespace {

// The name of the reduced input precision whose result the backend's matches exactly, or "".
std::string reduced_precision_seen(const ConvDescriptor& d, const accuracy::RandomFill& f, std::span<const double> got) {
    for (const accuracy::ReducedPrecision& p : accuracy::kReducedPrecisions) {
        if (p.bits >= accuracy::significand_bits(d.dtype)) continue;
        auto rounded = [&](std::vector<double> v) {
            for (double& x : v) x = accuracy::round_significand(x, p.bits);
            return v;
        };
        const auto want = reference::convolution_summation(d, rounded(f.src), rounded(f.weights), f.bias);
        bool same = true;
        for (std::size_t i = 0; same && i < got.size(); ++i) same = got[i] == round_to(d.dtype, want.dst[i]);
        if (same) return p.name;
    }
    return "";
}

}  // namespace

void check_conv_precision(const Backend& backend, const Case& c, const CheckSettings& s,
                          const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const int p = accuracy::significand_bits(d.dtype);
    if (accuracy::accumulation_significand_bits(contract) < p) {
        r.status = Status::unsupported;
        r.kind = Kind::declined;
        r.reason = "precision mode needs an accumulation type with at least the " + std::to_string(p) +
                   " significand bits of " + std::string(to_string(d.dtype)) + "; the backend declares " +
                   std::to_string(accuracy::accumulation_significand_bits(contract));
        return;
    }
    const accuracy::RandomFill f = accuracy::make_precision_fill(d, c.seed);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    const Buffers b = make_buffers(d, f.src, f.weights, f.bias);
    const ChildOutcome o = run_backend(backend, d, b, s, needs);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    const std::int64_t unwritten = unwritten_elements(d, b.dst.data());
    const std::vector<double> got = reference::dst_to_ncx(d, b.dst.data());
    const accuracy::Comparison cmp = accuracy::compare_exact(want.dst, got);
    r.error = error_report(d, cmp, want.dst, got, false, contract, want.magnitude, want.terms);
    r.status = cmp.passed() ? Status::passed : Status::failed;
    if (!cmp.passed()) {
        r.kind = mismatch_kind(unwritten, nan_outputs(got, want.dst));
        r.reason = mismatch_reason(d, *r.error, c.mode, got, want.dst, unwritten);
        if (const std::string seen = reduced_precision_seen(d, f, got); !seen.empty())
            r.reason = "the backend rounds " + std::string(to_string(d.dtype)) + " inputs to " + seen +
                       " inside: every output equals the reference's on inputs rounded so (" + r.reason + ")";
        else
            r.reason = "precision probe (exact results that need all " + std::to_string(p) +
                       " significand bits of the inputs): " + r.reason;
    }
    leak_status(o, s, r);
}

}  // namespace convcheck::runner::detail
