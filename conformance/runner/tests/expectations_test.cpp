// Declarations and expected failures from the data file: an expected failure is xfail, the same
// entry on a case that passes is xpass, a declared accumulation type changes the contract, and a
// malformed file is refused with the entry and the rule named.
#include <gtest/gtest.h>

#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

const char* kFile = R"({"backends": {"mutants": {
    "accumulation": {"f16": "f16", "*": "f32"},
    "expected_failures": [{"match": {"bias": "1", "mode": "bound"}, "reason": "bias is dropped on purpose"}]}}})";

Case bias_case() { return expand("t", {SuiteEntry("c=2,o=2,in=5x5,k=3x3,bias=1")}, 1, "").front(); }

TEST(Expectations, ExpectedFailureIsXfailAndAPassIsXpass) {
    const Expectations x = Expectations::parse(kFile, "test");
    for (const auto& [mutant, want] : {std::pair{"bias_dropped", Status::xfail}, std::pair{"none", Status::xpass}}) {
        auto session = open_backend("mutants", {std::string("mutant=") + mutant}, 0, "none", 10.0);
        session->backend.expectations = &x;
        const CaseResult r = check_case(session->backend, bias_case(), CheckSettings{});
        EXPECT_EQ(r.status, want) << mutant << ": " << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_NE(r.reason.find("bias is dropped on purpose"), std::string::npos) << r.reason;
    }
}

TEST(Expectations, AnIntermittentExpectedFailureThatPassesIsAPassNotAnXpass) {
    const Expectations x = Expectations::parse(R"({"backends": {"mutants": {"expected_failures": [
        {"match": {"bias": "1"}, "reason": "heap-dependent garbage", "may_pass": true}]}}})", "test");
    for (const auto& [mutant, want] : {std::pair{"bias_dropped", Status::xfail}, std::pair{"none", Status::passed}}) {
        auto session = open_backend("mutants", {std::string("mutant=") + mutant}, 0, "none", 10.0);
        session->backend.expectations = &x;
        const CaseResult r = check_case(session->backend, bias_case(), CheckSettings{});
        EXPECT_EQ(r.status, want) << mutant << ": " << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_NE(r.reason.find("heap-dependent garbage"), std::string::npos) << r.reason;
    }
    EXPECT_THROW(Expectations::parse(R"({"backends": {"a": {"expected_failures": [
        {"match": {"mode": "probe"}, "reason": "r", "may_pass": "yes"}]}}})", "f.json"), std::invalid_argument);
}

TEST(Expectations, OnlyMatchingCasesAreExpected) {
    const Expectations x = Expectations::parse(kFile, "test");
    Case c = bias_case();
    EXPECT_NE(x.expected_failure("mutants", c, Status::failed), nullptr);
    EXPECT_EQ(x.expected_failure("optimized", c, Status::failed), nullptr);
    c.mode = accuracy::Mode::exact;
    EXPECT_EQ(x.expected_failure("mutants", c, Status::failed), nullptr);
}

TEST(Expectations, DeclaredAccumulationSetsTheContract) {
    const Expectations x = Expectations::parse(kFile, "test");
    auto session = open_backend("mutants", {}, 0, "none", 10.0);
    session->backend.expectations = &x;
    EXPECT_EQ(contract_for(session->backend, DataType::f16).accumulation_dtype, DataType::f16);
    EXPECT_EQ(contract_for(session->backend, DataType::bf16).accumulation_dtype, DataType::f32);
    session->backend.expectations = nullptr;  // the plugin's own claim (f32)
    EXPECT_EQ(contract_for(session->backend, DataType::f16).accumulation_dtype, DataType::f32);
}

TEST(Expectations, MalformedFilesAreRefusedNamingTheEntry) {
    auto message = [](const char* text) {
        try {
            Expectations::parse(text, "f.json");
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message(R"({"backends": {"a": {"accumulation": "f8"}}})").find("backends.a.accumulation.*: 'f8'"),
              std::string::npos);
    EXPECT_NE(message(R"({"backends": {"a": {"expected_failures": [{"match": {}}]}}})")
                  .find("backends.a.expected_failures[0]: needs a non-empty \"reason\""),
              std::string::npos);
    EXPECT_NE(message(R"({"backends": {"a": {"expected_failures": [{"match": {"status": "passed"}, "reason": "r"}]}}})")
                  .find("must be failed, crashed or hanged"),
              std::string::npos);
    EXPECT_NE(message(R"({"backends": {"a": {"fp8_conversion": {"overflow": "clamp", "reason": "r"}}}})")
                  .find("backends.a.fp8_conversion.overflow: 'clamp' is not one of saturating, non_saturating"),
              std::string::npos);
    EXPECT_NE(message(R"({"backends": {"a": {"fp8_conversion": {"overflow": "saturating"}}}})")
                  .find("backends.a.fp8_conversion.reason: a non-empty reason is required"),
              std::string::npos);
    EXPECT_NE(message("[1, 2").find("f.json: JSON"), std::string::npos);
}

// "fp8_conversion": {"overflow": "saturating"} (docs/fp8.md): the mutant that saturates passes an e4m3 case whose sums
// overflow, judged by the declaration and named so; undeclared it fails, and a backend that does not saturate fails
// the declaration.
TEST(Expectations, ADeclaredSaturatingFp8ConversionJudgesTheOverflowCase) {
    const Expectations sat = Expectations::parse(
        R"({"backends": {"mutants": {"fp8_conversion": {"overflow": "saturating", "reason": "cvt .satfinite"}}}})", "test");
    const std::vector<Case> cases =
        expand("t", {SuiteEntry("c=16,o=8,in=8x8,k=3x3,pb=1x1,pe=1x1,bias=1,dt=f8_e4m3,bdt=f32")}, 1, "exact");
    ASSERT_EQ(cases.size(), 1u);
    auto run = [&](const std::string& mutant, const Expectations* declarations) {
        auto session = open_backend("mutants", {"mutant=" + mutant}, 0, "none", 10.0);
        session->backend.expectations = declarations;
        RunSettings settings;
        settings.shrink = false;
        return run_cases(session->backend, cases, settings).front();
    };
    const CaseResult declared = run("fp8_saturation", &sat);
    EXPECT_EQ(declared.status, Status::passed) << declared.reason;
    ASSERT_TRUE(declared.error.has_value());
    EXPECT_EQ(declared.error->comparison.statistics.judged_by, "exact+fp8_saturating");
    const CaseResult undeclared = run("fp8_saturation", nullptr);
    EXPECT_EQ(undeclared.status, Status::failed);
    const CaseResult honest_undeclared = run("none", nullptr);
    EXPECT_EQ(honest_undeclared.status, Status::passed) << honest_undeclared.reason;
    const CaseResult not_saturating = run("none", &sat);
    EXPECT_EQ(not_saturating.status, Status::failed);
    EXPECT_NE(not_saturating.reason.find("NaN in"), std::string::npos) << not_saturating.reason;
}

TEST(Expectations, TheShippedDataFileLoads) {
    const std::string path = default_expectations_path();
    ASSERT_FALSE(path.empty());
    const Expectations x = Expectations::load(path);
    EXPECT_EQ(x.accumulation("reference", "f32"), std::optional<std::string>("f64"));
}

}  // namespace
