// Probe mode for the backward passes (docs/passes.md, DESIGN.md "The accuracy contract"): geometry
// apart from arithmetic. The backend runs once per probed diff_dst element, with a NaN there. A NaN in
// diff_dst[n, o, y] must reach exactly the gradient elements the forward pairs it with, and nothing else:
//   backward data     diff_src[n, c, x] for every c of o's group and x = y*s - pb + k*d inside the input;
//   backward weights  diff_weights[o, c, k] for every c of o's group and k whose x(y, k) lies inside the
//                     input (a tap that reads padding pairs y with no src element), and diff_bias[o].
// The expected set is not written here: it is the reference's own, run on the same data with the NaN in
// place (the sum over the forward's index set; NaN * w is NaN for every finite w). The probe is about
// geometry, not NaN * 0: weights (backward data) have magnitude in [1/4, 1], as in the forward probe (a
// backend may skip a zero weight), and a backward-weights tap of y that reads a padded zero may take the
// NaN (0 * NaN: an implementation that pads explicitly, as im2col and PyTorch do) or not (one that skips
// padding, as the reference and oneDNN do): diff_weights[o, c, k] of o's group for every k may reach it,
// and a NaN anywhere else (another output channel, another group) is a leak. The outputs the NaN does not
// reach are judged under the bound (ProbeJudge).
#include <algorithm>
#include <limits>

#include "convcheck/accuracy/probe.hpp"
#include "convcheck/runner/check_detail.hpp"

namespace convcheck::runner::detail {

namespace {

// The gradients' canonical order (diff_src NCX; diff_weights OIX then diff_bias [O]) as coordinates;
// a gradient element has no one receptive field to call a border (as in the exact and bound check).
OutputLocation gradient_location(const ConvDescriptor& d) {
    return {[&d](std::int64_t flat) {
                std::vector<std::int64_t> dims;
                if (d.pass == Pass::backward_data) {
                    dims = {d.batch, d.in_channels};
                    for (int a = 0; a < d.rank; ++a) dims.push_back(d.input_size[a]);
                } else if (flat >= d.weights_elements()) {
                    return std::vector<std::int64_t>{flat - d.weights_elements()};  // diff_bias[o]
                } else {
                    dims = {d.out_channels, d.in_channels_per_group()};
                    for (int a = 0; a < d.rank; ++a) dims.push_back(d.kernel_size[a]);
                }
                std::vector<std::int64_t> c(dims.size());
                for (std::size_t i = dims.size(); i-- > 0;) c[i] = flat % dims[i], flat /= dims[i];
                return c;
            },
            [](std::int64_t) { return false; }};
}

// Backward weights: the gradients a NaN at diff_dst element `element` (canonical NCX) may reach through a
// padded zero, diff_weights[o, c, k] for o = the element's channel, every c and k (each tap of y reads a src
// element or a padded zero; the reference says which must). Backward data: none (empty).
std::vector<char> padded_taps(const ConvDescriptor& d, std::int64_t element) {
    if (d.pass != Pass::backward_weights) return {};
    std::int64_t spatial = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
    const std::int64_t o = element / spatial % d.out_channels;
    const std::int64_t per_o = d.weights_elements() / d.out_channels;  // [i, k...] of one output channel
    std::vector<char> may(static_cast<std::size_t>(d.weights_elements() + (d.has_bias ? d.out_channels : 0)), 0);
    std::fill(may.begin() + o * per_o, may.begin() + (o + 1) * per_o, 1);
    return may;
}

}  // namespace

void check_backward_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                          const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    BackwardInputs in = backward_inputs(d, contract, accuracy::Mode::bound, c.seed);
    const accuracy::RandomFill probe_fill = accuracy::make_probe_fill(d, c.seed);
    if (d.pass == Pass::backward_data) in.weights = probe_fill.weights;
    reference::GradientResult plain = backward_reference(d, in);
    // a declared whole-tensor bound takes the whole tensor's largest M and n, the probed elements' included
    const accuracy::BoundScale scale = accuracy::bound_scale(contract, plain.magnitude, plain.terms);
    for (double& m : plain.magnitude) m = scale.magnitude(m);
    for (std::int64_t& t : plain.terms) t = scale.terms(t);
    ProbeJudge judge(contract, gradient_location(d),
                     {"diff_dst", "the elements the forward pairs it with", "the elements the forward pairs it with",
                      [&d](std::int64_t flat) { return gradient_element(d, flat); }});
    for (const std::int64_t element : accuracy::probe_elements(d.dst_elements(), c.seed, s.random_probes)) {
        const std::vector<char> may_reach = padded_taps(d, element);
        BackwardInputs probed = in;
        probed.diff_dst[static_cast<std::size_t>(element)] = std::numeric_limits<double>::quiet_NaN();
        const reference::GradientResult want = backward_reference(d, probed);
        BackwardOutputs out;
        const ChildOutcome o = run_backward(backend, d, probed, s, needs, out);
        if (outcome_status(o, r)) return;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        judge.add({element, want.values, out.got, plain.values, plain.magnitude, plain.terms, {}, out.unwritten,
                   may_reach});
        leak_status(o, s, r);
    }
    judge.finish(r);
}

}  // namespace convcheck::runner::detail
