// Transposed convolution's case data and its trip through the backend (case_pipeline.hpp): canonical
// inputs for exact and bound mode, guarded buffers in the case's layouts and dtype, one isolated
// execution (transposed/calls.cpp), dst read back; and a stored golden vector's inputs and truth.
//
// The buffers are the forward convolution's edges (core/include/convcheck/core/transposed_descriptor.hpp, forward()): src is
// laid out as F's dst, weights as F's weights, dst as F's src; the reference's edge functions convert.
#include <cstring>
#include <random>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/runner/offline.hpp"
#include "operation.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/formats/gradient_case_data.hpp"

namespace convcheck::runner::detail {

namespace {

// F as backward data: the pass whose inputs (diff_dst, weights) are the transposed op's src and weights.
ConvDescriptor backward_data_of(const TransposedDescriptor& t) {
    ConvDescriptor f = t.forward();
    f.pass = Pass::backward_data;
    return f;
}

}  // namespace

TransposedInputs transposed_inputs(const TransposedDescriptor& t, const accuracy::Contract& contract,
                                   accuracy::Mode mode, std::uint64_t seed) {
    // src and weights: the backward data pass's own draw (its exact mode keeps terms * m^2 < 2^p, where
    // terms counts the (input, tap) pairs of one output: the transposed op's sum without its bias)
    BackwardInputs pass = backward_inputs(backward_data_of(t), contract, mode, seed);
    TransposedInputs in;
    in.src = std::move(pass.diff_dst);
    in.weights = std::move(pass.weights);
    in.not_exact = std::move(pass.not_exact);
    if (!t.has_bias) return in;
    // the bias: one more term. Exact mode takes it from {-1, 0, 1}: |sum| <= terms * m^2 + 1 <= 2^p, so
    // every partial sum stays an integer the types hold.
    std::mt19937_64 rng(seed ^ 0x6465636f6e76ULL);  // "deconv": a stream of its own
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> ints(-1, 1);
    for (std::int64_t o = 0; o < t.out_channels; ++o)
        in.bias.push_back(mode == accuracy::Mode::exact ? double(ints(rng)) : round_to(t.dtype, u(rng)));
    return in;
}

ChildOutcome run_transposed(const Backend& backend, const TransposedDescriptor& t, const TransposedInputs& in,
                            const CheckSettings& s, const CaseMemory& needs, TransposedOutputs& out, int warmups,
                            int repeats) {
    const ConvDescriptor f = t.forward();
    const std::size_t e = static_cast<std::size_t>(size_of(t.dtype));
    GuardedBuffer src(t.src_elements() * e), weights(t.weights_elements() * e), bias, dst(t.dst_elements() * e);
    reference::round_dst_to_output(f, in.src, src.data());  // values already in the dtype: a copy
    reference::oix_to_weights(f, in.weights, weights.data());
    std::memset(dst.data(), 0xFF, dst.bytes());  // "never written"
    ConvTransposedExecution x;
    x.desc = to_abi(t);
    x.src = &src, x.weights = &weights, x.dst = &dst;
    if (t.has_bias) {
        bias = GuardedBuffer(static_cast<std::size_t>(t.out_channels) * e);
        for (std::int64_t o = 0; o < t.out_channels; ++o) store_from_double(bias.data(), t.dtype, o, in.bias[o]);
        x.bias = &bias;
    }
    x.warmups = warmups;
    x.repeats = repeats;
    static_cast<ExecutionLimits&>(x) = execution_limits(s, needs.total());
    // export's or judge's stand-in (offline.hpp), else the plugin, isolated
    ChildOutcome o = backend.offline ? backend.offline->transposed(x.desc, src, weights, x.bias, dst)
                                     : execute_conv_transposed(*backend.plugin, backend.options, x);
    if (s.log)  // determinism mode and failure bundles (execution_log.hpp)
        s.log->record(&src, &weights, x.bias, dst, o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
    if (o.kind != ChildOutcome::Kind::ok) return o;
    out.unwritten = unwritten_elements(dst.data(), t.dst_elements(), static_cast<int>(e));
    out.got = reference::src_to_ncx(f, dst.data());
    return o;
}

StoredTransposed stored_transposed_data(const Case& c) {
    const TransposedDescriptor& t = c.deconv;
    const vectors::VectorSet set = vectors::load_vector_set(c.vector_dir);
    const vectors::TransposedCaseData data = vectors::load_transposed_case_data(set, stored_case(set, c));
    if (!(data.descriptor == t))
        throw std::invalid_argument("stored vector " + c.vector_case + " is " + to_string(data.descriptor) + ", not " +
                                    to_string(t));
    const ConvDescriptor f = t.forward();
    StoredTransposed s;
    s.in.src = reference::dst_to_ncx(f, data.src.data.data());
    s.in.weights = reference::weights_to_oix(f, data.weights.data.data());
    for (std::int64_t o = 0; t.has_bias && o < t.out_channels; ++o)
        s.in.bias.push_back(load_as_double(data.bias.data.data(), t.dtype, o));
    s.values = f64_values(data.dst_f64);
    s.magnitude = f64_values(data.magnitude);
    for (double n : f64_values(data.terms)) s.terms.push_back(static_cast<std::int64_t>(n));
    return s;
}

}  // namespace convcheck::runner::detail
