// The CC backward pass's entry in the case pipeline (operation_traits.cpp; docs/cc-backward.md): its
// claims and modes, its memory, and the check: the forward's src and theta with a diff_dst of the seed
// (cc_backward/data.cpp) or a stored vector's (cc_backward/stored.cpp), the spec-literal reference (reference/cc/backward.hpp: every gradient, its
// magnitude and its term count), one isolated execution, and the comparison under the CC backward
// contract: per gradient element
//     u_out |g*| + (1 + u_out) A + R + eta_out
// with A the rigorous bound of a backend of the contract's accumulation roundoff that computes the
// distances itself (cc_backward_backend_error) and R the reference's own (cc_backward_error_bound).
// Exact mode does not apply: K_theta computes the weights, as in the forward. Probe mode:
// cc_backward/probe.cpp.
#include <algorithm>
#include <cmath>

#include "operation.hpp"
#include "convcheck/runner/operation_jobs.hpp"
#include "convcheck/reference/cc/backward.hpp"

namespace convcheck::runner::detail {

using accuracy::Mode;

std::string cc_backward_mode_not_applicable(Mode mode) {
    if (mode == Mode::bound || mode == Mode::probe) return "";
    const std::string why =
        mode == Mode::exact || mode == Mode::precision
            ? "K_theta computes the weights, and diff_theta multiplies the Internal-Net's activations and "
              "LeakyReLU' through three layers, so no integer data keeps the gradients exact"
            : "only bound and probe mode's data and contracts are written for it";
    return std::string(accuracy::to_string(mode)) + " mode does not apply to the CC backward pass (" + why +
           "; docs/cc-backward.md)";
}

std::string cc_backward_unclaimed(const PluginInfo& info, const Case&) {
    if (info.abi_major == 1 && info.abi_minor < 4)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has no CC backward pass (ABI 1.4)";
    return "";
}

CcGradientIndex cc_gradient_index(const CcDescriptor& d, std::int64_t flat) {
    if (flat < d.src_elements()) return {"diff_src", element_coordinates(d.src_dims(), false, flat)};
    flat -= d.src_elements();
    if (d.kernel == CcKernel::internal_net) {
        if (flat < d.theta_elements()) return {"diff_theta", {flat}};
        flat -= d.theta_elements();
    }
    return {"diff_bias", {flat}};
}

std::string cc_gradient_element(const CcDescriptor& d, std::int64_t flat) {
    const CcGradientIndex g = cc_gradient_index(d, flat);
    return g.tensor + coordinates_text(g.coordinates);
}

namespace {

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

std::vector<double> cc_gradients(const reference::cc::CcBackward& g) {
    std::vector<double> values = g.diff_src;
    append(values, g.diff_theta), append(values, g.diff_bias);
    return values;
}

CcBackwardExpected cc_backward_expected(const CcDescriptor& d, const CcData& data, const std::vector<float>& diff_dst,
                                        const accuracy::Contract& contract) {
    namespace ref = reference::cc;
    const float* theta = data.theta.empty() ? nullptr : data.theta.data();
    const ref::CcBackward want = ref::cc_backward(d, data.src.data(), theta, diff_dst.data());
    const ref::ContinuousKernel kernel = ref::ContinuousKernel::for_buffer(d, theta);
    const std::vector<double> src64(data.src.begin(), data.src.end()), dd64(diff_dst.begin(), diff_dst.end());
    const ref::CcBackwardBound own = ref::cc_backward_error_bound(d, kernel, dd64, want);
    // u + 2^-53: the backend's term also decides the LeakyReLU branches the reference's rounding cannot
    const ref::CcBackwardBound backend_term =
        ref::cc_backward_backend_error(d, src64, kernel, dd64, want, accuracy::accumulation_roundoff(contract) + 0x1.0p-53);

    CcBackwardExpected e;
    e.values = cc_gradients(want);
    e.magnitude = want.diff_src_magnitude, e.terms = want.diff_src_terms;
    append(e.magnitude, want.diff_theta_magnitude);
    e.terms.resize(e.magnitude.size(), want.diff_theta_roundings);
    append(e.magnitude, want.diff_bias_magnitude);
    e.terms.resize(e.magnitude.size(), want.diff_bias_terms);
    std::vector<double> reference_error = own.diff_src, accumulated = backend_term.diff_src;
    append(reference_error, own.diff_theta), append(accumulated, backend_term.diff_theta);
    append(reference_error, own.diff_bias), append(accumulated, backend_term.diff_bias);
    e.bounds.resize(e.values.size());
    for (std::size_t i = 0; i < e.values.size(); ++i)
        e.bounds[i] = accuracy::output_error_bound(contract, e.values[i], accumulated[i]) + reference_error[i];
    return e;
}

void check_cc_backward(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const CcDescriptor d = parse_cc_descriptor(c.cc);
    // drawn from the seed, or a stored CC backward vector's inputs (the cc_backward set)
    std::vector<float> diff_dst;
    const CcData data = c.vector_dir.empty() ? cc_case_data(c, d) : stored_cc_backward_data(c, d, diff_dst);
    if (c.vector_dir.empty()) diff_dst = cc_backward_diff_dst(d, c.seed);
    const CcBackwardExpected want = cc_backward_expected(d, data, diff_dst, contract);
    if (c.mode == Mode::probe) return check_cc_backward_probe(backend, c, d, {data, diff_dst, want}, s, contract, needs, r);

    CcGradients out;
    const ChildOutcome o = run_cc_backward(backend, d, data, diff_dst, s, needs, out);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    judge_summed_outputs(contract, false, {want.values, want.magnitude, want.terms, out.got, out.unwritten, &want.bounds},
                         "gradient elements", [&d](std::int64_t i) { return cc_gradient_element(d, i); }, o, s, r);
}

}  // namespace convcheck::runner::detail
