// Probe mode for the CC backward pass (docs/cc-backward.md, "Probe mode"): geometry apart from
// arithmetic, as the discrete backward passes' probe (backward/probe.cpp). The backend runs once per
// probed element, with a NaN there:
//   diff_dst[n, co, o]  (the first, the last and --probes random elements) must reach exactly diff_src[n, ci, m]
//                       for every ci and every input pixel m of o's window (the neighbours the forward pairs
//                       with o), the Internal-Net's gradients of the channel pairs (co, ci) and of its hidden
//                       layers (diff_theta, kernel=net), and diff_bias[co];
//   src[n, ci, m]       (the same picks over src) must reach exactly the diff_theta entries of the channel pairs
//                       (co, ci) of every output whose window holds m, and the hidden layers'; never diff_src
//                       (which does not read src) nor diff_bias.
// The expected set is not written here: it is the reference's own (reference/cc/backward.hpp), run on the
// same data with the NaN in place. The Internal-Net's input, the distance D = g - m, comes from the
// geometry alone (the scale and the sizes): no data reaches it, so there is nothing there to probe. The
// gradients a NaN does not reach are judged under the CC backward contract's bounds (cc_backward/check.cpp).
// The flat probed index runs over diff_dst, then src, back to back (error.probe.src_elements).
#include <limits>

#include "convcheck/accuracy/probe.hpp"
#include "operation.hpp"
#include "convcheck/runner/operation_jobs.hpp"

namespace convcheck::runner::detail {

void check_cc_backward_probe(const Backend& backend, const Case& c, const CcDescriptor& d, const CcBackwardInputs& in,
                             const CheckSettings& s, const accuracy::Contract& contract, const CaseMemory& needs,
                             CaseResult& r) {
    const std::int64_t dst_elements = d.dst_elements();
    auto probed_name = [&d, dst_elements](std::int64_t flat) {
        return flat < dst_elements ? "diff_dst" + coordinates_text(element_coordinates(d.dst_dims(), false, flat))
                                   : "src" + coordinates_text(element_coordinates(d.src_dims(), false, flat - dst_elements));
    };
    const OutputLocation where{[&d](std::int64_t flat) { return cc_gradient_index(d, flat).coordinates; },
                               [](std::int64_t) { return false; }};  // a gradient has no one window to call a border
    ProbeJudge judge(contract, where,
                     {"diff_dst or src", "the elements the forward pairs it with", "the elements the forward pairs it with",
                      [&d](std::int64_t flat) { return cc_gradient_element(d, flat); }, probed_name});
    std::vector<std::int64_t> probes = accuracy::probe_elements(dst_elements, c.seed, s.random_probes);
    for (const std::int64_t e : accuracy::probe_elements(d.src_elements(), c.seed ^ 0x7372636e616eULL, s.random_probes))
        probes.push_back(dst_elements + e);  // "srcnan": not the diff_dst picks' stream
    const float* theta = in.data.theta.empty() ? nullptr : in.data.theta.data();
    for (const std::int64_t probe : probes) {
        CcData data = in.data;
        std::vector<float> diff_dst = in.diff_dst;
        float& nan = probe < dst_elements ? diff_dst[static_cast<std::size_t>(probe)]
                                          : data.src[static_cast<std::size_t>(probe - dst_elements)];
        nan = std::numeric_limits<float>::quiet_NaN();
        const std::vector<double> want = cc_gradients(reference::cc::cc_backward(d, data.src.data(), theta, diff_dst.data()));
        CcGradients out;
        const ChildOutcome o = run_cc_backward(backend, d, data, diff_dst, s, needs, out);
        if (outcome_status(o, r)) return;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        judge.add({probe, want, out.got, in.want.values, in.want.magnitude, in.want.terms, {}, out.unwritten, {},
                   in.want.bounds});
        leak_status(o, s, r);
    }
    judge.finish(r);
}

}  // namespace convcheck::runner::detail
