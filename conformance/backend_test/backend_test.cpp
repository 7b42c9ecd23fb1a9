// The direct, ABI-level test of one third-party backend plugin:
//     convcheck_backend_test <plugin.so> [backends.json] [--backend-option key=value]... [--threads n] [gtest flags]
// Every call of the plugin runs in a child process (harness.hpp): a crash fails the test in
// progress, and the program goes on to the next.
// Checks the plugin's table and its struct_size / error-value behaviour, then runs every case of
// cases.cpp that the plugin claims against the reference, in exact mode (any difference fails)
// and bound mode (the accuracy contract, with the accumulation type the plugin declares).
// A case the plugin declines is skipped with its reason; a declined case must give one. A case the
// data file declares an expected failure must fail (an xpass fails the test: the finding is stale).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "cases.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "harness.hpp"
#include "convcheck/testing/random_descriptor.hpp"

namespace convcheck::backend_test {
namespace {

class CaseTest : public ::testing::Test {
public:
    explicit CaseTest(ConvDescriptor d) : d_(std::move(d)) {}
    void TestBody() override {
        try {
            check_case(d_, accuracy::Mode::exact, 1);  // its child asks conv_query first
        } catch (const Declined& e) {
            GTEST_SKIP() << "declined: " << e.what();
        }
        check_case(d_, accuracy::Mode::bound, 1);
    }

private:
    ConvDescriptor d_;
};

ConvDescriptor core_case() {
    // f32 2-D in the first data and filter format the plugin claims: what every backend must run.
    ConvDescriptor d = parse_descriptor("conv:c=3,o=4,in=6x5,k=3x3,pb=1x1,pe=1x1,bias=1");
    if (!(plugin->info().data_formats & CONVCHECK_BIT(CONVCHECK_NCX))) d.data_format = DataFormat::nxc;
    if (!(plugin->info().filter_formats & CONVCHECK_BIT(CONVCHECK_OIX))) d.filter_format = FilterFormat::xio;
    return d;
}

TEST(Abi, TableMatchesTheHeader) {
    const convcheck_api& api = plugin->api();
    EXPECT_EQ(api.abi_major, CONVCHECK_ABI_MAJOR);
    EXPECT_GE(api.struct_size, CONVCHECK_STRUCT_SIZE(convcheck_api, error_destroy));
    EXPECT_NE(api.conv_query, nullptr);
    EXPECT_NE(api.conv_execute, nullptr);
    EXPECT_EQ(api.cc_query == nullptr, api.cc_execute == nullptr);
}

TEST(Abi, DescribeNamesTheBackendAndItsClaims) {
    const runner::PluginInfo& info = plugin->info();  // negotiated in a child (a NULL name fails there)
    EXPECT_FALSE(info.name.empty());
    EXPECT_FALSE(info.version.empty());
    EXPECT_TRUE(info.operations & CONVCHECK_OP_CONV);
    EXPECT_NE(info.dtypes, 0u);
    EXPECT_EQ(info.ranks & ~0xEu, 0u) << "ranks other than 1..3 claimed";
    EXPECT_NE(info.data_formats, 0u);
    EXPECT_NE(info.filter_formats, 0u);
    std::cout << "plugin " << info.name << " " << info.version << " from " << plugin_path << "\n";
}

TEST(Abi, DescribeWritesNoFieldBeyondTheCallersStructSize) {
    EXPECT_KEPT(in_child([](const convcheck_api& api, convcheck_plugin* instance) -> std::string {
                  convcheck_plugin_info info;
                  std::memset(&info, 0xab, sizeof(info));
                  info.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_plugin_info, version);  // an older runner
                  if (std::string e = take_error(api, api.describe(instance, &info)); !e.empty()) return "describe: " + e;
                  if (info.version == nullptr) return "describe left version NULL";
                  uint32_t untouched;
                  std::memset(&untouched, 0xab, sizeof(untouched));
                  if (info.operations != untouched || info.accumulation_dtype != static_cast<int32_t>(untouched))
                      return "describe wrote operations or accumulation_dtype, past the caller's struct_size";
                  return "";
              }));
}

TEST(Abi, DeclinesAnUnclaimedDtypeWithAReason) {
    convcheck_conv_desc a = to_abi(core_case());
    a.dtype = CONVCHECK_F64;  // no backend here computes f64 convolution through this ABI
    EXPECT_KEPT(in_child([&a](const convcheck_api& api, convcheck_plugin* instance) -> std::string {
                  convcheck_support support{};
                  support.struct_size = sizeof(support);
                  support.supported = -1;
                  if (std::string e = take_error(api, api.conv_query(instance, &a, &support)); !e.empty()) return "conv_query: " + e;
                  if (support.supported != 0) return "an f64 case is not declined (supported " + std::to_string(support.supported) + ")";
                  if (strnlen(support.reason, sizeof(support.reason)) == 0) return "an f64 case is declined without a reason";
                  return "";
              }));
}

// In a child: conv_query on a descriptor too short for ABI 1.0 must return an error value, with
// error code want_code unless that is CONVCHECK_ERROR_UNKNOWN (any code). "" when it does.
std::string short_descriptor_error(std::int32_t want_code) {
    convcheck_conv_desc a = to_abi(core_case());
    a.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, groups);
    return in_child([&a, want_code](const convcheck_api& api, convcheck_plugin* instance) -> std::string {
        convcheck_support support{};
        support.struct_size = sizeof(support);
        convcheck_error* error = api.conv_query(instance, &a, &support);
        if (error == nullptr) return "conv_query returned success for a descriptor shorter than ABI 1.0";
        const std::int32_t code = api.error_code ? api.error_code(error) : CONVCHECK_ERROR_UNKNOWN;
        const std::string message = take_error(api, error);
        if (want_code != CONVCHECK_ERROR_UNKNOWN && code != want_code)
            return "error code " + std::to_string(code) + ", want " + std::to_string(want_code) + ": " + message;
        return "";
    });
}

TEST(Abi, ADescriptorShorterThanAbi10IsAnErrorValue) { EXPECT_KEPT(short_descriptor_error(CONVCHECK_ERROR_UNKNOWN)); }

// ABI 1.2: an error names its kind; a descriptor too short for ABI 1.0 is an invalid argument.
TEST(Abi, AShortDescriptorIsAnInvalidArgumentError) {
    const convcheck_api& api = plugin->api();
    if (api.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_api, error_code) || api.error_code == nullptr)
        GTEST_SKIP() << "the plugin has no error_code (ABI before 1.2)";
    EXPECT_KEPT(short_descriptor_error(CONVCHECK_ERROR_INVALID_ARGUMENT));
}

// ABI 1.2: a plan executes any number of times, each time with the one-shot call's outputs, with
// the weights given at prepare or only at execute.
TEST(Abi, APlanExecutesTwiceWithTheOneShotOutputs) {
    if (!plugin->plugin().has_conv_plan()) GTEST_SKIP() << "the plugin has no plan entries (ABI before 1.2)";
    const ConvDescriptor d = core_case();
    ASSERT_EQ(query(d), "");
    const accuracy::ExactFill f = accuracy::make_exact_fill(d, contract_for(d), 3);
    const Outcome once = execute(d, f.src, f.weights, f.bias);
    // each run also compares the plan's outputs with its own one-shot conv_execute, bit for bit
    for (const bool weights_at_prepare : {true, false})
        for (const int executes : {1, 2}) {
            const PlanOutcome planned = execute_plan(d, f.src, f.weights, f.bias, weights_at_prepare, executes);
            EXPECT_TRUE(accuracy::compare_exact(once.dst, planned.dst).passed())
                << "weights at prepare: " << weights_at_prepare << ", executes " << executes
                << "; reproduce: " << reproducer(d, 3, accuracy::Mode::exact);
        }
}

TEST(Abi, ExecuteWithoutDstIsAnErrorValue) {
    const ConvDescriptor d = core_case();
    const convcheck_conv_desc a = to_abi(d);
    EXPECT_KEPT(in_child([&](const convcheck_api& api, convcheck_plugin* instance) -> std::string {
                  std::vector<float> src(d.src_elements()), wei(d.weights_elements()), bias(d.bias_elements());
                  convcheck_conv_args args{};
                  args.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_conv_args, dst);
                  args.src = src.data();
                  args.weights = wei.data();
                  args.bias = bias.data();  // dst NULL
                  if (take_error(api, api.conv_execute(instance, &a, &args)).empty())
                      return "conv_execute returned success without a dst";
                  return "";
              }));
}

TEST(Abi, RunsItsCoreCaseAndNamesTheImplementation) {
    const ConvDescriptor d = core_case();
    ASSERT_EQ(query(d), "") << "every backend must run a plain f32 2-D convolution: " << to_string(d);
    const accuracy::ExactFill f = accuracy::make_exact_fill(d, contract_for(d), 7);
    const Outcome got = execute(d, f.src, f.weights, f.bias);
    EXPECT_FALSE(got.implementation.empty());
    const auto want = reference::fast_convolution_summation(d, f.src, f.weights, f.bias);
    EXPECT_TRUE(accuracy::compare_exact(want.dst, got.dst).passed()) << reproducer(d, 7, accuracy::Mode::exact);
    std::cout << "implementation: " << got.implementation << "\n";
}

// Bound mode can fail this plugin: for every dtype it claims, the contract's bound is finite, below
// the output's own magnitude for a short reduction whose terms do not cancel (28 positive terms of 1:
// 3x3x3 taps + bias), and a result twice the bound away fails. (A plugin that described f64
// accumulation used to get u_acc = 1 here, an infinite bound that passed anything. With cancelling
// terms, y* = 1 and M = 28, a declared bf16 accumulation, libtorch's on a CPU without AVX-512, gives
// phi_28(2^-8) * 28 = 3.1 > 1, a bound that is honest but cannot fail that output.)
TEST(Contract, BoundModeCanFailForEveryClaimedDtype) {
    for (DataType t : {DataType::f32, DataType::f16, DataType::bf16}) {
        if (!(plugin->info().dtypes & CONVCHECK_BIT(static_cast<int>(t)))) continue;
        ConvDescriptor d = core_case();
        d.dtype = t;
        const accuracy::Contract c = contract_for(d);
        const double bound = accuracy::error_bound(c, 28.0, 28.0, 28);  // y* = M = 28, n = 28
        EXPECT_TRUE(std::isfinite(bound) && bound < 28.0)
            << to_string(t) << ": bound " << bound << " for y* = 28, M = 28, n = 28 (accumulation "
            << (c.accumulation_is_f64 ? "f64" : to_string(c.accumulation_dtype)) << ", roundoff "
            << accuracy::accumulation_roundoff(c) << ")";
        const std::vector<double> want{28.0}, magnitude{28.0}, got{28.0 + 2.0 * bound};
        const std::vector<std::int64_t> terms{28};
        EXPECT_FALSE(accuracy::compare_bound(c, want, magnitude, terms, got).passed()) << to_string(t);
    }
}

TEST(Random, AgreesWithTheReferenceOnRandomDescriptors) {
    const runner::PluginInfo& info = plugin->info();
    testgen::DescriptorLimits limits;
    limits.min_rank = 3, limits.max_rank = 1;
    for (int r = 1; r <= 3; ++r)
        if (info.ranks & CONVCHECK_BIT(r)) limits.min_rank = std::min(limits.min_rank, r), limits.max_rank = r;
    ASSERT_LE(limits.min_rank, limits.max_rank);
    std::vector<DataType> dtypes;
    for (DataType t : {DataType::f32, DataType::f16, DataType::bf16})
        if (info.dtypes & CONVCHECK_BIT(static_cast<int>(t))) dtypes.push_back(t);
    const auto generator = testgen::valid_descriptor(limits);
    int ran = 0, declined = 0;
    // Until 60 have run (at most 600 draws): plugins claim every dtype and decline per case what
    // their library lacks, so the count of draws a plugin runs varies.
    for (std::uint64_t i = 0; ran < 60 && i < 600; ++i) {
        ConvDescriptor d = generator(rc::Random(i)).value();
        if (!(info.ranks & CONVCHECK_BIT(d.rank))) continue;
        d.dtype = dtypes[i % dtypes.size()];
        if (!(info.data_formats & CONVCHECK_BIT(static_cast<int>(d.data_format)))) d.data_format = static_cast<DataFormat>(1 - static_cast<int>(d.data_format));
        if (!(info.filter_formats & CONVCHECK_BIT(static_cast<int>(d.filter_format)))) d.filter_format = static_cast<FilterFormat>(1 - static_cast<int>(d.filter_format));
        SCOPED_TRACE("random descriptor " + std::to_string(i) + ": " + to_string(d));
        try {
            check_case(d, accuracy::Mode::exact, i);  // its child asks conv_query first
        } catch (const Declined&) {
            ++declined;
            continue;
        } catch (const std::exception& e) {
            ADD_FAILURE() << e.what() << "\n  reproduce: " << reproducer(d, i, accuracy::Mode::exact);
        }
        ++ran;
        try {
            if (!HasFailure()) check_case(d, accuracy::Mode::bound, i);
        } catch (const std::exception& e) {
            ADD_FAILURE() << e.what() << "\n  reproduce: " << reproducer(d, i, accuracy::Mode::bound);
        }
        if (HasFailure()) break;  // the first disagreement is the one to read
    }
    std::cout << "random descriptors: " << ran << " ran, " << declined << " declined by the plugin\n";
    EXPECT_GT(ran, 0) << "the plugin declined every random descriptor";
}

}  // namespace
}  // namespace convcheck::backend_test

int main(int argc, char** argv) {
    using namespace convcheck::backend_test;
    ::testing::InitGoogleTest(&argc, argv);
    // <plugin.so> [backends.json] [--backend-option key=value]... [--threads n (2)]
    std::vector<std::string> args(argv + 1, argv + argc);
    convcheck::runner::InstanceOptions options;
    options.num_threads = 2;
    for (std::size_t i = 0; i < args.size();) {
        if (args[i] != "--backend-option" && args[i] != "--threads") {
            ++i;
            continue;
        }
        if (i + 1 == args.size()) {
            std::cerr << args[i] << " needs a value\n";
            return 2;
        }
        if (args[i] == "--threads") {
            options.num_threads = std::atoi(args[i + 1].c_str());
            if (options.num_threads < 1 || options.num_threads > 256) {
                std::cerr << "--threads " << args[i + 1] << ": want a count from 1 to 256\n";
                return 2;
            }
        } else {
            options.options += (options.options.empty() ? "" : ",") + args[i + 1];  // as `convcheck run` joins them
        }
        args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    }
    if (args.empty() || args.size() > 2) {
        std::cerr << "usage: " << argv[0] << " <plugin.so> [backends.json] [--backend-option key=value]... [--threads n] [gtest flags]\n";
        return 2;
    }
    plugin_path = args[0];
    convcheck::runner::let_idle_openmp_threads_sleep();  // before the plugin's OpenMP runtime is loaded
    try {
        plugin = std::make_unique<PluginUnderTest>(plugin_path, options);
        // the runner's reader and its default file (the installed one, else the source tree's)
        const std::string file = args.size() == 2 ? args[1] : convcheck::runner::default_expectations_path();
        if (!file.empty()) declarations = convcheck::runner::Expectations::load(file);
        for (const Case& c : all_cases()) {
            if (!claims(plugin->info(), c.descriptor)) continue;
            const auto slash = c.name.find('/');
            ::testing::RegisterTest(c.name.substr(0, slash).c_str(), c.name.substr(slash + 1).c_str(), nullptr,
                                    convcheck::to_string(c.descriptor).c_str(), __FILE__, __LINE__,
                                    [d = c.descriptor]() -> ::testing::Test* { return new CaseTest(d); });
        }
    } catch (const std::exception& e) {
        std::cerr << "cannot load " << plugin_path << ": " << e.what() << "\n";
        return 1;
    }
    const int status = RUN_ALL_TESTS();
    plugin.reset();
    return status;
}
