// Precision mode (docs/accuracy.md): the data of precision_fill.hpp, whose exact results need every
// significand bit of the inputs, compared bitwise (under a declared input precision, the result on
// inputs rounded to it is right too; under a declared whole-tensor bound, that bound judges). On a mismatch, the reference is run again on the
// inputs rounded to each reduced precision (TF32, bf16): when the backend's result is exactly that
// one, the message says the backend rounds its inputs to it.
#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "operation.hpp"
#include "convcheck/accuracy/precision_fill.hpp"

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
        const auto want = reference::fast_convolution_summation(d, rounded(f.src), rounded(f.weights), f.bias);
        bool same = true;
        for (std::size_t i = 0; same && i < got.size(); ++i) same = got[i] == round_to(d.dtype, want.dst[i]);
        if (same) return p.name;
    }
    return "";
}

std::vector<double> rounded_to_declared(std::vector<double> v, const accuracy::Contract& contract) {
    for (double& x : v) x = accuracy::round_significand(x, contract.input_significand_bits);
    return v;
}

}  // namespace

std::string inputs_beyond_declared_precision(const accuracy::Contract& contract, const std::vector<double>& src,
                                             const std::vector<double>& weights) {
    if (accuracy::input_roundoff(contract) == 0.0) return "";
    for (const auto* v : {&src, &weights})
        for (double x : *v)
            if (accuracy::round_significand(x, contract.input_significand_bits) != x)
                return "the backend declares, or the case's fpmath allows, input precision " +
                       accuracy::input_precision_name(contract) + " (" +
                       std::to_string(contract.input_significand_bits) +
                       " significand bits) and this data's exact answer needs inputs of more bits (" +
                       format_double(x) + ")";
    return "";
}

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
    const auto want = reference::fast_convolution_summation(d, f.src, f.weights, f.bias);
    const Buffers b = make_buffers(d, f.src, f.weights, f.bias);
    const ChildOutcome o = run_backend(backend, d, b, s, needs);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    const std::int64_t unwritten = unwritten_elements(d, b.dst.data());
    const std::vector<double> got = reference::dst_to_ncx(d, b.dst.data());
    // A declared input precision (TF32, bf16) that applies to this dtype: each output may also be the
    // reference's on the inputs rounded so (exact too: one product per output, of <= 2 p_in bits).
    std::vector<double> expected = want.dst;
    const bool declared = accuracy::input_roundoff(contract) > 0.0;
    if (declared) {
        const auto rounded = reference::fast_convolution_summation(d, rounded_to_declared(f.src, contract),
                                                              rounded_to_declared(f.weights, contract), f.bias);
        for (std::size_t i = 0; i < expected.size(); ++i)
            if (got[i] == round_to(d.dtype, rounded.dst[i])) expected[i] = got[i];
    }
    // A declared whole-tensor algorithm (Winograd, FFT) rounds in its transforms: no result is exact,
    // and its bound judges instead; input rounding (2^-11 relative) still exceeds it by far.
    const bool whole_tensor = !accuracy::holds_to_exact_results(contract);
    ErrorReport e;
    const auto count = count_failures(e, conv_location(d));
    accuracy::Comparison cmp = whole_tensor
                                   ? accuracy::compare_bound(contract, want.dst, want.magnitude, want.terms, got, count)
                                   : accuracy::compare_exact(expected, got, count);
    if (declared && !whole_tensor)
        cmp.statistics.judged_by = "input_precision:" + accuracy::input_precision_name(contract);
    complete_error_report(conv_location(d), cmp, whole_tensor, e);
    r.error = e;
    r.status = cmp.passed() ? Status::passed : Status::failed;
    if (!cmp.passed()) {
        r.kind = mismatch_kind(unwritten, nan_outputs(got, want.dst));
        r.reason = mismatch_reason(d, *r.error, whole_tensor ? accuracy::Mode::bound : c.mode, got,
                                   whole_tensor ? want.dst : expected, unwritten);
        if (declared && !whole_tensor)
            r.reason = "declared input_precision " + accuracy::input_precision_name(contract) + ": outputs are neither the "
                       "exact result nor the one on inputs rounded to it; " + r.reason;
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
