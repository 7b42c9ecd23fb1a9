// The backward passes' case data and their trip through the backend (case_pipeline.hpp): canonical
// inputs for exact and bound mode, guarded buffers in the case's layouts and dtype, one isolated
// execution (backward/calls.cpp), the gradients read back.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/runner/backward_terms.hpp"
#include "convcheck/runner/offline.hpp"
#include "operation.hpp"
#include "convcheck/reference/convolution.hpp"

namespace convcheck::runner::detail {

namespace {

std::int64_t spatial_product(const ConvDescriptor& d, const SpatialDims& dims) {
    std::int64_t n = 1;
    for (int a = 0; a < d.rank; ++a) n *= dims[a];
    return n;
}

std::int64_t output_spatial(const ConvDescriptor& d) {
    std::int64_t n = 1;
    for (int a = 0; a < d.rank; ++a) n *= d.output_size(a);
    return n;
}

}  // namespace

}  // namespace convcheck::runner::detail

namespace convcheck::runner {

std::int64_t backward_max_terms(const ConvDescriptor& d) {
    if (d.pass == Pass::backward_data) return d.out_channels_per_group() * detail::spatial_product(d, d.kernel_size);
    return d.batch * detail::output_spatial(d);
}

}  // namespace convcheck::runner

namespace convcheck::runner::detail {

BackwardInputs backward_inputs(const ConvDescriptor& d, const accuracy::Contract& contract, accuracy::Mode mode,
                               std::uint64_t seed) {
    BackwardInputs in;
    const std::size_t src_n = static_cast<std::size_t>(d.src_elements());
    const std::size_t wei_n = static_cast<std::size_t>(d.weights_elements());
    const std::size_t dd_n = static_cast<std::size_t>(d.dst_elements());
    const std::uint64_t stream_seed = seed ^ 0x62776470617373ULL;  // "bwdpass": not the forward fill's stream
    if (mode != accuracy::Mode::exact) {
        // each value one draw of uniform_real_distribution(-1, 1) on one mt19937_64, rounded to the dtype: the
        // forward fill's stream (accuracy::RandomFillStream, the same words and values) on this seed
        accuracy::RandomFillStream stream(stream_seed);
        auto draw = [&](std::size_t n) {
            std::vector<double> v(n);
            stream.draw(d.dtype, v);
            return v;
        };
        in.src = draw(src_n), in.weights = draw(wei_n), in.diff_dst = draw(dd_n);
        return in;
    }
    std::mt19937_64 rng(stream_seed);
    // Exact mode: integers in [-m, m] with terms * m^2 < 2^p (p: the fewer significand bits of the
    // accumulation and output types), so every partial sum, in any order, is an exact integer.
    const int p = std::min(accuracy::accumulation_significand_bits(contract), accuracy::significand_bits(d.dtype));
    const double limit = std::ldexp(1.0, p);
    const std::int64_t terms = backward_max_terms(d);
    std::int64_t m = 0;
    for (std::int64_t candidate : {7, 3, 1})
        if (double(terms) * double(candidate) * double(candidate) < limit) {
            m = candidate;
            break;
        }
    if (m == 0) {
        in.not_exact = "exact mode: one gradient element sums " + std::to_string(terms) +
                       " terms, more than the " + std::to_string(p) +
                       "-bit significand of the accumulation or output type holds exactly for any data but zeros";
        return in;
    }
    auto ints = [&](std::size_t n) {
        std::uniform_int_distribution<std::int64_t> u(-m, m);
        std::vector<double> v(n);
        for (double& x : v) x = double(u(rng));
        return v;
    };
    in.src = ints(src_n), in.weights = ints(wei_n), in.diff_dst = ints(dd_n);
    return in;
}

ChildOutcome run_backward(const Backend& backend, const ConvDescriptor& d, const BackwardInputs& in,
                          const CheckSettings& s, const CaseMemory& needs, BackwardOutputs& out, int warmups,
                          int repeats) {
    const std::size_t e = static_cast<std::size_t>(size_of(d.dtype));
    const bool data = d.pass == Pass::backward_data;
    GuardedBuffer src, weights, diff_dst(d.dst_elements() * e), diff_src, diff_weights, diff_bias;
    reference::round_dst_to_output(d, in.diff_dst, diff_dst.data());  // values already in the dtype: a copy
    ConvBackwardExecution x;
    x.desc = to_abi(d);
    x.diff_dst = &diff_dst;
    if (data) {
        weights = GuardedBuffer(d.weights_elements() * e);
        reference::oix_to_weights(d, in.weights, weights.data());
        diff_src = GuardedBuffer(d.src_elements() * e);
        std::memset(diff_src.data(), 0xFF, diff_src.bytes());  // "never written"
        x.weights = &weights, x.diff_src = &diff_src;
    } else {
        src = GuardedBuffer(d.src_elements() * e);
        reference::ncx_to_src(d, in.src, src.data());
        diff_weights = GuardedBuffer(d.weights_elements() * e);
        std::memset(diff_weights.data(), 0xFF, diff_weights.bytes());
        x.src = &src, x.diff_weights = &diff_weights;
        if (d.has_bias) {
            diff_bias = GuardedBuffer(d.bias_elements() * e);
            std::memset(diff_bias.data(), 0xFF, diff_bias.bytes());
            x.diff_bias = &diff_bias;
        }
    }
    x.warmups = warmups;
    x.repeats = repeats;
    static_cast<ExecutionLimits&>(x) = execution_limits(s, needs.total());
    // export's or judge's stand-in (offline.hpp), else the plugin, isolated
    ChildOutcome o = backend.offline ? backend.offline->backward(x) : execute_conv_backward(*backend.plugin, backend.options, x);
    if (s.log)  // determinism mode and failure bundles (execution_log.hpp): the outputs in canonical order
        s.log->record_backward(x.src, x.weights, diff_dst, {x.diff_src, x.diff_weights, x.diff_bias},
                               o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
    if (o.kind != ChildOutcome::Kind::ok) return o;
    const int eb = static_cast<int>(e);
    if (data) {
        out.unwritten = unwritten_elements(diff_src.data(), d.src_elements(), eb);
        out.got = reference::src_to_ncx(d, diff_src.data());
    } else {
        out.unwritten = unwritten_elements(diff_weights.data(), d.weights_elements(), eb);
        out.got = reference::weights_to_oix(d, diff_weights.data());
        if (d.has_bias) {
            out.unwritten += unwritten_elements(diff_bias.data(), d.bias_elements(), eb);
            const std::vector<double> bias = reference::bias_to_double(d, diff_bias.data());
            out.got.insert(out.got.end(), bias.begin(), bias.end());
        }
    }
    return o;
}

}  // namespace convcheck::runner::detail
