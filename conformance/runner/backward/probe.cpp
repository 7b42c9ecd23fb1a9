// Probe mode for the backward passes (docs/passes.md, DESIGN.md "The accuracy contract"): geometry apart
// from arithmetic, and IEEE NaN * 0 = NaN. The backend runs once per probed element, with a NaN there and,
// when the element has a partner in the forward's index set, a zero opposite it (probe_partners.cpp):
//   diff_dst[n, o, y]  (the first, the last and --probes random ones), with a zero weight (backward data)
//                      or a zero src element (backward weights) in its first term;
//   weights[o, i, k]   (backward data) or src[n, c, x] (backward weights), the same picks over that tensor,
//                      with a zero diff_dst element in its first term.
// The NaN must reach exactly the gradient elements the forward pairs it with, and nothing else:
//   backward data     diff_src[n, c, x] for every c of o's group and x = y*s - pb + k*d inside the input
//                     (a NaN weight: every n and y whose x is inside the input);
//   backward weights  diff_weights[o, c, k] for every c of o's group and k whose x(y, k) lies inside the
//                     input (a tap that reads padding pairs y with no src element), and diff_bias[o]
//                     (a NaN src element: diff_weights of every o of its group and tap pairing it with an output).
// The expected set is not written here: it is the reference's own, run on the same data with the NaN in
// place (the sum over the forward's index set; NaN * w is NaN for every w, 0 included). So a backend that
// skips a term whose weight, src or diff_dst is exactly zero (as sparse kernels do) misses a NaN the
// zero's term must carry and fails. The weights (backward data) otherwise have magnitude in [1/4, 1], as
// in the forward probe. A backward-weights tap of y that reads a padded zero may take a diff_dst NaN
// (0 * NaN: an implementation that pads explicitly, as im2col and PyTorch do) or not (one that skips
// padding, as the reference and oneDNN do): padding is not an element of src, so diff_weights[o, c, k] of
// o's group for every k may reach it, and a NaN anywhere else (another output channel, another group) is
// a leak. Likewise a NaN weight of backward data may reach diff_src of its tap's input channel anywhere (an
// implementation that pads diff_dst explicitly or zero-stuffs it multiplies the weight by zeros that are no
// element of diff_dst), and a NaN in another channel is a leak; a zero src or diff_dst element is an element,
// and its term must carry the NaN. The outputs the NaN does not reach are judged under the bound (ProbeJudge), against the
// reference on the same data without the NaN (the zero in place). The flat probed index runs over
// diff_dst, then the other tensor, back to back (error.probe.src_elements).
#include <algorithm>
#include <limits>

#include "convcheck/accuracy/probe.hpp"
#include "operation.hpp"
#include "convcheck/runner/operation_jobs.hpp"

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

// Backward data: the gradients a NaN at weights element `element` (canonical OIX) may reach through a padded
// or zero-stuffed zero of diff_dst, diff_src[n, c, x] of the tap's input channel c for every n and x (an
// implementation that pads diff_dst explicitly, or reads it zero-stuffed, multiplies the weight by zeros that
// are no element of diff_dst; the reference says which elements must take it).
std::vector<char> padded_diff_dst(const ConvDescriptor& d, std::int64_t element) {
    const std::int64_t per_o = d.weights_elements() / d.out_channels, per_c = d.src_elements() / d.batch / d.in_channels;
    const std::int64_t o = element / per_o, ic = element % per_o / (per_o / d.in_channels_per_group());
    const std::int64_t c = o / d.out_channels_per_group() * d.in_channels_per_group() + ic;
    std::vector<char> may(static_cast<std::size_t>(d.src_elements()), 0);
    for (std::int64_t n = 0; n < d.batch; ++n) {
        const auto first = may.begin() + (n * d.in_channels + c) * per_c;
        std::fill(first, first + per_c, 1);
    }
    return may;
}

}  // namespace

void check_backward_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                          const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const bool data = d.pass == Pass::backward_data;
    BackwardInputs in = backward_inputs(d, contract, accuracy::Mode::bound, c.seed);
    if (data) in.weights = accuracy::make_probe_fill(d, c.seed).weights;
    const std::int64_t dst_elements = d.dst_elements();
    // the second probed tensor: weights (backward data) or src (backward weights), canonical dims
    std::vector<std::int64_t> dst_dims{d.batch, d.out_channels}, other_dims;
    if (data) other_dims = {d.out_channels, d.in_channels_per_group()};
    else other_dims = {d.batch, d.in_channels};
    for (int a = 0; a < d.rank; ++a)
        dst_dims.push_back(d.output_size(a)), other_dims.push_back(data ? d.kernel_size[a] : d.input_size[a]);
    const char* other = data ? "weights" : "src";
    auto probed_name = [&](std::int64_t flat) {
        return flat < dst_elements ? "diff_dst" + coordinates_text(element_coordinates(dst_dims, false, flat))
                                   : other + coordinates_text(element_coordinates(other_dims, false, flat - dst_elements));
    };
    ProbeJudge judge(contract, gradient_location(d),
                     {"diff_dst", "the elements the forward pairs it with", "the elements the forward pairs it with",
                      [&d](std::int64_t flat) { return gradient_element(d, flat); }, probed_name});
    std::vector<std::int64_t> probes = accuracy::probe_elements(dst_elements, c.seed, s.random_probes);
    const std::int64_t other_elements = data ? d.weights_elements() : d.src_elements();
    for (const std::int64_t e : accuracy::probe_elements(other_elements, c.seed ^ 0x7a65726fULL, s.random_probes))
        probes.push_back(dst_elements + e);  // "zero": not the diff_dst picks' stream
    for (const std::int64_t probe : probes) {
        BackwardInputs probed = in;
        std::vector<double>& other_tensor = data ? probed.weights : probed.src;
        double* nan = nullptr;
        if (probe < dst_elements) {
            nan = &probed.diff_dst[static_cast<std::size_t>(probe)];
            if (const auto pair = first_pair_with_dst(d, probe))
                other_tensor[static_cast<std::size_t>(data ? pair->weights : pair->src)] = 0.0;
        } else {
            const std::int64_t e = probe - dst_elements;
            nan = &other_tensor[static_cast<std::size_t>(e)];
            if (const auto pair = data ? first_pair_with_weights(d, e) : first_pair_with_src(d, e))
                probed.diff_dst[static_cast<std::size_t>(pair->dst)] = 0.0;
        }
        // the reference on the same data without the NaN (the zero in place) judges the rest under the bound
        reference::GradientResult plain = backward_reference(d, c.mode, probed);
        // a declared whole-tensor bound takes the whole tensor's largest M and n, the probed elements' included
        const accuracy::BoundScale scale = accuracy::bound_scale(contract, plain.magnitude, plain.terms);
        for (double& m : plain.magnitude) m = scale.magnitude(m);
        for (std::int64_t& t : plain.terms) t = scale.terms(t);
        *nan = std::numeric_limits<double>::quiet_NaN();
        const reference::GradientResult want = backward_reference(d, c.mode, probed);
        const std::vector<char> may_reach = probe < dst_elements ? padded_taps(d, probe)
                                            : data                ? padded_diff_dst(d, probe - dst_elements)
                                                                  : std::vector<char>{};
        BackwardOutputs out;
        const ChildOutcome o = run_backward(backend, d, probed, s, needs, out);
        if (outcome_status(o, r)) return;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        judge.add({probe, want.values, out.got, plain.values, plain.magnitude, plain.terms, {}, out.unwritten,
                   may_reach});
        leak_status(o, s, r);
    }
    judge.finish(r);
}

}  // namespace convcheck::runner::detail
