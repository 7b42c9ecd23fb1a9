// The one case pipeline, for every operation of the table (operation_traits.hpp):
// claims -> case data -> isolated execute -> verdict -> expectations. The operation's entry
// supplies its descriptor's rules, its claims, the modes that apply, its memory and its check (case
// data, reference, plugin calls, comparison); everything else happens here, once.
#include "convcheck/runner/check.hpp"

#include "case_pipeline.hpp"
#include "convcheck/runner/exec_backend.hpp"
#include "convcheck/runner/offline.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/parent_only_memory.hpp"

namespace convcheck::runner {

using namespace detail;

accuracy::Contract contract_for(const Backend& backend, DataType output_dtype) {
    return contract_for(backend.expectations, backend.info.name, backend.info.accumulation_dtype, output_dtype);
}

std::string reproducer(const Backend& backend, const Case& c) {
    // an offline case is exported again alone (docs/offline.md): then run on the device and judged
    std::string r = backend.offline ? "convcheck export" + (backend.spec.empty() ? "" : " --claims '" + backend.spec + "'")
                                    : "convcheck run --backend " + backend_argument(backend.spec);
    if (!backend.options.options.empty()) r += " --backend-option '" + backend.options.options + "'";
    if (!c.vector_dir.empty())
        return r + " --suite '" + c.vector_dir + "' --case-name '" + c.name + "' --mode " + accuracy::to_string(c.mode) +
               (backend.offline ? " offline-case" : "");
    r += " --case '" + c.descriptor() + "' --seed " + std::to_string(c.seed) + " --mode " + accuracy::to_string(c.mode);
    if (c.fill != accuracy::Fill::standard) r += std::string(" --fill ") + accuracy::to_string(c.fill);
    return backend.offline ? r + " offline-case" : r;
}

namespace {

// Whether the case's output adds a bias (a forward or transposed convolution with one): the only cases a declared
// "bias": {"added": "after_output_rounding"} changes (docs/accuracy.md).
bool adds_bias(const Case& c) {
    if (c.op == Op::conv) return c.conv.has_bias;
    if (c.op == Op::conv_transposed) return c.deconv.has_bias;
    return false;
}

// Claims, the mode, the memory limit and the contract, then the operation's own check.
void run_pipeline(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r) {
    const OperationTraits& op = operation(c.op);
    if (backend.offline && c.mode == accuracy::Mode::invalid && declined(offline_not_carried(c), r)) return;
    if (c.mode == accuracy::Mode::invalid && op.check_invalid) return op.check_invalid(backend, c, s, r);
    op.validate(c);
    if (declined(unclaimed_operation(backend.info, c.op), r)) {
        r.pass_not_claimed = is_unclaimed_pass(backend.info, c.op);
        return;
    }
    if (op.pass_unclaimed && declined(op.pass_unclaimed(backend.info, c), r)) {
        r.pass_not_claimed = true;
        return;
    }
    if (op.unclaimed && declined(op.unclaimed(backend.info, c), r)) return;
    if (op.mode_not_applicable && declined(op.mode_not_applicable(c.mode), r)) return;
    const CaseMemory needs = op.memory(c);
    if (refused_for_memory(needs, s, r)) return;
    if (backend.offline && declined(offline_not_carried(c), r)) return;
    accuracy::Contract contract = contract_for(backend, op.output_dtype(c));
    if (!adds_bias(c)) contract.bias_after_output_rounding = false;
    // a discrete convolution's fpmath (ConvDescriptor::fpmath): the backend may round f32 inputs to that precision; the
    // bound takes the looser of it and the backend's declared input_precision (docs/accuracy.md, "fpmath")
    if (c.op == Op::conv || c.op == Op::conv_bwd_data || c.op == Op::conv_bwd_weights)
        if (const int bits = fpmath_significand_bits(c.conv.fpmath);
            bits > 0 && (contract.input_significand_bits == 0 || bits < contract.input_significand_bits))
            contract.input_significand_bits = bits;
    op.check(backend, c, s, contract, needs, r);
}

}  // namespace

void detail::apply_expectations(const Backend& backend, CaseResult& r) {
    const Case& c = r.c;
    if (backend.expectations && r.status != Status::unsupported)
        if (const ExpectedFailure* x = backend.expectations->expected_failure(backend.info.name, c, r.status)) {
            if (r.status == Status::passed && x->may_pass) {
                r.reason = "passed; an intermittent expected failure did not show (" + x->reason + ")";
            } else if (r.status == Status::passed) {
                r.status = Status::xpass;
                r.kind = Kind::xpass;
                r.reason = "expected to fail (" + x->reason + ") but passed";
            } else if (is_failure(r.status)) {
                r.reason = "expected: " + x->reason + " | " + r.reason;
                r.status = Status::xfail;
            }
        }
}

CaseResult detail::check_case_once(const Backend& backend, const Case& c, const CheckSettings& settings) {
    CaseResult r;
    r.c = c;
    r.reproducer = reproducer(backend, c);
    // the case's large arrays (its data, the reference, the judging) stay out of other jobs' children
    const parent_only_memory::ParentOnlyScope parent_only;
    try {
        run_pipeline(backend, c, settings, r);
    } catch (const ConvError& e) {
        r.status = Status::failed;
        r.kind = Kind::invalid_case;
        r.reason = std::string("invalid case: ") + e.what();
    }
    apply_expectations(backend, r);
    return r;
}

ChildOutcome time_case(const Backend& backend, const Case& c, int warmups, int repeats, double timeout_s,
                       std::int64_t memory_limit_bytes) {
    const OperationTraits& op = operation(c.op);
    if (!op.time) return unsupported_outcome(std::string("convcheck bench does not time ") + op.words);
    Case timed = c;
    timed.mode = accuracy::Mode::bound;  // generated bound-mode data, never a stored vector's
    timed.vector_dir.clear();
    op.validate(timed);  // throws ConvError naming the rule
    std::string why = unclaimed_operation(backend.info, c.op);
    if (why.empty() && op.unclaimed) why = op.unclaimed(backend.info, timed);
    if (why.empty() && op.mode_not_applicable) why = op.mode_not_applicable(timed.mode);
    TimedRun run{warmups, repeats, timeout_s, memory_limit_bytes, op.memory(timed)};
    if (why.empty()) why = over_memory_limit(run.needs, memory_limit_bytes);
    if (!why.empty()) return unsupported_outcome(why);
    return op.time(backend, timed, run);
}

}  // namespace convcheck::runner
