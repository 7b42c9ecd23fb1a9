// Determinism mode (determinism.hpp): check_case runs the case once per (thread count, repeat), each run a
// full isolated check, and compares the outputs of every run with the first run's, byte for byte.
#include "convcheck/runner/determinism.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "case_pipeline.hpp"

namespace convcheck::runner {

std::string Determinism::options_text() const {
    if (!on()) return "";
    std::string text = " --repeat " + std::to_string(repeat);
    if (!thread_counts.empty()) {
        text += " --threads-sweep ";
        for (std::size_t i = 0; i < thread_counts.size(); ++i) text += (i ? "," : "") + std::to_string(thread_counts[i]);
    }
    return text;
}

namespace {

struct Run {
    int number = 0;   // 1-based, in the order the runs were made
    int threads = 0;  // the plugin instance's num_threads (0: the plugin's default)
};

std::string run_text(const Run& r) {
    const std::string threads = r.threads == 0   ? "the plugin's default thread count"
                                : r.threads == 1 ? "1 thread"
                                                 : std::to_string(r.threads) + " threads";
    return "run " + std::to_string(r.number) + " (" + threads + ")";
}

// "0.123456791 (0x3dfcd6ea)": the value and its bits, since two values can print alike (-0 and 0, NaNs). An
// operation whose outputs are not its output_dtype's (operation_traits.hpp) prints them itself.
std::string value_text(const Case& c, const std::vector<std::byte>& dst, std::int64_t i) {
    const OperationTraits& op = operation(c.op);
    const DataType dtype = op.output_dtype(c);
    const int bytes = op.output_bytes ? op.output_bytes(c) : size_of(dtype);
    std::uint64_t bits = 0;
    std::memcpy(&bits, dst.data() + i * bytes, static_cast<std::size_t>(bytes));  // little-endian, as stored
    char hex[24];
    std::snprintf(hex, sizeof(hex), "0x%0*llx", bytes * 2, static_cast<unsigned long long>(bits));
    const std::string value = op.output_value ? op.output_value(c, dst.data() + i * bytes)
                                              : detail::format_double(load_as_double(dst.data(), dtype, i));
    return value + " (" + hex + ")";
}

// How the outputs of `other` differ from those of `first`, or "" when they are identical bit for bit.
std::string difference(const Case& c, const ExecutionLog& first, const Run& first_run, const ExecutionLog& other,
                       const Run& other_run) {
    const std::size_t executions = first.executions.size();
    if (other.executions.size() != executions)
        return run_text(other_run) + " executed the backend " + std::to_string(other.executions.size()) + " times, " +
               run_text(first_run) + " " + std::to_string(executions) + " times";
    const OperationTraits& op = operation(c.op);
    const std::size_t bytes = static_cast<std::size_t>(op.output_bytes ? op.output_bytes(c) : size_of(op.output_dtype(c)));
    for (std::size_t x = 0; x < executions; ++x) {
        const std::vector<std::byte>& a = first.executions[x].dst;
        const std::vector<std::byte>& b = other.executions[x].dst;
        const std::int64_t outputs = static_cast<std::int64_t>(std::min(a.size(), b.size()) / bytes);
        std::int64_t differing = 0, first_index = -1;
        for (std::int64_t i = 0; i < outputs; ++i)
            if (std::memcmp(a.data() + i * bytes, b.data() + i * bytes, bytes) != 0 && differing++ == 0) first_index = i;
        if (differing == 0) continue;
        std::string m = run_text(other_run) + " differs from " + run_text(first_run) + " in " +
                        std::to_string(differing) + " of " + std::to_string(outputs) + " outputs";
        if (executions > 1)
            m += " of execution " + std::to_string(x + 1) + " of " + std::to_string(executions) +
                 " (one per probed element or stress data kind)";
        m += "; first at " + op.output_element(c, first_index) + ": " + value_text(c, a, first_index) + " in run " +
             std::to_string(first_run.number) + ", " + value_text(c, b, first_index) + " in run " +
             std::to_string(other_run.number);
        return m;
    }
    return "";
}

void keep(ExecutionLog* into, ExecutionLog&& log, const Run& run) {
    if (!into) return;
    for (RecordedExecution& e : log.executions) {
        e.run = run.number;
        into->executions.push_back(std::move(e));
    }
}

}  // namespace

CaseResult check_case(const Backend& backend, const Case& c, const CheckSettings& settings) {
    const Determinism& mode = settings.determinism;
    if (!mode.on()) return detail::check_case_once(backend, c, settings);
    if (const OperationTraits& op = operation(c.op); !op.output_element) {
        // the operation names no output of the execution log this mode compares (operation_traits.hpp)
        CaseResult r;
        r.c = c;
        r.reproducer = reproducer(backend, c) + mode.options_text();
        detail::declined(std::string("determinism mode does not compare the outputs of ") + op.words + " yet", r);
        return r;
    }
    CheckSettings once = settings;
    once.determinism = {};
    const std::vector<int> thread_counts =
        mode.thread_counts.empty() ? std::vector<int>{backend.options.num_threads} : mode.thread_counts;
    const std::optional<std::string> declared =
        backend.expectations ? backend.expectations->nondeterministic(backend.info.name) : std::nullopt;

    CaseResult first;
    ExecutionLog first_log, differing_log;
    Run first_run, differing_run;
    std::string differs;  // the first difference found, or ""
    int number = 0;
    // A declared backend runs every run (each is still checked against the bound); an undeclared one
    // stops at the first difference: it has failed.
    for (std::size_t t = 0; t < thread_counts.size() && (differs.empty() || declared); ++t)
        for (int k = 0; k < mode.repeat && (differs.empty() || declared); ++k) {
            const Run run{++number, thread_counts[t]};
            Backend b = backend;
            b.options.num_threads = run.threads;
            ExecutionLog log;
            log.keep_inputs = settings.log && settings.log->keep_inputs;
            once.log = &log;
            CaseResult r = detail::check_case_once(b, c, once);
            r.reproducer += mode.options_text();
            if (mode.thread_counts.empty() && run.threads != 0) r.reproducer += " --threads " + std::to_string(run.threads);
            // a run that neither passes nor is unchecked is the case's result; an unchecked run still
            // has its bits compared, and the first run's result (unchecked) stands when they agree
            if (r.status != Status::passed && r.status != Status::unchecked) {
                if (run.number > 1) r.reason = run_text(run) + " of " + std::to_string(mode.runs()) + ": " + r.reason;
                keep(settings.log, std::move(log), run);
                return r;
            }
            if (run.number == 1) {
                first = std::move(r);
                first_log = std::move(log);
                first_run = run;
            } else if (differs.empty()) {
                differs = difference(c, first_log, first_run, log, run);
                if (!differs.empty()) differing_log = std::move(log), differing_run = run;
            }
        }
    if (differs.empty()) {
        keep(settings.log, std::move(first_log), first_run);
        return first;
    }
    keep(settings.log, std::move(first_log), first_run);
    keep(settings.log, std::move(differing_log), differing_run);
    CaseResult r = std::move(first);
    if (declared) {
        r.reason = (r.reason.empty() ? "" : r.reason + "; ") + "outputs differ between runs, as the backend declares (" +
                   *declared + "): " + differs;
        return r;
    }
    r.status = Status::failed;
    r.kind = Kind::nondeterministic;
    r.reason = "nondeterministic: " + differs +
               " (bitwise-identical outputs are required: the backend declares no \"nondeterministic\" in backends.json)";
    detail::apply_expectations(backend, r);
    return r;
}

}  // namespace convcheck::runner
