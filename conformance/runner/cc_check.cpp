// Checking one CC case (seed 004): src, theta and bias drawn from the seed, the CC reference's
// exact result (reading 1, in double) and the backend's, compared in bound or probe mode under the
// CC accuracy contract (docs/cc.md): the discrete bound plus the error of the backend's own
// evaluation of the weights K_theta(D) in its accumulation precision (weight_error).
// Exact mode does not apply: K_theta computes the weights, so no integer data keeps them exact.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "abi_descriptor.hpp"
#include "cc_descriptor.hpp"
#include "check_detail.hpp"
#include "manifest.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/internal_net.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::runner::detail {

namespace {

struct CcData {
    std::vector<float> src, theta, bias;
};

CcData make_cc_data(const CcDescriptor& d, std::uint64_t seed) {
    CcData data;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    data.src.resize(d.src_elements());
    for (float& v : data.src) v = u(rng);
    if (d.has_bias) {
        data.bias.resize(d.out_channels);
        for (float& v : data.bias) v = u(rng);
    }
    if (d.kernel == CcKernel::internal_net)
        for (double v : reference::cc::initialise_internal_net(d, seed).theta()) data.theta.push_back(static_cast<float>(v));
    return data;
}

// A stored golden vector's src, theta and bias (checksummed, checked against the descriptor).
// The truth is the CC reference on these inputs, as for generated data: ctest checks that the
// reference reproduces every stored CC result (vectors_reference_vectors_test).
CcData stored_cc_data(const Case& c, const CcDescriptor& d) {
    const vectors::VectorSet set = vectors::load_vector_set(c.vector_dir);
    const vectors::VectorCase* stored = &stored_case(set, c);
    if (!(parse_cc_descriptor(stored->descriptor) == d))
        throw std::invalid_argument("stored vector " + c.vector_case + " is " + stored->descriptor + ", not " + to_string(d));
    auto load = [&](const char* role, std::int64_t elements) {
        std::vector<float> values;
        const vectors::ArrayEntry* e = stored->array(role);
        if (!e) return values;
        const npy::Array a = vectors::load_array(set, *stored, *e);
        if (a.type != npy::ElementType::f32 || a.elements() != elements)
            throw std::invalid_argument("stored CC vector " + stored->name + ": array '" + role + "' must be f32 with " +
                                        std::to_string(elements) + " elements");
        values.resize(static_cast<std::size_t>(elements));
        std::memcpy(values.data(), a.data.data(), values.size() * sizeof(float));
        return values;
    };
    CcData data;
    data.src = load("src", d.src_elements());
    if (d.kernel == CcKernel::internal_net) data.theta = load("theta", d.theta_elements());
    if (d.has_bias) data.bias = load("bias", d.out_channels);
    return data;
}

GuardedBuffer guarded_copy(const std::vector<float>& values) {
    GuardedBuffer b(values.size() * sizeof(float));
    if (!values.empty()) std::memcpy(b.data(), values.data(), values.size() * sizeof(float));
    return b;
}

// [n, c, y, x] of a flat NCHW output index.
std::vector<std::int64_t> cc_coordinates(const CcDescriptor& d, std::int64_t flat) {
    const std::int64_t W = d.output_size[1], H = d.output_size[0], C = d.out_channels;
    return {flat / (W * H * C), (flat / (W * H)) % C, (flat / W) % H, flat % W};
}

}  // namespace

void check_cc(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r) {
    const CcDescriptor d = parse_cc_descriptor(c.cc);
    if (!(backend.info.operations & CONVCHECK_OP_CC)) {
        r.status = Status::unsupported;
        r.kind = Kind::declined;
        r.reason = "the plugin does not claim continuous convolution";
        return;
    }
    if (c.mode != accuracy::Mode::bound && c.mode != accuracy::Mode::probe) {
        r.status = Status::unsupported;
        r.kind = Kind::declined;
        r.reason = std::string(accuracy::to_string(c.mode)) +
                   " mode does not apply to CC layers: K_theta computes the weights (use bound or probe)";
        return;
    }
    const CaseMemory needs = case_memory(c);
    if (refused_for_memory(needs, s, r)) return;
    const accuracy::Contract contract = contract_for(backend, d.dtype);
    const CcData data = c.vector_dir.empty() ? make_cc_data(d, c.seed) : stored_cc_data(c, d);
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

    // One isolated execution on `src`: the backend's outputs and how many it never wrote; false when
    // the child did not come back ok (r says why).
    std::vector<double> got;
    std::int64_t unwritten = 0;
    auto execute = [&](const std::vector<float>& src) {
        const GuardedBuffer src_buffer = guarded_copy(src), theta_buffer = guarded_copy(data.theta),
                            bias_buffer = guarded_copy(data.bias);
        GuardedBuffer dst(d.dst_elements() * sizeof(float));
        std::memset(dst.data(), 0xFF, dst.bytes());
        CcExecution e;
        e.desc = to_abi(d);
        e.src = &src_buffer;
        e.theta = theta ? &theta_buffer : nullptr;
        e.bias = bias ? &bias_buffer : nullptr;
        e.dst = &dst;
        e.leak_check = s.leak_check;
        e.timeout_s = s.timeout_s;
        e.memory = {s.memory_limit_bytes, needs.total()};
        const ChildOutcome o = execute_cc(*backend.plugin, backend.options, e);
        if (s.log) s.log->record(e.src, e.theta, e.bias, dst, o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
        if (outcome_status(o, r)) return false;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        leak_status(o, s, r);
        const float* out = static_cast<const float*>(dst.data());
        got.assign(out, out + d.dst_elements());
        unwritten = unwritten_elements(dst.data(), d.dst_elements(), sizeof(float));
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
            judge.add({element, want.dst, got, plain.dst, plain.magnitude, plain.terms, weight_error, unwritten});
        }
        judge.finish(r);
        return;
    }

    if (!execute(data.src)) return;
    const auto cmp = accuracy::compare_bound_cc(contract, plain.dst, plain.magnitude, plain.terms, weight_error, got);
    ErrorReport e;
    e.comparison = cmp;
    if (cmp.worst_index >= 0) e.worst_coordinates = cc_coordinates(d, cmp.worst_index);
    if (cmp.mismatches > 0)
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double bound =
                accuracy::cc_error_bound(contract, plain.dst[i], plain.magnitude[i], plain.terms[i], weight_error[i]);
            if (accuracy::bound_fraction(contract, plain.dst[i], got[i], bound) <= 1.0) continue;
            if (where.touches_border(static_cast<std::int64_t>(i))) ++e.border_mismatches;
            else ++e.interior_mismatches;
        }
    r.error = e;
    if (r.status == Status::passed && !cmp.passed()) {
        const std::int64_t first = cmp.first_mismatch;
        std::ostringstream why;
        why << cmp.mismatches << " of " << got.size() << " outputs exceed the error bound (" << e.border_mismatches
            << " where the window reaches the border, " << e.interior_mismatches << " inside); first at "
            << coordinates_text(cc_coordinates(d, first)) << ": got " << format_double(got[first]) << ", want "
            << format_double(plain.dst[first]) << "; worst " << format_double(cmp.max_bound_fraction) << "x the bound";
        if (std::isfinite(cmp.max_bound_fraction)) {
            e.bound_growth_needed = cmp.max_bound_fraction;
            why << ": the per_output bound would have to grow " << format_double(cmp.max_bound_fraction)
                << "x to pass";
        }
        const std::int64_t nan = nan_outputs(got, plain.dst);
        if (unwritten) why << "; " << unwritten << " outputs never written";
        else if (nan) why << "; NaN in " << nan << " outputs where the reference is finite";
        r.status = Status::failed;
        r.kind = mismatch_kind(unwritten, nan);
        r.reason = why.str();
        r.error->bound_growth_needed = e.bound_growth_needed;
    }
    apply_statistics(cmp, r);
}

}  // namespace convcheck::runner::detail
