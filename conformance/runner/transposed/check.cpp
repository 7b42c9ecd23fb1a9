// Transposed convolution's entries in the case pipeline (operation_traits.cpp; docs/transposed.md): its
// rules, claims and modes (probe mode: transposed/probe.cpp), and the check: the case's inputs (transposed/data.cpp), the spec-literal
// reference (reference/transposed.hpp: each output's exact value, magnitude and term count, the bias one
// more term), one isolated execution, and the comparison, exactly or under the contract's bound.
#include "operation.hpp"
#include "convcheck/reference/transposed.hpp"
#include "convcheck/runner/operation_jobs.hpp"

namespace convcheck::runner::detail {

using accuracy::Mode;

std::string transposed_mode_not_applicable(Mode mode) {
    if (mode == Mode::exact || mode == Mode::bound || mode == Mode::probe) return "";
    return std::string("mode ") + accuracy::to_string(mode) +
           " does not apply to transposed convolution yet (exact, bound and probe mode do; docs/transposed.md)";
}

void transposed_validate(const Case& c) { validate(c.deconv); }

DataType transposed_output_dtype(const Case& c) { return c.deconv.dtype; }

std::string transposed_unclaimed(const PluginInfo& info, const Case& c) {
    if (info.abi_major == 1 && info.abi_minor < 3)
        return "the plugin was built against ABI " + std::to_string(info.abi_major) + "." +
               std::to_string(info.abi_minor) + ", which has no transposed convolution (ABI 1.3)";
    if (c.deconv.filter_format == FilterFormat::oxi)
        return "ABI 1.3's transposed convolution takes OIX or XIO weights (convcheck_conv_transposed_desc), not OXI";
    // dtype, rank and formats are claimed for every operation, and read on this operation's own
    // descriptor: prop_kinds name the passes of discrete convolution, none of which a transposed case is
    const TransposedDescriptor& t = c.deconv;
    return tensors_unclaimed(info, t.dtype, t.rank, t.data_format, t.filter_format);
}

void check_conv_transposed(const Backend& backend, const Case& c, const CheckSettings& s,
                           const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const TransposedDescriptor& t = c.deconv;
    const bool exact = c.mode == Mode::exact;
    // the special fills (--fill subnormal, ties, ...) are written for the forward sum: never run as the standard one
    if (c.fill != accuracy::Fill::standard &&
        declined(std::string("--fill ") + accuracy::to_string(c.fill) +
                     ": the special fills are made for the forward sum; transposed convolution has only its exact and "
                     "bound fills (docs/transposed.md)",
                 r))
        return;
    if (c.mode == Mode::probe) return check_transposed_probe(backend, c, s, contract, needs, r);
    // a stored vector judges with its own inputs and truth alone; otherwise the case's fill and the reference
    const bool stored = !c.vector_dir.empty();
    const StoredTransposed vector = stored ? stored_transposed_data(c) : StoredTransposed{};
    const TransposedInputs in = stored ? vector.in : transposed_inputs(t, contract, c.mode, c.seed);
    if (declined(in.not_exact, r)) return;
    reference::ConvResult want = stored ? reference::ConvResult{vector.values, vector.magnitude, vector.terms}
                                        : reference::transposed_convolution_summation(t, in.src, in.weights, in.bias);
    // exact mode: every partial sum is an integer the types hold; rounding once changes nothing (for the record)
    if (exact)
        for (double& v : want.dst) v = round_to(t.dtype, v);
    TransposedOutputs out;
    const ChildOutcome o = run_transposed(backend, t, in, s, needs, out);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    const std::vector<std::int64_t> dims = ncx_dims(t.dst_dims(), t.data_format == DataFormat::nxc);  // [N][O][out...]
    judge_summed_outputs(contract, exact, {want.dst, want.magnitude, want.terms, out.got, out.unwritten}, "outputs",
                         [&dims](std::int64_t i) { return "dst" + coordinates_text(element_coordinates(dims, false, i)); },
                         o, s, r);
}

}  // namespace convcheck::runner::detail
