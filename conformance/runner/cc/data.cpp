// CC's case data (seed 004) and its trip through the backend: src, theta and bias drawn from the
// seed or read from a stored golden vector, into guarded f32 buffers, one isolated execution
// (cc/calls.cpp), and the outputs read back.
#include <cstring>
#include <random>
#include <stdexcept>

#include "convcheck/abi/abi_descriptor.hpp"
#include "operation.hpp"
#include "convcheck/reference/cc/internal_net.hpp"
#include "convcheck/formats/cc_case_data.hpp"

namespace convcheck::runner::detail {

namespace {

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

// A stored golden vector's src, theta and bias, through the typed loader (formats/cc_case_data.hpp: checksum,
// f32, the layer's dims, every array the layer needs and none other). The truth is the CC reference on these
// inputs, as for generated data: ctest checks that the reference reproduces every stored CC result
// (vectors_reference_vectors_test).
CcData stored_cc_data(const Case& c, const CcDescriptor& d) {
    const vectors::VectorSet set = vectors::load_vector_set(c.vector_dir);
    const vectors::CcCaseData stored = vectors::load_cc_case_data(set, stored_case(set, c));
    if (!(stored.descriptor == d))
        throw std::invalid_argument("stored vector " + c.vector_case + " is " + to_string(stored.descriptor) + ", not " + to_string(d));
    CcData data;
    data.src = stored_floats(stored.src);
    data.theta = stored_floats(stored.theta);
    data.bias = stored_floats(stored.bias);
    return data;
}

}  // namespace

std::vector<float> stored_floats(const npy::Array& a) {
    if (a.shape.empty()) return {};  // not stored (theta of an analytic kernel)
    std::vector<float> v(static_cast<std::size_t>(a.elements()));
    if (!v.empty()) std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
    return v;
}

GuardedBuffer guarded_copy(const std::vector<float>& values) {
    GuardedBuffer b(values.size() * sizeof(float));
    if (!values.empty()) std::memcpy(b.data(), values.data(), values.size() * sizeof(float));
    return b;
}

CcData cc_case_data(const Case& c, const CcDescriptor& d) {
    return c.vector_dir.empty() ? make_cc_data(d, c.seed) : stored_cc_data(c, d);
}

ChildOutcome run_cc_backend(const Backend& backend, const CcDescriptor& d, const CcData& data,
                            const std::vector<float>& src, const CheckSettings& s, const CaseMemory& needs,
                            CcOutputs& out) {
    const GuardedBuffer src_buffer = guarded_copy(src), theta_buffer = guarded_copy(data.theta),
                        bias_buffer = guarded_copy(data.bias);
    GuardedBuffer dst(d.dst_elements() * sizeof(float));
    std::memset(dst.data(), 0xFF, dst.bytes());
    CcExecution e;
    e.desc = to_abi(d);
    e.src = &src_buffer;
    e.theta = data.theta.empty() ? nullptr : &theta_buffer;
    e.bias = d.has_bias ? &bias_buffer : nullptr;
    e.dst = &dst;
    static_cast<ExecutionLimits&>(e) = execution_limits(s, needs.total());
    const ChildOutcome o = execute_cc(*backend.plugin, backend.options, e);
    if (s.log) s.log->record(e.src, e.theta, e.bias, dst, o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
    if (o.kind != ChildOutcome::Kind::ok) return o;
    const float* values = static_cast<const float*>(dst.data());
    out.got.assign(values, values + d.dst_elements());
    out.unwritten = unwritten_elements(dst.data(), d.dst_elements(), sizeof(float));
    return o;
}

}  // namespace convcheck::runner::detail
