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

    std::vector<std::int64_t> probes{-1};  // -1: no probe (bound mode)
    if (c.mode == accuracy::Mode::probe) {
        std::mt19937_64 rng(c.seed ^ 0x5bd1e995ull);
        probes = {0, d.src_elements() - 1, std::uniform_int_distribution<std::int64_t>(0, d.src_elements() - 1)(rng)};
    }
    ErrorReport total;
    std::string problem;
    Kind problem_kind = Kind::none;
    for (const std::int64_t element : probes) {
        std::vector<float> src = data.src;
        if (element >= 0) src[element] = std::numeric_limits<float>::quiet_NaN();
        const auto want = element >= 0 ? reference::cc::continuous_convolution(d, src.data(), theta, bias) : plain;
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
        if (outcome_status(o, r)) return;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        leak_status(o, s, r);
        const float* out = static_cast<const float*>(dst.data());
        std::vector<double> got(out, out + d.dst_elements());
        const std::int64_t unwritten = unwritten_elements(dst.data(), d.dst_elements(), sizeof(float));
        // bound mode over the outputs the probe (if any) does not reach
        std::vector<double> w, g, m, we;
        std::vector<std::int64_t> t, index;
        // reserved: their peak is part of the case's memory needs (case_memory.cpp)
        w.reserve(got.size()), g.reserve(got.size()), m.reserve(got.size()), we.reserve(got.size());
        t.reserve(got.size()), index.reserve(got.size());
        std::int64_t leaked = 0, missing = 0, first_leaked = -1, first_missing = -1;
        for (std::size_t i = 0; i < got.size(); ++i) {
            const bool expected = std::isnan(want.dst[i]), reached = std::isnan(got[i]);
            if (element >= 0 && reached && !expected && leaked++ == 0) first_leaked = static_cast<std::int64_t>(i);
            if (element >= 0 && expected && !reached && missing++ == 0) first_missing = static_cast<std::int64_t>(i);
            if (element >= 0 && (expected || reached)) continue;
            w.push_back(plain.dst[i]), g.push_back(got[i]), m.push_back(plain.magnitude[i]), t.push_back(plain.terms[i]);
            we.push_back(weight_error[i]);
            index.push_back(static_cast<std::int64_t>(i));
        }
        const auto cmp = accuracy::compare_bound_cc(contract, w, m, t, we, g);
        auto& tc = total.comparison;
        if (element < 0) tc.statistics = cmp.statistics;  // bound mode: its vacuous outputs, if any
        tc.elements += static_cast<std::int64_t>(got.size());
        tc.mismatches += cmp.mismatches + leaked + missing;
        tc.max_abs = std::max(tc.max_abs, cmp.max_abs);
        for (int h = 0; h < 11; ++h) tc.bound_fraction_histogram[h] += cmp.bound_fraction_histogram[h];
        if (cmp.worst_index >= 0 && (tc.worst_index < 0 || cmp.max_bound_fraction > tc.max_bound_fraction)) {
            tc.max_bound_fraction = cmp.max_bound_fraction;
            tc.worst_index = index[cmp.worst_index];
            tc.worst_got = cmp.worst_got, tc.worst_want = cmp.worst_want, tc.worst_bound = cmp.worst_bound;
            total.worst_coordinates = cc_coordinates(d, tc.worst_index);
        }
        if (!problem.empty()) continue;
        std::ostringstream why;
        if (leaked || missing) {
            why << "NaN probe at src element " << element << ": ";
            if (leaked) why << leaked << " outputs outside its receptive field got NaN (first "
                            << coordinates_text(cc_coordinates(d, first_leaked)) << ")";
            if (leaked && missing) why << ", ";
            if (missing) why << missing << " outputs inside it did not (first "
                             << coordinates_text(cc_coordinates(d, first_missing)) << ")";
            if (unwritten) why << "; " << unwritten << " outputs never written";
            problem_kind = unwritten ? Kind::unwritten : Kind::probe;
        } else if (!cmp.passed()) {
            const std::int64_t first = index[cmp.first_mismatch];
            why << cmp.mismatches << " of " << got.size() << " outputs exceed the error bound; first at "
                << coordinates_text(cc_coordinates(d, first)) << ": got " << format_double(got[first]) << ", want "
                << format_double(plain.dst[first]) << "; worst " << format_double(cmp.max_bound_fraction) << "x the bound";
            const std::int64_t nan = nan_outputs(got, plain.dst);
            if (unwritten) why << "; " << unwritten << " outputs never written";
            else if (nan) why << "; NaN in " << nan << " outputs where the reference is finite";
            problem_kind = mismatch_kind(unwritten, nan);
        }
        problem = why.str();
    }
    r.error = total;
    if (r.status == Status::passed && !problem.empty()) {
        r.status = Status::failed;
        r.kind = problem_kind;
        r.reason = problem;
    }
    apply_statistics(total.comparison, r);
}

}  // namespace convcheck::runner::detail
