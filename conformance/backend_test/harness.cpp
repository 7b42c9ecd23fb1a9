#include "harness.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include "convcheck/runner/conv_buffers.hpp"
#include "convcheck/runner/verdict.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "convcheck/runner/verdict.hpp"

namespace convcheck::backend_test {

namespace {

// Every plugin call's time limit in a child (the runner's default).
constexpr double kTimeoutSeconds = 30.0;

// "crashed (crash): SIGSEGV in execute: ...": how a child ended, in the runner's words (case.hpp).
std::string outcome_text(const runner::ChildOutcome& o) {
    runner::CaseResult r;
    runner::detail::outcome_status(o, r);
    return std::string(runner::to_string(r.status)) + " (" + runner::to_string(r.kind) + "): " + o.reason;
}

std::string describe_failure(const accuracy::Comparison& r) {
    return std::to_string(r.mismatches) + "/" + std::to_string(r.elements) + " outputs off; worst flat NCX index " +
           std::to_string(r.worst_index) + " got " + std::to_string(r.worst_got) + " want " + std::to_string(r.worst_want) +
           " bound " + std::to_string(r.worst_bound) + " (max |diff| " + std::to_string(r.max_abs) + ")";
}

}  // namespace

std::unique_ptr<PluginUnderTest> plugin;
std::string plugin_path;
runner::Expectations declarations;

PluginUnderTest::PluginUnderTest(const std::string& path, runner::InstanceOptions options)
    : plugin_(runner::Plugin::load(path)), options_(std::move(options)),
      info_(runner::negotiate(plugin_, options_, kTimeoutSeconds)) {}

std::string unclaimed(const runner::PluginInfo& info, const ConvDescriptor& d) { return runner::unclaimed(info, d); }

bool claims(const runner::PluginInfo& info, const ConvDescriptor& d) { return runner::unclaimed(info, d).empty(); }

std::string reproducer(const ConvDescriptor& d, std::uint64_t seed, accuracy::Mode mode) {
    return plugin->info().name + " " + to_string(d) + " seed " + std::to_string(seed) + " mode " +
           accuracy::to_string(mode);
}

std::string query(const ConvDescriptor& d) {
    runner::ConvExecution e;
    e.desc = to_abi(d);
    e.query_only = true;
    e.timeout_s = kTimeoutSeconds;
    const runner::ChildOutcome o = runner::execute_conv(plugin->plugin(), plugin->options(), e);
    if (o.kind == runner::ChildOutcome::Kind::ok) return "";
    if (o.kind == runner::ChildOutcome::Kind::unsupported) return o.reason.empty() ? "(declined without a reason)" : o.reason;
    throw std::runtime_error("conv_query: " + outcome_text(o));
}

std::string take_error(const convcheck_api& api, convcheck_error* error) {
    if (error == nullptr) return "";
    const char* message = api.error_message(error);
    std::string text = message && *message ? message : "(error with an empty message)";
    api.error_destroy(error);
    return text;
}

std::string in_child(const std::function<std::string(const convcheck_api&, convcheck_plugin*)>& body) {
    const convcheck_api& api = plugin->api();
    runner::IsolatedExecution x;
    x.timeout_s = kTimeoutSeconds;
    // no query of the plugin's own: the body makes the calls it checks
    x.query = [](convcheck_plugin*, convcheck_support* s) -> convcheck_error* {
        s->supported = 1;
        return nullptr;
    };
    x.run = [&](runner::child::Report& r, convcheck_plugin* instance) {
        const std::string broken = body(api, instance);
        if (broken.empty()) return true;
        // the body's finding travels back as an "unsupported" report with the finding as its reason
        runner::child::copy_string(r.message, sizeof(r.message), broken.c_str());
        r.result = runner::child::kUnsupported;
        return false;
    };
    const runner::ChildOutcome o = runner::execute_isolated(plugin->plugin(), plugin->options(), x);
    if (o.kind == runner::ChildOutcome::Kind::ok) return "";
    if (o.kind == runner::ChildOutcome::Kind::unsupported) return o.reason;
    return outcome_text(o);
}

namespace {

// One isolated execution of d on canonical data (the runner's buffers and execute_conv); throws
// when it did not come back ok.
struct Executed {
    std::vector<double> dst;
    runner::ChildOutcome outcome;
};
Executed run_isolated(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                      const std::vector<double>& bias, bool weights_at_prepare, int executes,
                      const runner::InstanceOptions& options) {
    const runner::Buffers b = runner::make_buffers(d, src, weights, bias);
    runner::ConvExecution e = runner::conv_execution(d, b);
    e.repeats = executes;
    e.weights_at_prepare = weights_at_prepare;
    e.timeout_s = kTimeoutSeconds;
    // with a plan, the one-shot conv_execute runs beside it, into a dst filled like dst (all bytes
    // 0xFF, a NaN), and must give the same outputs
    runner::GuardedBuffer one_shot(b.dst.bytes());
    if (one_shot.data()) std::memset(one_shot.data(), 0xFF, one_shot.bytes());
    e.one_shot_dst = &one_shot;
    runner::ChildOutcome o = runner::execute_conv(plugin->plugin(), options, e);
    if (o.kind == runner::ChildOutcome::Kind::unsupported) throw Declined(o.reason);
    if (o.kind != runner::ChildOutcome::Kind::ok) throw std::runtime_error(outcome_text(o));
    return {reference::dst_to_ncx(d, b.dst.data()), std::move(o)};
}

}  // namespace

Outcome execute(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                const std::vector<double>& bias, std::optional<int> num_threads) {
    runner::InstanceOptions options = plugin->options();
    if (num_threads) options.num_threads = *num_threads;
    Executed x = run_isolated(d, src, weights, bias, true, 1, options);
    return {std::move(x.dst), x.outcome.implementation};
}

PlanOutcome execute_plan(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                         const std::vector<double>& bias, bool weights_at_prepare, int executes) {
    if (!plugin->plugin().has_conv_plan()) throw std::runtime_error("the plugin has no plan entries (ABI before 1.2)");
    Executed x = run_isolated(d, src, weights, bias, weights_at_prepare, executes, plugin->options());
    if (!x.outcome.prepare_ms) throw std::runtime_error("the plugin's plan did not run");
    return {std::move(x.dst), x.outcome.workspace_bytes.value_or(0), x.outcome.plan_bytes.value_or(0)};
}

accuracy::Contract contract_for(const ConvDescriptor& d) {
    return runner::contract_for(&declarations, plugin->info().name, plugin->info().accumulation_dtype, d.dtype);
}

// Runs d once in `mode` and checks the outcome against the reference and the declarations.
void check_case(const ConvDescriptor& d, accuracy::Mode mode, std::uint64_t seed) {
    const accuracy::Contract c = contract_for(d);
    std::vector<double> src, weights, bias;
    if (mode == accuracy::Mode::exact) {
        accuracy::ExactFill f = accuracy::make_exact_fill(d, c, seed);
        src = std::move(f.src), weights = std::move(f.weights), bias = std::move(f.bias);
    } else {
        accuracy::RandomFill f = accuracy::make_random_fill(d, seed);
        src = std::move(f.src), weights = std::move(f.weights), bias = std::move(f.bias);
    }
    const auto want = reference::fast_convolution_summation(d, src, weights, bias);
    const Outcome got = execute(d, src, weights, bias);
    const accuracy::Comparison r = mode == accuracy::Mode::exact
                                       ? accuracy::compare_exact(want.dst, got.dst)
                                       : accuracy::compare_bound(c, want.dst, want.magnitude, want.terms, got.dst);
    // The data file's expected failures, matched as the runner matches them: this test's cases
    // belong to no suite, so an entry that names a suite or a case_id does not match here.
    runner::Case as_case;
    as_case.conv = d;
    as_case.mode = mode;
    as_case.seed = seed;
    const runner::ExpectedFailure* expected = declarations.expected_failure(
        plugin->info().name, as_case, r.passed() ? runner::Status::passed : runner::Status::failed);
    if (expected && r.passed() && !expected->may_pass) {
        ADD_FAILURE() << "declared an expected failure (" << expected->reason << ") but passed (xpass)"
                      << "\n  reproduce: " << reproducer(d, seed, mode);
    } else if (!expected) {
        EXPECT_TRUE(r.passed()) << describe_failure(r) << "\n  implementation " << got.implementation
                                << "\n  contract: output " << to_string(c.output_dtype) << ", accumulation "
                                << (c.accumulation_is_f64 ? "f64" : to_string(c.accumulation_dtype)) << ", bound "
                                << accuracy::bound_name(c) << "\n  reproduce: " << reproducer(d, seed, mode);
    }
    if (mode == accuracy::Mode::bound) {
        ::testing::Test::RecordProperty("implementation", got.implementation);
        ::testing::Test::RecordProperty("max_bound_fraction", std::to_string(r.max_bound_fraction));
    }
}

}  // namespace convcheck::backend_test
