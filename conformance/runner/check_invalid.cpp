// Invalid mode (invalid_case.hpp, docs/runner.md): the case breaks one rule of the spec and the
// backend must refuse it. A refusal passes: query says unsupported or returns an error, or execute
// returns an error. A backend whose query says supported and whose execute returns success has
// computed something the spec does not define: accepted_invalid, naming the rule. A crash, a hang
// or running out of memory stays what it is.
#include <cstring>

#include "convcheck/runner/check_detail.hpp"
#include "convcheck/runner/invalid_case.hpp"

namespace convcheck::runner::detail {

namespace {

GuardedBuffer filled(std::int64_t elements, DataType dtype, double value) {
    GuardedBuffer b(static_cast<std::size_t>(elements * size_of(dtype)));
    for (std::int64_t i = 0; i < elements; ++i) store_from_double(b.data(), dtype, i, value);
    return b;
}

}  // namespace

void check_conv_invalid(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const std::string rule = broken_rule(d);
    if (rule.empty()) throw std::invalid_argument("mode invalid: " + to_string(d) + " breaks no rule");
    if (const std::string why = unclaimed(backend.info, d); !why.empty()) {
        r.status = Status::unsupported;
        r.kind = Kind::declined;
        r.reason = why;
        return;
    }
    // Inputs of ones: a backend that computes the case anyway writes tap counts, easy to read in the
    // message. dst starts as 0xFF bytes, so what it wrote can be counted.
    const InvalidCaseElements n = invalid_case_elements(d);
    Buffers b{filled(n.src, d.dtype, 1.0), filled(n.weights, d.dtype, 1.0), filled(n.bias, d.dtype, 1.0),
              GuardedBuffer(static_cast<std::size_t>(n.dst * size_of(d.dtype)))};
    std::memset(b.dst.data(), 0xFF, b.dst.bytes());
    CaseMemory needs;
    needs.buffers = static_cast<std::int64_t>(b.src.bytes() + b.weights.bytes() + b.bias.bytes() + b.dst.bytes()) +
                    (4 << 20);  // guard pages and page rounding, generously
    if (refused_for_memory(needs, s, r)) return;
    const ChildOutcome o = run_backend(backend, d, b, s, needs);
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
            const std::int64_t written = n.dst - unwritten_elements(b.dst.data(), n.dst, size_of(d.dtype));
            std::string wrote = std::to_string(written) + " of the " + std::to_string(n.dst) + " outputs its buffer holds";
            if (written > 0) {
                std::int64_t first = 0;
                while (unwritten_elements(static_cast<const unsigned char*>(b.dst.data()) + first * size_of(d.dtype), 1,
                                          size_of(d.dtype)) == 1)
                    ++first;
                wrote += " (the first written, element " + std::to_string(first) + ", is " +
                         format_double(load_as_double(b.dst.data(), d.dtype, first)) + " from inputs of ones)";
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

}  // namespace convcheck::runner::detail
