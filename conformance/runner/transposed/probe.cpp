// Probe mode for transposed convolution (case_pipeline.hpp; the ProbeJudge of probe_judge.cpp): the backend
// runs once per probed element with a NaN there and, when the element has a partner in the index set, a
// zero opposite it (probe_partners.cpp, on the forward convolution it transposes, whose dst is this src):
//   src[n, c, y]     (the first, the last and --probes random ones), with a zero weight in its first term;
//   weights[c, o, k] (the same picks over the weights), with a zero src element in its first term.
// The NaN must reach exactly the outputs the index set pairs it with (x = y*s - pb + k*d inside the
// output, whatever the other factor: NaN * 0 is NaN, IEEE), so a backend that skips a zero weight or a
// zero input (as sparse kernels do) fails. A NaN weight may also reach any output of its tap's output channel:
// an implementation that zero-stuffs or pads src multiplies it by zeros that are no element of src (as the
// backward-weights probe allows for padding); a NaN in another channel is a leak. Every output the NaN does
// not reach stays inside the error bound,
// against the reference on the same data without the NaN (the zero in place). The flat probed index runs
// over src, then weights, back to back (error.probe.src_elements).
#include <algorithm>
#include <limits>

#include "operation.hpp"
#include "convcheck/reference/transposed.hpp"
#include "convcheck/runner/operation_jobs.hpp"
#include "convcheck/accuracy/probe.hpp"

namespace convcheck::runner::detail {

namespace {

// Whether some tap of output x pairs it with an input position outside [0, in) on some axis: the output's
// sum lacks terms the interior has (its "border"). coordinates: [n, o, x...].
bool transposed_touches_border(const TransposedDescriptor& t, const std::vector<std::int64_t>& coordinates) {
    for (int a = 0; a < t.rank; ++a)
        for (std::int64_t k = 0; k < t.kernel_size[a]; ++k) {
            const std::int64_t stuffed = coordinates[2 + a] + t.pads_begin[a] - k * t.dilations[a];  // = y * s
            if (stuffed % t.strides[a] != 0) continue;
            const std::int64_t y = stuffed / t.strides[a];
            if (stuffed < 0 || y >= t.input_size[a]) return true;
        }
    return false;
}

OutputLocation transposed_location(const TransposedDescriptor& t) {
    const std::vector<std::int64_t> dims = ncx_dims(t.dst_dims(), t.data_format == DataFormat::nxc);
    return {[dims](std::int64_t flat) { return element_coordinates(dims, false, flat); },
            [t, dims](std::int64_t flat) { return transposed_touches_border(t, element_coordinates(dims, false, flat)); }};
}

// The outputs a NaN at weights element `element` ([C][O/G][k...]) may reach through a padded or zero-stuffed
// zero: dst[n, o, x] of the tap's output channel o for every n and x (an implementation that zero-stuffs src or
// pads it explicitly, as a direct convolution of the stuffed input does, multiplies the weight by zeros that are
// no element of src; the reference says which outputs must take it).
std::vector<char> stuffed_src(const TransposedDescriptor& t, std::int64_t element) {
    const std::int64_t per_c = t.weights_elements() / t.in_channels, ocg = t.out_channels / t.groups;
    const std::int64_t c = element / per_c, oc = element % per_c / (per_c / ocg);
    const std::int64_t o = c / (t.in_channels / t.groups) * ocg + oc, per_o = t.dst_elements() / t.batch / t.out_channels;
    std::vector<char> may(static_cast<std::size_t>(t.dst_elements()), 0);
    for (std::int64_t n = 0; n < t.batch; ++n) {
        const auto first = may.begin() + (n * t.out_channels + o) * per_o;
        std::fill(first, first + per_o, 1);
    }
    return may;
}

}  // namespace

void check_transposed_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                            const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const TransposedDescriptor& t = c.deconv;
    const ConvDescriptor f = t.forward();  // src is f's dst, weights f's weights, dst f's src: the partners
    const TransposedInputs in = transposed_inputs(t, contract, accuracy::Mode::bound, c.seed);
    const std::int64_t src_elements = t.src_elements();
    std::vector<std::int64_t> weights_dims{t.in_channels, t.out_channels / t.groups};
    for (int a = 0; a < t.rank; ++a) weights_dims.push_back(t.kernel_size[a]);
    const std::vector<std::int64_t> src_dims = ncx_dims(t.src_dims(), t.data_format == DataFormat::nxc);
    auto probed_name = [&](std::int64_t flat) {
        return flat < src_elements ? "src" + coordinates_text(element_coordinates(src_dims, false, flat))
                                   : "weights" + coordinates_text(element_coordinates(weights_dims, false, flat - src_elements));
    };
    const std::vector<std::int64_t> dst_dims = ncx_dims(t.dst_dims(), t.data_format == DataFormat::nxc);
    auto dst_name = [&](std::int64_t flat) { return "dst" + coordinates_text(element_coordinates(dst_dims, false, flat)); };
    ProbeJudge judge(contract, transposed_location(t), {"src", "its receptive field", "the receptive field", dst_name, probed_name});
    // probe_elements picks flat indices into a tensor of that many elements
    std::vector<std::int64_t> probes = accuracy::probe_elements(src_elements, c.seed, s.random_probes);
    for (const std::int64_t e : accuracy::probe_elements(t.weights_elements(), c.seed ^ 0x7a65726fULL, s.random_probes))
        probes.push_back(src_elements + e);  // "zero": not the src picks' stream
    for (const std::int64_t probe : probes) {
        TransposedInputs probed = in;
        double* nan = nullptr;
        if (probe < src_elements) {
            nan = &probed.src[static_cast<std::size_t>(probe)];
            if (const auto pair = first_pair_with_dst(f, probe)) probed.weights[static_cast<std::size_t>(pair->weights)] = 0.0;
        } else {
            nan = &probed.weights[static_cast<std::size_t>(probe - src_elements)];
            if (const auto pair = first_pair_with_weights(f, probe - src_elements))
                probed.src[static_cast<std::size_t>(pair->dst)] = 0.0;
        }
        auto plain = reference::transposed_convolution_summation(t, probed.src, probed.weights, probed.bias);
        // a declared whole-tensor bound takes the whole tensor's largest M and n, the probed outputs' included
        const accuracy::BoundScale scale = accuracy::bound_scale(contract, plain.magnitude, plain.terms);
        for (double& m : plain.magnitude) m = scale.magnitude(m);
        for (std::int64_t& n : plain.terms) n = scale.terms(n);
        *nan = std::numeric_limits<double>::quiet_NaN();
        const auto want = reference::transposed_convolution_summation(t, probed.src, probed.weights, probed.bias);
        TransposedOutputs out;
        const ChildOutcome o = run_transposed(backend, t, probed, s, needs, out);
        if (outcome_status(o, r)) return;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        const std::vector<char> may_reach = probe < src_elements ? std::vector<char>{} : stuffed_src(t, probe - src_elements);
        judge.add({probe, want.dst, out.got, plain.dst, plain.magnitude, plain.terms, {}, out.unwritten, may_reach});
        leak_status(o, s, r);
    }
    judge.finish(r);
}

}  // namespace convcheck::runner::detail
