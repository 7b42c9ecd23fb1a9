#include "harness.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
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

std::unique_ptr<LoadedPlugin> plugin;
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

// Runs the plugin on canonical data and checks the runner-side promises: inputs untouched, nothing
// written past dst, every dst element written (dst is pre-filled with NaN).
Outcome execute(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                const std::vector<double>& bias) {
    const int bytes = size_of(d.dtype);
    std::vector<std::byte> src_buf(d.src_elements() * bytes), wei_buf(d.weights_elements() * bytes),
        bias_buf(std::max<std::int64_t>(1, d.bias_elements()) * bytes);
    reference::ncx_to_src(d, src, src_buf.data());
    reference::oix_to_weights(d, weights, wei_buf.data());
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) store_from_double(bias_buf.data(), d.dtype, o, bias[o]);
    const auto src_copy = src_buf, wei_copy = wei_buf, bias_copy = bias_buf;
    constexpr std::size_t guard = 256;
    std::vector<std::byte> dst_buf(d.dst_elements() * bytes + guard, std::byte{0x5a});
    for (std::int64_t i = 0; i < d.dst_elements(); ++i)
        store_from_double(dst_buf.data(), d.dtype, i, std::numeric_limits<double>::quiet_NaN());
    char implementation[128] = {0};

    const convcheck_conv_desc a = to_abi(d);
    const convcheck_conv_args args{sizeof(convcheck_conv_args), src_buf.data(), wei_buf.data(),
                                   d.has_bias ? bias_buf.data() : nullptr, dst_buf.data(), implementation,
                                   sizeof(implementation)};
    const std::string error = plugin->take_error(plugin->api().conv_execute(plugin->instance(), &a, &args));
    if (!error.empty()) throw std::runtime_error("conv_execute returned an error: " + error);
    if (src_buf != src_copy || wei_buf != wei_copy || bias_buf != bias_copy)
        throw std::runtime_error("the plugin wrote into an input buffer");
    for (std::size_t i = d.dst_elements() * bytes; i < dst_buf.size(); ++i)
        if (dst_buf[i] != std::byte{0x5a}) throw std::runtime_error("the plugin wrote past the end of dst");
    return {reference::dst_to_ncx(d, dst_buf.data()), std::string(implementation, strnlen(implementation, sizeof(implementation)))};
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
