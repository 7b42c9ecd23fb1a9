#include "harness.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include "convcheck/reference/convolution.hpp"

namespace convcheck::backend_test {

namespace {

std::string describe_failure(const accuracy::Comparison& r) {
    return std::to_string(r.mismatches) + "/" + std::to_string(r.elements) + " outputs off; worst flat NCX index " +
           std::to_string(r.worst_index) + " got " + std::to_string(r.worst_got) + " want " + std::to_string(r.worst_want) +
           " bound " + std::to_string(r.worst_bound) + " (max |diff| " + std::to_string(r.max_abs) + ")";
}

}  // namespace

std::unique_ptr<PluginInstance> plugin;
std::string plugin_path;
runner::Expectations declarations;

bool claims(const convcheck_plugin_info& info, const ConvDescriptor& d) {
    return (info.dtypes & CONVCHECK_BIT(static_cast<int>(d.dtype))) && (info.ranks & CONVCHECK_BIT(d.rank)) &&
           (info.data_formats & CONVCHECK_BIT(static_cast<int>(d.data_format))) &&
           (info.filter_formats & CONVCHECK_BIT(static_cast<int>(d.filter_format)));
}

std::string reproducer(const ConvDescriptor& d, std::uint64_t seed, accuracy::Mode mode) {
    return std::string(plugin->info().name) + " " + to_string(d) + " seed " + std::to_string(seed) + " mode " +
           accuracy::to_string(mode);
}

// Asks the plugin; returns "" when supported, else its reason (never empty).
std::string query(const ConvDescriptor& d) {
    const convcheck_conv_desc a = to_abi(d);
    convcheck_support support{};
    support.struct_size = sizeof(support);
    support.supported = -1;
    const std::string error = plugin->take_error(plugin->api().conv_query(plugin->instance(), &a, &support));
    if (!error.empty()) throw std::runtime_error("conv_query returned an error: " + error);
    if (support.supported == 1) return "";
    if (support.supported != 0) throw std::runtime_error("conv_query left `supported` unset");
    const std::string reason(support.reason, strnlen(support.reason, sizeof(support.reason)));
    return reason.empty() ? "(declined without a reason)" : reason;
}

namespace {

// A case's buffers in the plugin's formats: the inputs from canonical data, dst pre-filled with NaN
// and followed by a guard pattern. check() holds the runner-side promises after a call: inputs
// untouched, nothing written past dst.
class CaseBuffers {
public:
    CaseBuffers(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                const std::vector<double>& bias)
        : d_(d), bytes_(size_of(d.dtype)), src_(d.src_elements() * bytes_), weights_(d.weights_elements() * bytes_),
          bias_(std::max<std::int64_t>(1, d.bias_elements()) * bytes_) {
        reference::ncx_to_src(d, src, src_.data());
        reference::oix_to_weights(d, weights, weights_.data());
        for (std::int64_t o = 0; o < d.bias_elements(); ++o) store_from_double(bias_.data(), d.dtype, o, bias[o]);
        src_copy_ = src_, weights_copy_ = weights_, bias_copy_ = bias_;
        fresh_dst();
    }
    void fresh_dst() {
        dst_.assign(d_.dst_elements() * bytes_ + kGuard, std::byte{0x5a});
        for (std::int64_t i = 0; i < d_.dst_elements(); ++i)
            store_from_double(dst_.data(), d_.dtype, i, std::numeric_limits<double>::quiet_NaN());
    }
    convcheck_conv_args args(char* implementation, std::size_t capacity) {
        convcheck_conv_args a{};
        a.struct_size = sizeof(a);
        a.src = src_.data();
        a.weights = weights_.data();
        a.bias = d_.has_bias ? bias_.data() : nullptr;
        a.dst = dst_.data();
        a.implementation = implementation;
        a.implementation_capacity = capacity;
        return a;
    }
    const void* weights() const { return weights_.data(); }
    const void* bias() const { return d_.has_bias ? bias_.data() : nullptr; }
    std::vector<double> checked_dst() const {
        if (src_ != src_copy_ || weights_ != weights_copy_ || bias_ != bias_copy_)
            throw std::runtime_error("the plugin wrote into an input buffer");
        for (std::size_t i = d_.dst_elements() * bytes_; i < dst_.size(); ++i)
            if (dst_[i] != std::byte{0x5a}) throw std::runtime_error("the plugin wrote past the end of dst");
        return reference::dst_to_ncx(d_, dst_.data());
    }

private:
    static constexpr std::size_t kGuard = 256;
    ConvDescriptor d_;
    int bytes_;
    std::vector<std::byte> src_, weights_, bias_, dst_, src_copy_, weights_copy_, bias_copy_;
};

}  // namespace

// Runs the plugin on canonical data and checks the runner-side promises: inputs untouched, nothing
// written past dst, every dst element written (dst is pre-filled with NaN).
Outcome execute(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                const std::vector<double>& bias) {
    CaseBuffers buffers(d, src, weights, bias);
    char implementation[128] = {0};
    const convcheck_conv_desc a = to_abi(d);
    const convcheck_conv_args args = buffers.args(implementation, sizeof(implementation));
    const std::string error = plugin->take_error(plugin->api().conv_execute(plugin->instance(), &a, &args));
    if (!error.empty()) throw std::runtime_error("conv_execute returned an error: " + error);
    return {buffers.checked_dst(), std::string(implementation, strnlen(implementation, sizeof(implementation)))};
}

PlanOutcome execute_plan(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                         const std::vector<double>& bias, bool weights_at_prepare, int executes) {
    const convcheck_api& api = plugin->api();
    CaseBuffers buffers(d, src, weights, bias);
    const convcheck_conv_desc a = to_abi(d);
    convcheck_conv_prepare_args prepare{};
    prepare.struct_size = sizeof(prepare);
    if (weights_at_prepare) prepare.weights = buffers.weights(), prepare.bias = buffers.bias();
    convcheck_conv_plan* plan = nullptr;
    plugin->check(api.conv_prepare(plugin->instance(), &a, &prepare, &plan), "conv_prepare");
    if (plan == nullptr) throw std::runtime_error("conv_prepare succeeded without a plan");
    const std::unique_ptr<convcheck_conv_plan, void (*)(convcheck_conv_plan*)> owned(plan, api.conv_plan_destroy);
    PlanOutcome out;
    out.info.struct_size = sizeof(out.info);
    plugin->check(api.conv_plan_describe(plan, &out.info), "conv_plan_describe");
    for (int i = 0; i < executes; ++i) {
        buffers.fresh_dst();
        const convcheck_conv_args args = buffers.args(nullptr, 0);
        plugin->check(api.conv_plan_execute(plan, &args), "conv_plan_execute");
        out.dst.push_back(buffers.checked_dst());
    }
    return out;
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
    const auto want = reference::convolution_summation(d, src, weights, bias);
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
