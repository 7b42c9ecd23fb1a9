// Invalid mode (invalid_case.hpp, docs/runner.md): the case breaks one rule of the spec and the
// backend must refuse it. A refusal passes: query says unsupported or returns an error, or execute
// returns an error. A backend whose query says supported and whose execute returns success has
// computed something the spec does not define: accepted_invalid, naming the rule. A crash, a hang
// or running out of memory stays what it is. Discrete convolution (the invalid suite) and transposed
// convolution (invalid_transposed) share the judgement; each passes its own descriptor to its own call.
#include <cstring>
#include <functional>

#include "convcheck/abi/abi_descriptor.hpp"
#include "case_pipeline.hpp"
#include "conv/operation.hpp"
#include "transposed/operation.hpp"
#include "convcheck/runner/invalid_case.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "convcheck/runner/operation_jobs.hpp"

namespace convcheck::runner::detail {

namespace {

GuardedBuffer filled(std::int64_t elements, DataType dtype, double value) {
    GuardedBuffer b(static_cast<std::size_t>(elements * size_of(dtype)));
    for (std::int64_t i = 0; i < elements; ++i) store_from_double(b.data(), dtype, i, value);
    return b;
}

using RunInvalid = std::function<ChildOutcome(const Buffers& b, const CaseMemory& needs)>;

// The judgement, whichever operation: `rule` is the one the case breaks, `why_unclaimed` what the plugin
// does not claim ("" when claimed), `run` one isolated execution of the case on b.
void judge_invalid(const std::string& descriptor, const std::string& rule, const std::string& why_unclaimed,
                   const InvalidCaseElements& n, DataType dtype, const CheckSettings& s, CaseResult& r,
                   const RunInvalid& run) {
    if (rule.empty()) throw std::invalid_argument("mode invalid: " + descriptor + " breaks no rule");
    if (!why_unclaimed.empty()) {
        r.status = Status::unsupported;
        r.kind = Kind::declined;
        r.reason = why_unclaimed;
        return;
    }
    // Inputs of ones: a backend that computes the case anyway writes tap counts, easy to read in the
    // message. dst starts as 0xFF bytes, so what it wrote can be counted.
    Buffers b{filled(n.src, dtype, 1.0), filled(n.weights, dtype, 1.0), filled(n.bias, dtype, 1.0),
              GuardedBuffer(static_cast<std::size_t>(n.dst * size_of(dtype))), {}, {}};
    std::memset(b.dst.data(), 0xFF, b.dst.bytes());
    CaseMemory needs;
    needs.buffers = static_cast<std::int64_t>(b.src.bytes() + b.weights.bytes() + b.bias.bytes() + b.dst.bytes()) +
                    (4 << 20);  // guard pages and page rounding, generously
    if (refused_for_memory(needs, s, r)) return;
    const ChildOutcome o = run(b, needs);
    r.implementation = o.implementation;
    switch (o.kind) {
        case ChildOutcome::Kind::unsupported:
            r.status = Status::passed;
            r.reason = "refused (query: unsupported): " + o.reason + " | the rule broken: " + rule;
            return;
        case ChildOutcome::Kind::plugin_error:
            // create's error is not about the case: it stays a plugin error
            if (o.reason.starts_with("create:")) break;
            r.status = Status::passed;
            r.reason = "refused (" + o.reason + ") | the rule broken: " + rule;
            return;
        case ChildOutcome::Kind::ok: {
            r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
            const std::int64_t written = n.dst - unwritten_elements(b.dst.data(), n.dst, size_of(dtype));
            std::string wrote = std::to_string(written) + " of the " + std::to_string(n.dst) + " outputs its buffer holds";
            if (written > 0) {
                std::int64_t first = 0;
                while (unwritten_elements(static_cast<const unsigned char*>(b.dst.data()) + first * size_of(dtype), 1,
                                          size_of(dtype)) == 1)
                    ++first;
                wrote += " (the first written, element " + std::to_string(first) + ", is " +
                         format_double(load_as_double(b.dst.data(), dtype, first)) + " from inputs of ones)";
            }
            r.status = Status::failed;
            r.kind = Kind::accepted_invalid;
            r.reason = "accepted an invalid case: " + rule + "; query said supported and execute returned success, "
                       "writing " + wrote;
            return;
        }
        default: break;
    }
    outcome_status(o, r);
}

}  // namespace

void check_conv_invalid(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    judge_invalid(to_string(d), broken_rule(d), unclaimed(backend.info, d), invalid_case_elements(d), d.dtype, s, r,
                  [&](const Buffers& b, const CaseMemory& needs) { return run_backend(backend, d, b, s, needs); });
}

void check_transposed_invalid(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r) {
    const TransposedDescriptor& t = c.deconv;
    std::string why = unclaimed_operation(backend.info, Op::conv_transposed);
    if (why.empty()) why = transposed_unclaimed(backend.info, c);
    judge_invalid(to_string(t), broken_rule(t), why, invalid_case_elements(t), t.dtype, s, r,
                  [&](const Buffers& b, const CaseMemory& needs) {
                      ConvTransposedExecution x;
                      x.desc = to_abi(t);
                      x.src = &b.src, x.weights = &b.weights, x.dst = &b.dst;
                      if (t.has_bias) x.bias = &b.bias;
                      static_cast<ExecutionLimits&>(x) = execution_limits(s, needs.total());
                      return execute_conv_transposed(*backend.plugin, backend.options, x);
                  });
}

}  // namespace convcheck::runner::detail
