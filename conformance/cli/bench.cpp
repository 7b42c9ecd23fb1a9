// `convcheck bench --backend <name|path> [--suite models]`: times a backend against the optimized
// implementation and the reference on the cases of a suite whose operation bench times (its traits
// entry's `time`: discrete convolution and its backward passes), in one run, every execution isolated
// like in `run`. A backward pass runs through the one-shot conv_execute (no prepare_ms). Times are per execute call through the ABI, the minimum of
// --repeats after one warm-up. A plugin with a plan (ABI 1.2) is timed on conv_plan_execute alone:
// its conv_prepare (primitive creation, weight packing) is timed once and reported apart
// (prepare_ms); a plugin without one plans inside conv_execute and pays for it on every call.
// Each distinct descriptor is timed once (a suite's modes do not matter here).
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "convcheck/runner/memory_limit.hpp"
#include "numeric_options.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/session.hpp"
#include "benchdnn_driver_option.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::runner;

struct BenchOptions {
    std::string backend = "optimized";
    std::vector<std::string> backend_options;
    std::string suite = "smoke";
    SuiteReadOptions read;  // --benchdnn-driver
    std::string json_path;
    int threads = 0, repeats = 5;
    double timeout_s = 120.0;
    bool no_reference = false;
    std::string memory_limit;  // "" : default_memory_limit()
};

// A value that was not measured (the case was declined or failed, or the reference was not timed) is
// empty, and so is every figure derived from it: the table prints "-" and the record null
// (docs/results-schema.md), never a number a reader could take for a measurement.
using Measured = std::optional<double>;

Measured min_ms(const ChildOutcome& o) {
    if (o.kind != ChildOutcome::Kind::ok || o.times_ms.empty()) return std::nullopt;
    double m = o.times_ms.front();
    for (double t : o.times_ms) m = std::min(m, t);
    return m;
}

std::string cell(const Measured& v, int width, int precision) {
    char text[64];
    if (v) std::snprintf(text, sizeof text, "%*.*f", width, precision, *v);
    else std::snprintf(text, sizeof text, "%*s", width, "-");
    return text;
}

// conv_prepare's time, for a plugin with a plan that ran.
Measured prepare_ms(const ChildOutcome& o) {
    return o.kind == ChildOutcome::Kind::ok && o.prepare_ms ? Measured(*o.prepare_ms) : std::nullopt;
}

nlohmann::json number_or_null(const Measured& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

int bench(const BenchOptions& o) {
    const std::int64_t memory_limit =
        o.memory_limit.empty() ? default_memory_limit() : parse_memory_size(o.memory_limit, "--memory-limit");
    std::unique_ptr<BackendSession> backend, optimized, reference;
    try {
        backend = open_backend(o.backend, o.backend_options, o.threads, "none", o.timeout_s);
        optimized = open_backend("optimized", {}, o.threads, "none", o.timeout_s);
        if (!o.no_reference) reference = open_backend("reference", {}, o.threads, "none", o.timeout_s);
    } catch (const PluginError& e) {
        std::fprintf(stderr, "convcheck: error: %s\n", e.what());
        return kExitPluginFailed;
    }
    std::unique_ptr<std::ofstream> json;
    if (!o.json_path.empty()) {
        json = std::make_unique<std::ofstream>(o.json_path);
        if (!*json) throw std::invalid_argument("cannot write '" + o.json_path + "'");
    }
    std::printf("%-44s %10s %10s %9s %12s %12s %9s  %s\n", "case", "ms", "prepare_ms", "GFLOP/s", "optimized_ms",
                "reference_ms", "vs_opt", "descriptor");
    std::set<std::string> done;
    for (const Case& c : load_cases(o.suite, 1, "bound", o.read)) {
        const OperationTraits& op = operation(c.op);
        if (!op.time || !done.insert(c.descriptor()).second) continue;  // an operation bench does not time
        const ChildOutcome mine = time_case(backend->backend, c, 1, o.repeats, o.timeout_s, memory_limit);
        const ChildOutcome ours = time_case(optimized->backend, c, 1, o.repeats, o.timeout_s, memory_limit);
        const Measured ms = min_ms(mine), optimized_ms = min_ms(ours);
        Measured reference_ms;
        if (reference) reference_ms = min_ms(time_case(reference->backend, c, 0, 1, o.timeout_s, memory_limit));
        Measured gflops, ratio;
        if (ms && *ms > 0 && op.macs && op.macs(c) > 0) gflops = 2.0 * double(op.macs(c)) / (*ms * 1e6);
        if (ms && *ms > 0 && optimized_ms) ratio = *optimized_ms / *ms;
        const std::string label = c.name.empty() ? c.id : c.name;
        if (!ms) {
            std::printf("%-44s %10s  (%s: %s)\n", label.c_str(), "-",
                        mine.kind == ChildOutcome::Kind::unsupported ? "unsupported" : "did not run", mine.reason.c_str());
        } else {
            std::printf("%-44s %s %s %s %s %s %s  %s\n", label.c_str(), cell(ms, 10, 3).c_str(),
                        cell(prepare_ms(mine), 10, 3).c_str(), cell(gflops, 9, 2).c_str(),
                        cell(optimized_ms, 12, 3).c_str(), cell(reference_ms, 12, 3).c_str(), cell(ratio, 9, 2).c_str(),
                        c.descriptor().c_str());
        }
        std::fflush(stdout);
        if (json) {
            *json << nlohmann::json{{"record", "bench"}, {"backend", backend->backend.info.name},
                                    {"descriptor", c.descriptor()}, {"shape_name", c.name}, {"threads", o.threads},
                                    {"ms", number_or_null(ms)}, {"prepare_ms", number_or_null(prepare_ms(mine))},
                                    {"optimized_prepare_ms", number_or_null(prepare_ms(ours))},
                                    {"gflops", number_or_null(gflops)},
                                    {"optimized_ms", number_or_null(optimized_ms)},
                                    {"reference_ms", number_or_null(reference_ms)},
                                    {"ratio_to_optimized", number_or_null(ratio)},
                                    {"status", !ms ? (mine.kind == ChildOutcome::Kind::unsupported ? "unsupported"
                                                                                               : "failed")
                                                   : "ok"},
                                    {"reason", mine.reason}}
                         .dump()
                  << '\n';
        }
    }
    // unsupported or failing cases are reported in the table and the records; correctness is `run`'s job
    return kExitOk;
}

void add_bench_command(CLI::App& app) {
    static BenchOptions o;
    auto* cmd = app.add_subcommand("bench", "Time a backend against the optimized implementation and the reference");
    cmd->add_option("--backend", o.backend, "plugin name or path (default: optimized)");
    cmd->add_option("--backend-option", o.backend_options, "key=value for the backend's create (repeatable)");
    cmd->add_option("--suite", o.suite, "suite or case file (default: smoke)");
    add_benchdnn_driver_option(cmd, o.read);
    cmd->add_option("--json", o.json_path, "write bench records (docs/results-schema.md) here");
    add_count_option(cmd, "--threads", o.threads, 0, 4096, "threads every plugin may use (0: its default)");
    add_count_option(cmd, "--repeats", o.repeats, 1, 256, "timed executions per case (after one warm-up)");
    add_seconds_option(cmd, "--timeout", o.timeout_s, false, "seconds per timing child (default 120)");
    cmd->add_option("--memory-limit", o.memory_limit, "what one timed case may use, e.g. 2G (default: half the "
                                                      "memory available at start)");
    cmd->add_flag("--no-reference", o.no_reference, "do not time the reference (slow on real model sizes)");
    cmd->callback([] { exit_code() = bench(o); });
}

const Registration registration{"bench", add_bench_command};

}  // namespace

}  // namespace convcheck::cli
