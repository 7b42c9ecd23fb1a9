// The accuracy contract's self-test (docs/accuracy.md): each fault of the accuracy mutants plugin is
// caught by the check that exists for it, and only by it; honest backends pass the accuracy suite on
// seeds 1 to 10.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "results.hpp"
#include "session.hpp"
#include "suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

std::vector<CaseResult> run(const std::string& backend, const std::string& option, const std::vector<Case>& cases) {
    auto session = open_backend(backend, option.empty() ? std::vector<std::string>{} : std::vector<std::string>{option},
                                0, "none", 10.0);
    RunSettings settings;
    settings.shrink = false;
    return run_cases(session->backend, cases, settings);
}

std::vector<Case> one_case(const std::string& descriptor, const std::string& mode) {
    return expand("t", {SuiteEntry(descriptor)}, 1, mode);
}

std::vector<Case> accuracy_cases(std::uint64_t seed, const std::string& mode) { return load_cases("accuracy", seed, mode); }

// The example: all zeros with a declared f16 accumulation, n = 2304 terms (gamma_n infinite).
const char* kVacuous = "conv:n=1,c=256,o=2,g=1,in=3x3,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f16,data=ncx,wei=oix";

TEST(AccuracyMutants, ZerosUnderAVacuousBoundAreUncheckedNotPassed) {
    const auto results = run("accuracy_mutants", "mutant=zeros", one_case(kVacuous, "bound"));
    ASSERT_EQ(results.size(), 1u);
    const CaseResult& r = results[0];
    ASSERT_TRUE(r.error.has_value()) << r.reason;
    EXPECT_EQ(r.error->comparison.statistics.judged_by, "unchecked") << r.reason;
    EXPECT_NE(r.reason.find("unchecked, not counted as passed"), std::string::npos) << r.reason;
    // the run's summary counts it apart and its pass rate does not count it
    const nlohmann::json record = case_record(r, "accuracy_mutants");
    const RunSummary s = summarize("accuracy_mutants", {record}, 1, CoverageFloor{});
    EXPECT_EQ(s.unchecked, 1);
    EXPECT_EQ(summary_record(s)["unchecked"], 1);
}

TEST(AccuracyMutants, ZerosFailOnceTheStatisticsCanJudgeThem) {
    // the same reduction length with 1024 outputs, in stress mode: the statistics reject zeros
    const auto results = run("accuracy_mutants", "mutant=zeros",
                             one_case("c=256,o=16,in=8x8,k=3x3,pb=1x1,pe=1x1,dt=f16", "stress"));
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::failed) << results[0].reason;
    EXPECT_NE(results[0].reason.find("statistics"), std::string::npos) << results[0].reason;
}

TEST(AccuracyMutants, TruncationStaysInsideEveryBoundAndFailsTheStatistics) {
    int failed = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=truncation", accuracy_cases(1, "stress"))) {
        // a 16-bit output has no accumulation slack beside u_out |y*|: there the bound itself catches it
        if (r.c.conv.dtype != DataType::f32) continue;
        ASSERT_TRUE(r.error.has_value()) << r.c.id << ": " << r.reason;
        EXPECT_EQ(r.error->comparison.mismatches, 0) << "the per-output bound caught it: " << r.reason;
        if (r.status == Status::failed) {
            ++failed;
            EXPECT_NE(r.reason.find("statistics"), std::string::npos) << r.reason;
        }
    }
    EXPECT_GT(failed, 0) << "truncation toward zero survived every stress case";
}

TEST(AccuracyMutants, ReducedInputPrecisionFailsThePrecisionProbeByName) {
    for (const auto& [option, name] : {std::pair{"mutant=tf32_inputs", "TF32"}, std::pair{"mutant=bf16_inputs", "bf16"}}) {
        for (const CaseResult& r : run("accuracy_mutants", option, accuracy_cases(1, "precision"))) {
            if (r.c.conv.dtype != DataType::f32) continue;  // f16 has 11 bits: TF32 keeps them all
            EXPECT_EQ(r.status, Status::failed) << option << " " << r.c.id << " passed";
            EXPECT_NE(r.reason.find(std::string("rounds f32 inputs to ") + name), std::string::npos) << r.reason;
        }
    }
}

TEST(AccuracyMutants, BaselinePassesTheAccuracySuite) {
    for (const CaseResult& r : run("accuracy_mutants", "mutant=none", accuracy_cases(1, "")))
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  " << r.reproducer;
}

// Honest backends pass every check of the accuracy suite on seeds 1 to 10, and none is unchecked.
TEST(AccuracySuite, HonestBackendsPassOnSeedsOneToTen) {
    for (const char* backend : {"reference", "optimized"})
        for (std::uint64_t seed = 1; seed <= 10; ++seed)
            for (const CaseResult& r : run(backend, "", accuracy_cases(seed, ""))) {
                EXPECT_EQ(r.status, Status::passed) << backend << " seed " << seed << " " << r.c.id << ": " << r.reason
                                                    << "\n  " << r.reproducer;
                if (r.error) {
                    EXPECT_NE(r.error->comparison.statistics.judged_by, "unchecked") << r.reason;
                }
            }
}

}  // namespace
