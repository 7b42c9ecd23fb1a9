// Coverage is part of the verdict: what a run counts as executed, declined, refused and not run; the
// floor (the stricter of --min-coverage and backends.json's min_coverage) and the message that says
// executed/total, the floor and where it came from; a run in which nothing executed fails.
#include <gtest/gtest.h>

#include "convcheck/runner/coverage.hpp"
#include "convcheck/runner/expectations.hpp"
#include "convcheck/runner/results.hpp"

using namespace convcheck::runner;
using nlohmann::json;

namespace {

json record(const std::string& status, const std::string& reason = "", const std::string& kind = "") {
    json r = {{"record", "case"}, {"status", status}, {"reason", reason}};
    if (!kind.empty()) r["kind"] = kind;
    return r;
}

TEST(Coverage, CountsExecutedDeclinedRefusedAndNotRun) {
    const std::vector<json> cases = {record("passed"), record("failed"), record("xfail"), record("crashed"),
                                     record("unsupported", "no bf16"), record("unsupported", "rank 1"),
                                     record("unsupported", "no bf16"), record("unsupported", "too big", "over_memory_limit")};
    const Coverage c = coverage_of(cases, 10);
    EXPECT_EQ(c.executed, 4);
    EXPECT_EQ(c.declined, 3);
    EXPECT_EQ(c.refused, 1);
    EXPECT_EQ(c.not_run, 2);
    EXPECT_DOUBLE_EQ(c.fraction(), 0.4);
    ASSERT_EQ(c.decline_reasons.size(), 2u);
    EXPECT_EQ(c.decline_reasons[0], (std::pair<std::string, std::int64_t>{"no bf16", 2}));  // most frequent first
    EXPECT_EQ(c.decline_reasons[1], (std::pair<std::string, std::int64_t>{"rank 1", 1}));
}

TEST(Coverage, ARunInWhichNothingExecutedFailsWhateverTheFloor) {
    const Coverage c = coverage_of({record("unsupported", "no"), record("unsupported", "no")}, 2);
    const std::string why = coverage_shortfall(c, CoverageFloor{0.0, "--min-coverage"});
    EXPECT_NE(why.find("no case executed (0 of 2 cases executed, 2 declined by the backend)"), std::string::npos) << why;
    const RunSummary s = summarize("b", {record("unsupported", "no")}, 1, CoverageFloor{});
    EXPECT_EQ(s.exit_code, 1);
    EXPECT_FALSE(s.coverage_shortfall.empty());
}

TEST(Coverage, TheFloorIsCountedInCasesAndNamedWithItsSource) {
    std::vector<json> cases(63, record("passed"));
    for (int i = 0; i < 6; ++i) cases.push_back(record("unsupported", "cc"));
    const Coverage c = coverage_of(cases, 69);
    EXPECT_EQ(coverage_shortfall(c, CoverageFloor{0.913, "--min-coverage"}), "");  // 62.997 cases: 63 suffice
    EXPECT_EQ(coverage_shortfall(c, CoverageFloor{63.0 / 69.0, "--min-coverage"}), "");
    const std::string why = coverage_shortfall(c, CoverageFloor{0.95, "f.json (backends.x.min_coverage)"});
    EXPECT_EQ(why, "coverage 91.3 % (63 of 69 cases executed, 6 declined by the backend) is below the floor 95.0 % "
                   "from f.json (backends.x.min_coverage): at least 66 of the 69 cases must execute");
    EXPECT_EQ(summarize("b", cases, 69, CoverageFloor{0.95, "x"}).exit_code, 1);
    EXPECT_EQ(summarize("b", cases, 69, CoverageFloor{}).exit_code, 0);
}

// Cases of a pass the backend does not claim stay declined and in the total, but the floor applies to the cases of
// the passes it claims: a forward-only backend that executes every forward case meets a floor of 1.0; one forward
// decline more fails it; a run of unclaimed passes only executed nothing and fails.
TEST(Coverage, TheFloorAppliesToTheCasesOfThePassesTheBackendClaims) {
    json unclaimed = record("unsupported", "the plugin does not claim prop_kind backward_data (1; ...)", "declined");
    unclaimed["pass_not_claimed"] = true;
    std::vector<json> cases(92, record("passed"));
    for (int i = 0; i < 10; ++i) cases.push_back(unclaimed);
    const Coverage c = coverage_of(cases, 102);
    EXPECT_EQ(c.declined, 10);
    EXPECT_EQ(c.pass_not_claimed, 10);
    EXPECT_EQ(c.claimed(), 92);
    EXPECT_NEAR(c.fraction(), 92.0 / 102.0, 1e-12);
    EXPECT_DOUBLE_EQ(c.claimed_fraction(), 1.0);
    EXPECT_EQ(coverage_shortfall(c, CoverageFloor{1.0, "x"}), "");
    EXPECT_EQ(summary_record(summarize("b", cases, 102, CoverageFloor{1.0, "x"}))["pass_not_claimed"], 10);

    cases[0] = record("unsupported", "no bf16", "declined");
    const std::string why = coverage_shortfall(coverage_of(cases, 102), CoverageFloor{1.0, "x"});
    EXPECT_EQ(why, "coverage 98.9 % (91 of 102 cases executed, 11 declined by the backend (10 of a pass it does not "
                   "claim)) is below the floor 100.0 % from x: at least 92 of the 92 cases of the passes the backend "
                   "claims must execute");

    const std::string none = coverage_shortfall(coverage_of({unclaimed, unclaimed}, 2), CoverageFloor{0.0, "x"});
    EXPECT_NE(none.find("no case executed"), std::string::npos) << none;
}

TEST(Coverage, ARunThatStoppedEarlyOrHoldsNoCaseIsNotJudgedOnCoverage) {
    EXPECT_EQ(coverage_shortfall(coverage_of({record("failed")}, 69), CoverageFloor{1.0, "x"}), "");
    EXPECT_EQ(coverage_shortfall(coverage_of({}, 0), CoverageFloor{1.0, "x"}), "");  // an empty shard
}

TEST(Coverage, TheStricterFloorApplies) {
    const CoverageFloor option{0.5, "--min-coverage"};
    EXPECT_EQ(stricter(option, std::nullopt).source, "--min-coverage");
    EXPECT_EQ(stricter(option, CoverageFloor{0.9, "file"}).source, "file");
    EXPECT_EQ(stricter(option, CoverageFloor{0.1, "file"}).source, "--min-coverage");
}

TEST(Coverage, BackendsJsonDeclaresAFloorPerBackend) {
    const Expectations e = Expectations::parse(
        R"({"backends": {"mine": {"min_coverage": 0.75}, "other": {"accumulation": "f32"}}})", "decl.json");
    ASSERT_TRUE(e.min_coverage("mine"));
    EXPECT_EQ(e.min_coverage("mine")->fraction, 0.75);
    EXPECT_EQ(e.min_coverage("mine")->source, "decl.json (backends.mine.min_coverage)");
    EXPECT_FALSE(e.min_coverage("other"));
    EXPECT_FALSE(e.min_coverage("absent"));
    for (const char* bad : {R"({"backends": {"b": {"min_coverage": 1.5}}})", R"({"backends": {"b": {"min_coverage": -0.1}}})",
                            R"({"backends": {"b": {"min_coverage": "0.9"}}})", R"({"backends": {"b": {"min_coverage": null}}})"}) {
        try {
            Expectations::parse(bad, "decl.json");
            ADD_FAILURE() << bad;
        } catch (const std::invalid_argument& err) {
            EXPECT_NE(std::string(err.what()).find("decl.json: backends.b.min_coverage: "), std::string::npos) << err.what();
            EXPECT_NE(std::string(err.what()).find("is not a fraction in [0, 1]"), std::string::npos) << err.what();
        }
    }
}

TEST(Coverage, ASuiteMayHaveAFloorOfItsOwn) {
    const Expectations e = Expectations::parse(
        R"({"backends": {"mine": {"min_coverage": 0.75, "min_coverage_suites": {"quantized": 0.2}},
                         "only": {"min_coverage_suites": {"edge": 0.5}}}})",
        "decl.json");
    EXPECT_EQ(e.min_coverage("mine", "smoke")->fraction, 0.75);
    EXPECT_EQ(e.min_coverage("mine")->fraction, 0.75);
    EXPECT_EQ(e.min_coverage("mine", "quantized")->fraction, 0.2);
    EXPECT_EQ(e.min_coverage("mine", "quantized")->source, "decl.json (backends.mine.min_coverage_suites.quantized)");
    EXPECT_EQ(e.min_coverage("only", "edge")->fraction, 0.5);
    EXPECT_FALSE(e.min_coverage("only", "smoke"));
    for (const char* bad : {R"({"backends": {"b": {"min_coverage_suites": 0.5}}})",
                            R"({"backends": {"b": {"min_coverage_suites": {"quantized": 2}}}})"}) {
        try {
            Expectations::parse(bad, "decl.json");
            ADD_FAILURE() << bad;
        } catch (const std::invalid_argument& err) {
            EXPECT_NE(std::string(err.what()).find("decl.json: backends.b.min_coverage_suites"), std::string::npos) << err.what();
        }
    }
}

// A library with fewer kernels on some CPUs (oneDNN 2.6's bf16 convolutions need AVX-512) declares the floor there;
// the first entry whose condition holds replaces "min_coverage", a suite's own floor still comes first.
TEST(Coverage, ACpuMayHaveAFloorOfItsOwn) {
    Expectations e = Expectations::parse(
        R"({"backends": {"mine": {"min_coverage": 0.6, "min_coverage_suites": {"quantized": 0.2},
                                  "min_coverage_on_cpu": [{"cpu": "!avx512bw", "min_coverage": 0.55, "reason": "bf16"},
                                                          {"cpu": "!avx2", "min_coverage": 0.3, "reason": "old"}]}}})",
        "decl.json");
    e.assume_cpu_flags({"avx2", "fma"});
    EXPECT_EQ(e.min_coverage("mine", "smoke")->fraction, 0.55);
    EXPECT_EQ(e.min_coverage("mine", "smoke")->source, "decl.json (backends.mine.min_coverage_on_cpu[0], cpu !avx512bw)");
    EXPECT_EQ(e.min_coverage("mine", "quantized")->fraction, 0.2);
    e.assume_cpu_flags({"sse4_2"});
    EXPECT_EQ(e.min_coverage("mine", "smoke")->fraction, 0.55);  // the first that holds
    e.assume_cpu_flags({"avx2", "avx512f", "avx512bw"});
    EXPECT_EQ(e.min_coverage("mine", "smoke")->fraction, 0.6);
    EXPECT_EQ(e.min_coverage("mine", "smoke")->source, "decl.json (backends.mine.min_coverage)");
    for (const char* bad : {R"({"backends": {"b": {"min_coverage_on_cpu": {"cpu": "avx2"}}}})",
                            R"({"backends": {"b": {"min_coverage_on_cpu": [{"cpu": "avx2", "min_coverage": 1.5, "reason": "r"}]}}})",
                            R"({"backends": {"b": {"min_coverage_on_cpu": [{"cpu": "avx2", "min_coverage": 0.5}]}}})",
                            R"({"backends": {"b": {"min_coverage_on_cpu": [{"cpu": "avx2 +x", "min_coverage": 0.5, "reason": "r"}]}}})"}) {
        try {
            Expectations::parse(bad, "decl.json");
            ADD_FAILURE() << bad;
        } catch (const std::invalid_argument& err) {
            EXPECT_NE(std::string(err.what()).find("decl.json: backends.b.min_coverage_on_cpu"), std::string::npos) << err.what();
        }
    }
}

}  // namespace
