// The backward passes' entries in the case pipeline (operation_traits.cpp; docs/passes.md): the
// modes that apply, and the check: the pass's inputs (backward/data.cpp), the spec-literal
// reference (reference/backward.hpp: each gradient's exact value, magnitude and term count; in bound mode
// the same sums in Eigen's order, reference/gemm_backward_sums.hpp, as conv/reference_sums.cpp says), one
// isolated execution, and the comparison, exactly or under the contract's bound with the pass's
// own term counts (backward weights sums over the batch and every output position).
#include "operation.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/gemm_backward_sums.hpp"
#include "convcheck/core/memory_layout.hpp"

namespace convcheck::runner::detail {

using accuracy::Mode;

std::string backward_mode_not_applicable(Mode mode) {
    if (mode == Mode::exact || mode == Mode::bound || mode == Mode::probe || mode == Mode::sampled) return "";
    return std::string("mode ") + accuracy::to_string(mode) +
           " does not apply to a backward pass yet (exact, bound, probe and sampled mode do; docs/passes.md)";
}

std::string backward_unclaimed(const PluginInfo& info, const Case& c) {
    if (has_strides(c.conv) || c.conv.filter_format == FilterFormat::oxi)
        return "the runner's backward passes take dense tensors in NCX/NXC and OIX/XIO only (memory strides and "
               "OXI: not yet, docs/passes.md)";
    if (c.conv.has_fp8())
        return "the runner's backward passes take f32, f16 and bf16 (" + dtypes_text(c.conv) +
               ": fp8 is checked on the forward pass; docs/fp8.md)";
    if (c.conv.mixed())
        return "the runner's backward passes take one dtype for every tensor (" + dtypes_text(c.conv) +
               ": mixed per-tensor dtypes are checked on the forward pass; docs/mixed-dtypes.md)";
    return conv_unclaimed(info, c);
}

reference::GradientResult backward_reference(const ConvDescriptor& d, Mode mode, const BackwardInputs& in) {
    const bool gemm = gemm_backward_reference_sums(d, mode);
    if (d.pass == Pass::backward_data)
        return gemm ? reference::gemm_backward_data_summation(d, in.diff_dst, in.weights)
                    : reference::backward_data_summation(d, in.diff_dst, in.weights);
    reference::GradientResult w = gemm ? reference::gemm_backward_weights_summation(d, in.src, in.diff_dst)
                                       : reference::backward_weights_summation(d, in.src, in.diff_dst);
    if (d.has_bias) {
        const reference::GradientResult b = reference::backward_bias_summation(d, in.diff_dst);
        w.values.insert(w.values.end(), b.values.begin(), b.values.end());
        w.magnitude.insert(w.magnitude.end(), b.magnitude.begin(), b.magnitude.end());
        w.terms.insert(w.terms.end(), b.terms.begin(), b.terms.end());
    }
    return w;
}

// The tensor and coordinates of a flat index into the pass's outputs: diff_src [n, c, x...],
// diff_weights [o, i, k...], diff_bias [o].
std::string gradient_element(const ConvDescriptor& d, std::int64_t flat) {
    std::vector<std::int64_t> dims;
    std::string name;
    if (d.pass == Pass::backward_data) {
        name = "diff_src";
        dims = {d.batch, d.in_channels};
        for (int a = 0; a < d.rank; ++a) dims.push_back(d.input_size[a]);
    } else if (flat >= d.weights_elements()) {
        return "diff_bias[" + std::to_string(flat - d.weights_elements()) + "]";
    } else {
        name = "diff_weights";
        dims = {d.out_channels, d.in_channels_per_group()};
        for (int a = 0; a < d.rank; ++a) dims.push_back(d.kernel_size[a]);
    }
    std::vector<std::int64_t> c(dims.size());
    for (std::size_t i = dims.size(); i-- > 0;) {
        c[i] = flat % dims[i];
        flat /= dims[i];
    }
    return name + coordinates_text(c);
}

void check_conv_backward(const Backend& backend, const Case& c, const CheckSettings& s,
                         const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const bool exact = c.mode == Mode::exact;
    // the special fills (--fill subnormal, ties, ...) are written for the forward sum: never run as the standard one
    if (c.fill != accuracy::Fill::standard &&
        declined(std::string("--fill ") + accuracy::to_string(c.fill) +
                     ": the special fills are made for the forward sum; a backward pass has only its exact and bound "
                     "fills (docs/passes.md)",
                 r))
        return;
    // a stored vector judges with its own inputs and truth alone; otherwise the case's fill and the reference
    const bool stored = !c.vector_dir.empty();
    if (!stored && c.mode == Mode::probe) return check_backward_probe(backend, c, s, contract, needs, r);
    if (!stored && c.mode == Mode::sampled) return check_backward_sampled(backend, c, s, contract, needs, r);
    const StoredBackward vector = stored ? stored_backward_data(c) : StoredBackward{};
    const BackwardInputs in = stored ? vector.in : backward_inputs(d, contract, c.mode, c.seed);
    if (declined(in.not_exact, r)) return;
    reference::GradientResult want =
        stored ? reference::GradientResult{vector.values, vector.magnitude, vector.terms} : backward_reference(d, c.mode, in);
    // exact mode: the data keeps every partial sum an integer the types hold, so the one right
    // answer is the exact sum (rounding it once to the dtype changes nothing; done for the record)
    if (exact)
        for (double& v : want.values) v = round_to(d.dtype, v);
    BackwardOutputs out;
    const ChildOutcome o = run_backward(backend, d, in, s, needs, out);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    judge_summed_outputs(contract, exact, {want.values, want.magnitude, want.terms, out.got, out.unwritten},
                         "gradient elements", [&d](std::int64_t i) { return gradient_element(d, i); }, o, s, r);
}

}  // namespace convcheck::runner::detail
