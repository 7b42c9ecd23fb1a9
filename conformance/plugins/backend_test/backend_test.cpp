// The direct, ABI-level test of one third-party backend plugin:
//     convcheck_backend_test <plugin.so> [backends.json] [gtest flags]
// Checks the plugin's table and its struct_size / error-value behaviour, then runs every case of
// cases.cpp that the plugin claims against the reference, in exact mode (any difference fails)
// and bound mode (the accuracy contract, with the accumulation type the plugin declares).
// A case the plugin declines is skipped with its reason; a declined case must give one. A case the
// data file declares an expected failure must fail (an xpass fails the test: the finding is stale).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accuracy.hpp"
#include "cases.hpp"
#include "declarations.hpp"
#include "convcheck/reference/convolution.hpp"
#include "plugin_loader.hpp"
#include "testing/random_descriptor.hpp"

namespace convcheck::backend_test {
namespace {

std::unique_ptr<LoadedPlugin> plugin;  // loaded in main, before the tests are registered
std::string plugin_path;
Declarations declarations;  // this backend's entries of the data file

convcheck_conv_desc to_abi(const ConvDescriptor& d) {
    convcheck_conv_desc a{};
    a.struct_size = sizeof(a);
    a.rank = d.rank;
    a.batch = d.batch;
    a.in_channels = d.in_channels;
    a.out_channels = d.out_channels;
    a.groups = d.groups;
    for (int i = 0; i < 3; ++i) {
        a.input_size[i] = d.input_size[i];
        a.kernel_size[i] = d.kernel_size[i];
        a.strides[i] = d.strides[i];
        a.dilations[i] = d.dilations[i];
        a.pads_begin[i] = d.pads_begin[i];
        a.pads_end[i] = d.pads_end[i];
    }
    a.has_bias = d.has_bias;
    a.dtype = static_cast<int32_t>(d.dtype);
    a.data_format = static_cast<int32_t>(d.data_format);
    a.filter_format = static_cast<int32_t>(d.filter_format);
    return a;
}

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

// Backend output in d.data_format -> canonical NCX doubles.
std::vector<double> dst_to_ncx(const ConvDescriptor& d, const void* dst) {
    const std::int64_t C = d.out_channels;
    std::int64_t X = 1;
    for (int a = 0; a < d.rank; ++a) X *= d.output_size(a);
    std::vector<double> out(d.batch * C * X);
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t x = 0; x < X; ++x) {
                const std::int64_t at = d.data_format == DataFormat::ncx ? (n * C + c) * X + x : (n * X + x) * C + c;
                out[(n * C + c) * X + x] = load_as_double(dst, d.dtype, at);
            }
    return out;
}

struct Outcome {
    std::vector<double> dst;  // NCX
    std::string implementation;
};

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
    return {dst_to_ncx(d, dst_buf.data()), std::string(implementation, strnlen(implementation, sizeof(implementation)))};
}

// The accumulation type: the data file's declaration for this dtype, else the plugin's own.
accuracy::Contract contract_for(const ConvDescriptor& d) {
    const auto declared = declarations.accumulation_for(d.dtype);
    return {d.dtype, declared ? *declared : static_cast<DataType>(plugin->info().accumulation_dtype)};
}

std::string describe_failure(const accuracy::Comparison& r) {
    return std::to_string(r.mismatches) + "/" + std::to_string(r.elements) + " outputs off; worst flat NCX index " +
           std::to_string(r.worst_index) + " got " + std::to_string(r.worst_got) + " want " + std::to_string(r.worst_want) +
           " bound " + std::to_string(r.worst_bound) + " (max |diff| " + std::to_string(r.max_abs) + ")";
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
    const std::optional<std::string> expected = declarations.expected_failure(d, mode);
    if (expected)
        EXPECT_FALSE(r.passed()) << "declared an expected failure (" << *expected << ") but passed (xpass)"
                                 << "\n  reproduce: " << reproducer(d, seed, mode);
    else
        EXPECT_TRUE(r.passed()) << describe_failure(r) << "\n  implementation " << got.implementation
                                << "\n  contract: output " << to_string(c.output_dtype) << ", accumulation "
                                << to_string(c.accumulation_dtype) << "\n  reproduce: " << reproducer(d, seed, mode);
    if (mode == accuracy::Mode::bound) {
        ::testing::Test::RecordProperty("implementation", got.implementation);
        ::testing::Test::RecordProperty("max_bound_fraction", std::to_string(r.max_bound_fraction));
    }
}

class CaseTest : public ::testing::Test {
public:
    explicit CaseTest(ConvDescriptor d) : d_(std::move(d)) {}
    void TestBody() override {
        const std::string declined = query(d_);
        if (!declined.empty()) GTEST_SKIP() << "declined: " << declined;
        check_case(d_, accuracy::Mode::exact, 1);
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
    const convcheck_plugin_info& info = plugin->info();
    ASSERT_NE(info.name, nullptr);
    ASSERT_NE(info.version, nullptr);
    EXPECT_GT(std::strlen(info.name), 0u);
    EXPECT_GT(std::strlen(info.version), 0u);
    EXPECT_TRUE(info.operations & CONVCHECK_OP_CONV);
    EXPECT_NE(info.dtypes, 0u);
    EXPECT_EQ(info.ranks & ~0xEu, 0u) << "ranks other than 1..3 claimed";
    EXPECT_NE(info.data_formats, 0u);
    EXPECT_NE(info.filter_formats, 0u);
    std::cout << "plugin " << info.name << " " << info.version << " from " << plugin_path << "\n";
}

TEST(Abi, DescribeWritesNoFieldBeyondTheCallersStructSize) {
    convcheck_plugin_info info;
    std::memset(&info, 0xab, sizeof(info));
    info.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_plugin_info, version);  // an older runner
    ASSERT_EQ(plugin->take_error(plugin->api().describe(plugin->instance(), &info)), "");
    EXPECT_NE(info.version, nullptr);
    uint32_t untouched;
    std::memset(&untouched, 0xab, sizeof(untouched));
    EXPECT_EQ(info.operations, untouched);
    EXPECT_EQ(info.accumulation_dtype, static_cast<int32_t>(untouched));
}

TEST(Abi, DeclinesAnUnclaimedDtypeWithAReason) {
    convcheck_conv_desc a = to_abi(core_case());
    a.dtype = CONVCHECK_F64;  // no backend here computes f64 convolution through this ABI
    convcheck_support support{};
    support.struct_size = sizeof(support);
    ASSERT_EQ(plugin->take_error(plugin->api().conv_query(plugin->instance(), &a, &support)), "");
    EXPECT_EQ(support.supported, 0);
    EXPECT_GT(strnlen(support.reason, sizeof(support.reason)), 0u);
}

TEST(Abi, ADescriptorShorterThanAbi10IsAnErrorValue) {
    convcheck_conv_desc a = to_abi(core_case());
    a.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, groups);
    convcheck_support support{};
    support.struct_size = sizeof(support);
    EXPECT_NE(plugin->take_error(plugin->api().conv_query(plugin->instance(), &a, &support)), "");
}

TEST(Abi, ExecuteWithoutDstIsAnErrorValue) {
    const ConvDescriptor d = core_case();
    const convcheck_conv_desc a = to_abi(d);
    std::vector<float> src(d.src_elements()), wei(d.weights_elements()), bias(d.bias_elements());
    const convcheck_conv_args args{CONVCHECK_STRUCT_SIZE(convcheck_conv_args, dst), src.data(), wei.data(), bias.data(),
                                   nullptr, nullptr, 0};
    EXPECT_NE(plugin->take_error(plugin->api().conv_execute(plugin->instance(), &a, &args)), "");
}

TEST(Abi, RunsItsCoreCaseAndNamesTheImplementation) {
    const ConvDescriptor d = core_case();
    ASSERT_EQ(query(d), "") << "every backend must run a plain f32 2-D convolution: " << to_string(d);
    const accuracy::ExactFill f = accuracy::make_exact_fill(d, contract_for(d), 7);
    const Outcome got = execute(d, f.src, f.weights, f.bias);
    EXPECT_FALSE(got.implementation.empty());
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    EXPECT_TRUE(accuracy::compare_exact(want.dst, got.dst).passed()) << reproducer(d, 7, accuracy::Mode::exact);
    std::cout << "implementation: " << got.implementation << "\n";
}

// ---- findings (docs/backends.md): each backend's documented deviation, pinned by its smallest
// reproducer, so that a backend update that changes it is noticed. Other backends skip.

// XNNPACK's f16 kernels round the accumulator to f16 after every multiply-add (x86 AVX2/F16C
// kernels: acc = cvtph(cvtps_ph(fma(a, b, acc)))). Summing 2048 + 1 + 1 in channel order: 2048 + 1
// = 2049 rounds to 2048 (ties to even, f16 spacing 2 above 2048), again for the second 1, so the
// result is 2048, where an f32 accumulator gives 2050 (exactly representable in f16).
TEST(Findings, XnnpackF16AccumulatesInF16) {
    if (std::string(plugin->info().name) != "xnnpack") GTEST_SKIP() << "an XNNPACK finding";
    const ConvDescriptor d = parse_descriptor("conv:c=3,o=1,in=1x1,k=1x1,dt=f16,data=nxc,wei=oix");
    ASSERT_EQ(query(d), "");
    const std::vector<double> src{2048, 1, 1}, weights{1, 1, 1};
    const auto want = reference::convolution_summation(d, src, weights, {});
    ASSERT_EQ(want.dst[0], 2050.0);
    EXPECT_EQ(execute(d, src, weights, {}).dst[0], 2048.0) << "reproduce: " << to_string(d) << " src 2048,1,1 weights 1,1,1";
}

// XNNPACK's convolution kernels clamp every output to [output_min, output_max] with max/min, and
// x86 max/min return the bound when the value is NaN: with the unclamped range [-inf, +inf] a NaN
// input gives -inf, where IEEE arithmetic (and the spec's sum) gives NaN.
TEST(Findings, XnnpackTurnsANaNInputIntoMinusInfinity) {
    if (std::string(plugin->info().name) != "xnnpack") GTEST_SKIP() << "an XNNPACK finding";
    for (const char* dtype : {"f32", "f16"}) {
        const ConvDescriptor d = parse_descriptor(std::string("conv:c=1,o=1,in=1x1,k=1x1,data=nxc,dt=") + dtype);
        ASSERT_EQ(query(d), "");
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const std::vector<double> src{nan}, weights{1.0};
        EXPECT_TRUE(std::isnan(reference::convolution_summation(d, src, weights, {}).dst[0]));
        EXPECT_EQ(execute(d, src, weights, {}).dst[0], -std::numeric_limits<double>::infinity())
            << "reproduce: " << to_string(d) << " src NaN weights 1";
    }
}

// oneDNN's bf16 kernels on AVX512-BF16 (brgconv_1x1:avx512_core_bf16 here) multiply pairs of
// reduction elements (vdpbf16ps). With one input channel the pair's second element is the next
// spatial position, multiplied by a zero weight: finite values are unaffected, but a NaN or an
// infinity there (0 * inf = NaN) turns the neighbouring output into NaN, outside the element's
// receptive field. libtorch's bf16 convolution runs on oneDNN (Mkldnn) and shows the same.
TEST(Findings, OnednnBf16LeaksANonFiniteInputIntoTheNeighbouringOutput) {
    if (std::string(plugin->info().name) != "onednn") GTEST_SKIP() << "a oneDNN finding";
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=3,k=1,dt=bf16");
    ASSERT_EQ(query(d), "");
    const std::vector<double> weights{1.0};
    for (const double special : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        const std::vector<double> src{1.0, special, 2.0};
        const auto want = reference::convolution_summation(d, src, weights, {});
        ASSERT_EQ(want.dst[0], 1.0);  // the spec: output 0 reads src[0] only
        const Outcome got = execute(d, src, weights, {});
        if (got.implementation.find("avx512_core_bf16") == std::string::npos)
            GTEST_SKIP() << "the finding is about the AVX512-BF16 kernels; this CPU runs " << got.implementation;
        EXPECT_TRUE(std::isnan(got.dst[0])) << "reproduce: " << to_string(d) << " src 1," << special << ",2 weights 1 ("
                                            << got.implementation << ")";
        EXPECT_EQ(got.dst[2], 2.0);
    }
}

// oneDNN 2.6.3's brgconv:avx512_core_bf16 accepts padding_r = -1 (its rule: padding_r + stride > 0)
// and then reads across batches and writes outside its buffers for this geometry: glibc aborts
// ("double free or corruption") or batch 1's fully padded outputs hold garbage. It runs in a fresh
// process (this program, re-executed with --finding-child: a fork would inherit OpenMP's threads
// half-alive); the finding holds when that process dies or computes a wrong result.
const char* const kO2Descriptor = "conv:n=2,c=1,o=16,in=6,k=3,s=3,pb=3,pe=-1,dt=bf16";

// The child's side: 0 right, 1 wrong, 2 another implementation, 3 an error.
int o2_child() {
    const ConvDescriptor d = parse_descriptor(kO2Descriptor);
    const accuracy::ExactFill f = accuracy::make_exact_fill(d, contract_for(d), 1);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    try {
        const Outcome got = execute(d, f.src, f.weights, f.bias);
        if (got.implementation.find("brgconv:avx512_core_bf16") == std::string::npos) return 2;
        return accuracy::compare_exact(want.dst, got.dst).passed() ? 0 : 1;
    } catch (...) {
        return 3;
    }
}

TEST(Findings, OnednnBf16NegativePaddingRCorruptsMemory) {
    if (std::string(plugin->info().name) != "onednn") GTEST_SKIP() << "a oneDNN finding";
    ASSERT_EQ(query(parse_descriptor(kO2Descriptor)), "");
    std::fflush(nullptr);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        execl("/proc/self/exe", "convcheck_backend_test", plugin_path.c_str(), "--finding-child=O2", static_cast<char*>(nullptr));
        _exit(4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) GTEST_SKIP() << "oneDNN picked another implementation on this CPU";
    EXPECT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 1))
        << "expected a crash or a wrong result (exit status " << status << "; 0 means oneDNN got it right and the "
        << "finding is stale). reproduce: " << kO2Descriptor;
}

// Random descriptors from the shared generator (core/testing/random_descriptor.hpp), coerced to what
// the plugin claims. Deterministic: descriptor i is drawn from rc::Random(i), so a failure's
// descriptor string (printed) reproduces it with `--case`, and the list is the same on every run.
TEST(Random, AgreesWithTheReferenceOnRandomDescriptors) {
    const convcheck_plugin_info& info = plugin->info();
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
    for (std::uint64_t i = 0; i < 120; ++i) {
        ConvDescriptor d = generator(rc::Random(i)).value();
        if (!(info.ranks & CONVCHECK_BIT(d.rank))) continue;
        d.dtype = dtypes[i % dtypes.size()];
        if (!(info.data_formats & CONVCHECK_BIT(static_cast<int>(d.data_format)))) d.data_format = static_cast<DataFormat>(1 - static_cast<int>(d.data_format));
        if (!(info.filter_formats & CONVCHECK_BIT(static_cast<int>(d.filter_format)))) d.filter_format = static_cast<FilterFormat>(1 - static_cast<int>(d.filter_format));
        if (!query(d).empty()) {
            ++declined;
            continue;
        }
        ++ran;
        SCOPED_TRACE("random descriptor " + std::to_string(i) + ": " + to_string(d));
        try {
            check_case(d, accuracy::Mode::exact, i);
            check_case(d, accuracy::Mode::bound, i);
        } catch (const std::exception& e) {
            ADD_FAILURE() << e.what() << "\n  reproduce: " << reproducer(d, i, accuracy::Mode::exact);
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
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " <plugin.so> [backends.json] [gtest flags]\n";
        return 2;
    }
    plugin_path = argv[1];
    try {
        plugin = std::make_unique<LoadedPlugin>(plugin_path, 2);
        if (argc >= 3 && std::string(argv[2]) == "--finding-child=O2") std::_Exit(o2_child());
        declarations = load_declarations(argc >= 3 ? argv[2] : CONVCHECK_SOURCE_DATA_DIR "/backends.json", plugin->info().name);
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
