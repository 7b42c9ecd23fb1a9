// CPU conditions (host_cpu.hpp): a finding that holds on one CPU and not on another is pinned with
// the flags it needs, so a verdict does not change meaning on another machine. The conditions are
// judged against the flags given; backends.json's "cpu" match key and accumulation_on_cpu use them.
#include <gtest/gtest.h>

#include "convcheck/runner/expectations.hpp"
#include "convcheck/runner/host_cpu.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

const std::set<std::string> kAvx2{"sse2", "avx", "avx2", "fma"};
const std::set<std::string> kAvx512Bf16{"sse2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_bf16"};

TEST(HostCpu, EveryFlagMustBePresentAndEveryNegatedOneAbsent) {
    std::string error;
    EXPECT_TRUE(cpu_condition_holds("avx2", kAvx2, &error));
    EXPECT_TRUE(cpu_condition_holds("avx2, fma", kAvx2, &error));
    EXPECT_FALSE(cpu_condition_holds("avx2 avx512_bf16", kAvx2, &error));
    EXPECT_TRUE(cpu_condition_holds("!avx512bw", kAvx2, &error));
    EXPECT_FALSE(cpu_condition_holds("!avx512bw", kAvx512Bf16, &error));
    EXPECT_TRUE(cpu_condition_holds("avx512_bf16,!amx_tile", kAvx512Bf16, &error));
    EXPECT_EQ(error, "");
}

TEST(HostCpu, AMalformedConditionIsAnErrorNamingTheToken) {
    std::string error;
    EXPECT_FALSE(cpu_condition_holds("", kAvx2, &error));
    EXPECT_NE(error.find("is empty"), std::string::npos) << error;
    EXPECT_FALSE(cpu_condition_holds("AVX2", kAvx2, &error));
    EXPECT_NE(error.find("'AVX2' is not a CPU flag"), std::string::npos) << error;
    EXPECT_FALSE(cpu_condition_holds("avx2 !", kAvx2, &error));
    EXPECT_NE(error.find("'!' is not a CPU flag"), std::string::npos) << error;
}

TEST(HostCpu, TheHostsFlagsAreRead) {
    if (host_cpu_flags().empty()) GTEST_SKIP() << "no /proc/cpuinfo flags on this host";
#if defined(__x86_64__)
    EXPECT_EQ(host_cpu_flags().count("sse2"), 1u) << "every x86-64 CPU has SSE2";
#endif
}

Case bf16_case() { return expand("t", {SuiteEntry("c=2,o=2,in=5x5,k=3x3,dt=bf16")}, 1, "").front(); }

TEST(HostCpu, AnExpectedFailureWithACpuConditionMatchesOnlyOnThatCpu) {
    Expectations x = Expectations::parse(R"({"backends": {"b": {"expected_failures": [
        {"match": {"dt": "bf16", "cpu": "avx512_bf16"}, "reason": "AVX512-BF16 kernels flush subnormals"}]}}})", "t");
    x.assume_cpu_flags(kAvx512Bf16);
    EXPECT_NE(x.expected_failure("b", bf16_case(), Status::failed), nullptr);
    x.assume_cpu_flags(kAvx2);
    EXPECT_EQ(x.expected_failure("b", bf16_case(), Status::failed), nullptr);
}

TEST(HostCpu, AccumulationOnCpuOverridesTheDeclarationWhereItsConditionHolds) {
    Expectations x = Expectations::parse(R"({"backends": {"b": {"accumulation": "f32", "accumulation_on_cpu": [
        {"cpu": "!avx512bw", "accumulation": {"bf16": "bf16"}, "reason": "slow path accumulates in bf16"}]}}})", "t");
    x.assume_cpu_flags(kAvx2);
    EXPECT_EQ(x.accumulation("b", "bf16"), "bf16");
    EXPECT_EQ(x.accumulation("b", "f32"), "f32");
    x.assume_cpu_flags(kAvx512Bf16);
    EXPECT_EQ(x.accumulation("b", "bf16"), "f32");
}

TEST(HostCpu, MalformedCpuEntriesAreRefusedNamingTheEntry) {
    for (const auto& [text, where] : {
             std::pair{R"({"backends": {"b": {"expected_failures": [{"match": {"cpu": "AVX"}, "reason": "r"}]}}})",
                       "backends.b.expected_failures[0].match.cpu"},
             std::pair{R"({"backends": {"b": {"accumulation_on_cpu": [{"cpu": "avx2", "accumulation": {"bf16": "bf16"}}]}}})",
                       "backends.b.accumulation_on_cpu[0]"},
             std::pair{R"({"backends": {"b": {"accumulation_on_cpu": [{"cpu": "", "accumulation": {"bf16": "bf16"}, "reason": "r"}]}}})",
                       "backends.b.accumulation_on_cpu[0].cpu"},
             std::pair{R"({"backends": {"b": {"accumulation_on_cpu": [{"cpu": "avx2", "accumulation": {"bf16": "f8"}, "reason": "r"}]}}})",
                       "backends.b.accumulation_on_cpu[0].accumulation.bf16"}}) {
        try {
            Expectations::parse(text, "f.json");
            ADD_FAILURE() << "accepted " << text;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("f.json: ") + where + ":"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
