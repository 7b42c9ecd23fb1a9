// CC's entry in the case pipeline (operation_traits.cpp; seed 004): the CC reference's exact result
// (reading 1, in double) and the backend's, compared in bound or probe mode under the CC accuracy
// contract (docs/cc.md): the discrete bound plus the error of the backend's own evaluation of the
// weights K_theta(D) in its accumulation precision (weight_error).
// Exact mode does not apply: K_theta computes the weights, so no integer data keeps them exact.
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "operation.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::runner::detail {

void cc_validate(const Case& c) { parse_cc_descriptor(c.cc); }

DataType cc_output_dtype(const Case& c) { return parse_cc_descriptor(c.cc).dtype; }

std::string cc_mode_not_applicable(accuracy::Mode mode) {
    if (mode == accuracy::Mode::bound || mode == accuracy::Mode::probe) return "";
    return std::string(accuracy::to_string(mode)) +
           " mode does not apply to CC layers: K_theta computes the weights (use bound or probe)";
}

namespace {

// [n, c, y, x] of a flat NCHW output index.
std::vector<std::int64_t> cc_coordinates(const CcDescriptor& d, std::int64_t flat) {
    const std::int64_t W = d.output_size[1], H = d.output_size[0], C = d.out_channels;
    return {flat / (W * H * C), (flat / (W * H)) % C, (flat / W) % H, flat % W};
}

// The bound comparison of the backend's outputs, judged into r.
void judge_bound(const CcDescriptor& d, const accuracy::Contract& contract, const reference::ConvResult& plain,
                 const std::vector<double>& weight_error, const CcOutputs& out, const OutputLocation& where,
                 CaseResult& r) {
    const std::vector<double>& got = out.got;
    ErrorReport e;
    const auto cmp = accuracy::compare_bound_cc(contract, plain.dst, plain.magnitude, plain.terms, weight_error, got,
                                                count_failures(e, where));
    complete_error_report(where, cmp, true, e);
    r.error = e;
    if (r.status == Status::passed && !cmp.passed()) {
        const std::int64_t first = cmp.first_mismatch;
        std::ostringstream why;
        why << cmp.mismatches << " of " << got.size() << " outputs exceed the error bound (" << e.border_mismatches
            << " where the window reaches the border, " << e.interior_mismatches << " inside); first at "
            << coordinates_text(cc_coordinates(d, first)) << ": got " << format_double(got[first]) << ", want "
            << format_double(plain.dst[first]) << "; worst " << format_double(cmp.max_bound_fraction) << "x the bound";
        if (e.bound_growth_needed)
            why << ": the per_output bound would have to grow " << format_double(*e.bound_growth_needed) << "x to pass";
        const std::int64_t nan = nan_outputs(got, plain.dst);
        if (out.unwritten) why << "; " << out.unwritten << " outputs never written";
        else if (nan) why << "; NaN in " << nan << " outputs where the reference is finite";
        r.status = Status::failed;
        r.kind = mismatch_kind(out.unwritten, nan);
        r.reason = why.str();
    }
    apply_statistics(cmp, r);
}

}  // namespace

void check_cc(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
              const CaseMemory& needs, CaseResult& r) {
    const CcDescriptor d = parse_cc_descriptor(c.cc);
    const CcData data = cc_case_data(c, d);
    const float* theta = data.theta.empty() ? nullptr : data.theta.data();
    const float* bias = d.has_bias ? data.bias.data() : nullptr;
    const auto plain = reference::cc::continuous_convolution(d, data.src.data(), theta, bias);
    // sum |N| deltaW per output, for a backend evaluating K_theta in its accumulation precision
    const std::vector<double> weight_error =
        reference::cc::cc_weight_error(d, data.src.data(), theta, accuracy::accumulation_roundoff(contract));

    // Where the window [g - k/2, g + k/2) of an output reaches outside the input (zero padding).
    const reference::cc::ProjectedGrid grid = reference::cc::projected_grid(d);
    const reference::cc::AxisWindow windows[2] = {reference::cc::neighbour_window(grid.axes[0], d.support[0]),
                                                  reference::cc::neighbour_window(grid.axes[1], d.support[1])};
    const OutputLocation where{[&](std::int64_t flat) { return cc_coordinates(d, flat); },
                               [&](std::int64_t flat) {
                                   const auto at = cc_coordinates(d, flat);
                                   for (int a = 0; a < 2; ++a) {
                                       const std::int64_t first = windows[a].first[static_cast<std::size_t>(at[2 + a])];
                                       if (first < 0 || first + d.support[a] > d.input_size[a]) return true;
                                   }
                                   return false;
                               }};

    // One isolated execution on `src`; false when the child did not come back ok (r says why).
    CcOutputs out;
    auto execute = [&](const std::vector<float>& src) {
        const ChildOutcome o = run_cc_backend(backend, d, data, src, s, needs, out);
        if (outcome_status(o, r)) return false;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        leak_status(o, s, r);
        return true;
    };

    if (c.mode == accuracy::Mode::probe) {
        ProbeJudge judge(contract, where);
        std::mt19937_64 rng(c.seed ^ 0x5bd1e995ull);
        const std::int64_t probes[] = {0, d.src_elements() - 1,
                                       std::uniform_int_distribution<std::int64_t>(0, d.src_elements() - 1)(rng)};
        for (const std::int64_t element : probes) {
            std::vector<float> src = data.src;
            src[element] = std::numeric_limits<float>::quiet_NaN();
            const auto want = reference::cc::continuous_convolution(d, src.data(), theta, bias);
            if (!execute(src)) return;
            judge.add({element, want.dst, out.got, plain.dst, plain.magnitude, plain.terms, weight_error, out.unwritten, {}});
        }
        judge.finish(r);
        return;
    }
    if (!execute(data.src)) return;
    judge_bound(d, contract, plain, weight_error, out, where, r);
}

}  // namespace convcheck::runner::detail
