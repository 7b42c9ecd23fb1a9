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
    EXPECT_NE(message("[1, 2").find("f.json: JSON"), std::string::npos);
}

TEST(Expectations, TheShippedDataFileLoads) {
    const std::string path = default_expectations_path();
    ASSERT_FALSE(path.empty());
    const Expectations x = Expectations::load(path);
    EXPECT_EQ(x.accumulation("reference", "f32"), std::optional<std::string>("f64"));
}

}  // namespace
