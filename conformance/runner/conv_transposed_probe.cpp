// Probe mode for transposed convolution (check_detail.hpp; the ProbeJudge of check_probe.cpp): the backend
// runs once per probed src element with a NaN there; the NaN must reach exactly the outputs the index set
// pairs that input with (x = y*s - pb + k*d inside the output, whatever the weight: NaN * 0 is NaN), and
// every output it does not reach stays inside the error bound.
#include <limits>

#include "convcheck/runner/check_detail.hpp"
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

}  // namespace

void check_transposed_probe(const Backend& backend, const Case& c, const CheckSettings& s,
                            const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const TransposedDescriptor& t = c.deconv;
    const TransposedInputs in = transposed_inputs(t, contract, accuracy::Mode::bound, c.seed);
    auto plain = reference::transposed_convolution_summation(t, in.src, in.weights, in.bias);
    // a declared whole-tensor bound takes the whole tensor's largest M and n, the probed outputs' included
    const accuracy::BoundScale scale = accuracy::bound_scale(contract, plain.magnitude, plain.terms);
    for (double& m : plain.magnitude) m = scale.magnitude(m);
    for (std::int64_t& n : plain.terms) n = scale.terms(n);
    ProbeJudge judge(contract, transposed_location(t));
    // probe_elements picks flat indices into a src of its descriptor's size: a 1-D one with t's src elements
    ConvDescriptor src_space;
    src_space.rank = 1;
    src_space.input_size[0] = t.src_elements();
    for (const std::int64_t element : accuracy::probe_elements(src_space, c.seed, s.random_probes)) {
        TransposedInputs probed = in;
        probed.src[static_cast<std::size_t>(element)] = std::numeric_limits<double>::quiet_NaN();
        const auto want = reference::transposed_convolution_summation(t, probed.src, probed.weights, probed.bias);
        TransposedOutputs out;
        const ChildOutcome o = run_transposed(backend, t, probed, s, needs, out);
        if (outcome_status(o, r)) return;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        judge.add({element, want.dst, out.got, plain.dst, plain.magnitude, plain.terms, {}, out.unwritten, {}});
        leak_status(o, s, r);
    }
    judge.finish(r);
}

}  // namespace convcheck::runner::detail
