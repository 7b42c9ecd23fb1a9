// Probe mode for discrete convolution: one run per probed src element, judged by the ProbeJudge
// (probe_judge.cpp), with a zero weight opposite the NaN (probe_partners.cpp). With post-ops the chain follows
// the convolution: the NaN's outputs are what the backend's declared NaN policy makes of it (conv/post_ops.cpp,
// docs/post-ops.md: NaN where it propagates, else the number and its bound through the rest of the chain), the
// other outputs the chain's result under the bound carried through it.
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "../case_pipeline.hpp"
#include "operation.hpp"
#include "convcheck/accuracy/probe.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/runner/conv_buffers.hpp"
#include "convcheck/runner/verdict.hpp"

namespace convcheck::runner::detail {

void check_conv_probe(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                      const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    accuracy::RandomFill fill = accuracy::make_probe_fill(d, c.seed);
    const reference::PostOpData post = make_post_op_data(d, accuracy::Mode::probe, c.seed);
    if (declined(post_ops_not_probed(d), r)) return;
    // with post-ops the NaN's outputs are those where the declared policy keeps it
    const std::string kept = "the part of its receptive field where the post-ops keep it (post_op_nan: " +
                             to_string(contract.post_op_nan) + ")";
    // where the chain ends in relu (alpha 0) or a clip at 0, the sign of the zeros it makes (post_op_bounds)
    const std::string zero_sign = "relu's zero as post_op_signed_zero declares it (relu " +
                                  std::string(to_string(contract.post_op_nan.relu_zero)) + "), clip's its bound's";
    ProbeWords words;
    if (!d.post_ops.empty()) words.field = kept.c_str(), words.field_summed = "the outputs that keep it";
    words.zero_sign = zero_sign.c_str();
    ProbeJudge judge(contract, conv_location(d), words);
    for (const std::int64_t element : accuracy::probe_elements(d, c.seed, s.random_probes)) {
        // the zero opposite the NaN: the weight of the first term that reads it (probe_partners.cpp), so
        // that NaN * 0 = NaN (IEEE 754) is tested; none when no output reads the element
        const std::optional<IndexPair> pair = first_pair_with_src(d, element);
        const double kept = pair ? fill.weights[static_cast<std::size_t>(pair->weights)] : 0.0;
        if (pair) fill.weights[static_cast<std::size_t>(pair->weights)] = 0.0;
        // the reference on the same data without the NaN (the zero in place) judges the rest under the bound;
        // a declared whole-tensor bound takes the whole tensor's largest M and n, the probed outputs' included
        auto plain = reference::fast_convolution_summation(d, fill.src, fill.weights, fill.bias);
        std::vector<double> bounds;  // with post-ops: each output's bound carried through the chain
        std::vector<char> zero_judged;  // and where the sign of a zero is judged
        if (!d.post_ops.empty()) {
            std::string undetermined;
            bounds = post_op_bounds(d, contract, post, plain.dst, plain.magnitude, plain.terms, &undetermined, 1.0,
                                    &zero_judged);
            if (declined(undetermined, r)) return;
            reference::apply_post_ops(d, post, plain.dst, contract.post_op_nan);
        }
        const accuracy::BoundScale scale = accuracy::bound_scale(contract, plain.magnitude, plain.terms);
        for (double& m : plain.magnitude) m = scale.magnitude(m);
        for (std::int64_t& t : plain.terms) t = scale.terms(t);
        std::vector<double> src = fill.src;
        src[element] = std::numeric_limits<double>::quiet_NaN();
        auto want = reference::fast_convolution_summation(d, src, fill.weights, fill.bias);
        if (!d.post_ops.empty()) probe_post_ops(d, contract, post, want.dst, plain.dst, bounds);
        Buffers b = make_buffers(d, src, fill.weights, fill.bias);
        if (!d.post_ops.empty()) add_post_op_buffers(d, post.operands, post.prior_dst, b);
        const ChildOutcome o = run_backend(backend, d, b, s, needs);
        if (outcome_status(o, r)) return;
        r.time_ms += o.times_ms.empty() ? 0.0 : o.times_ms.front();
        r.implementation = o.implementation;
        const std::vector<double> got = reference::dst_to_ncx(d, b.dst.data());
        judge.add({element, want.dst, got, plain.dst, plain.magnitude, plain.terms, {},
                   unwritten_elements(d, b.dst.data()), {}, bounds, zero_judged});
        leak_status(o, s, r);
        if (pair) fill.weights[static_cast<std::size_t>(pair->weights)] = kept;
    }
    judge.finish(r);
}

}  // namespace convcheck::runner::detail
