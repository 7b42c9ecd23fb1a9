// The accuracy contract's self-test (docs/accuracy.md): each fault of the accuracy mutants plugin is
// caught by the check that exists for it, and only by it; honest backends pass the accuracy suite on
// seeds 1 to 10.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "convcheck/runner/junit.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"
#include "convcheck/runner/terminal_summary.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

std::vector<CaseResult> run(const std::string& backend, const std::string& option, const std::vector<Case>& cases,
                            const Expectations* declarations = nullptr) {
    auto session = open_backend(backend, option.empty() ? std::vector<std::string>{} : std::vector<std::string>{option},
                                0, "none", 10.0);
    session->backend.expectations = declarations;
    RunSettings settings;
    settings.shrink = false;
    return run_cases(session->backend, cases, settings);
}

std::vector<Case> one_case(const std::string& descriptor, const std::string& mode) {
    return expand("t", {SuiteEntry(descriptor)}, 1, mode);
}

std::vector<Case> accuracy_cases(std::uint64_t seed, const std::string& mode) { return load_cases("accuracy", seed, mode); }

// The issue's example: all zeros with a declared f16 accumulation, n = 2304 terms at the
// centre output (phi_n(2^-11) = 1.13: vacuous), too few outputs for the statistics.
const char* kVacuous = "conv:n=1,c=256,o=2,g=1,in=3x3,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f16,data=ncx,wei=oix";

TEST(AccuracyMutants, ZerosUnderAVacuousBoundAreUncheckedNotPassed) {
    const auto results = run("accuracy_mutants", "mutant=zeros", one_case(kVacuous, "bound"));
    ASSERT_EQ(results.size(), 1u);
    const CaseResult& r = results[0];
    ASSERT_TRUE(r.error.has_value()) << r.reason;
    EXPECT_STREQ(to_string(r.status), "unchecked") << r.reason;
    EXPECT_STREQ(to_string(r.kind), "vacuous_bound") << r.reason;
    EXPECT_EQ(r.error->comparison.statistics.judged_by, "unchecked") << r.reason;
    EXPECT_NE(r.reason.find("unchecked, not counted as passed"), std::string::npos) << r.reason;
    const nlohmann::json record = case_record(r, "accuracy_mutants");
    EXPECT_EQ(record["status"], "unchecked");
    EXPECT_EQ(record["kind"], "vacuous_bound");
    EXPECT_EQ(record["error"]["judged_by"], "unchecked");
}

// A run whose only executed case is unchecked has passed nothing: it fails (exit code 1) unless the user
// allows unchecked cases, the summary counts the case as unchecked and not as passed, and JUnit shows it
// as a failure of type "unchecked" (or, allowed, as skipped), never as a clean pass.
TEST(AccuracyMutants, ARunWhoseOnlyCaseIsUncheckedFailsUnlessAllowed) {
    const auto results = run("accuracy_mutants", "mutant=zeros", one_case(kVacuous, "bound"));
    ASSERT_EQ(results.size(), 1u);
    const nlohmann::json record = case_record(results[0], "accuracy_mutants");
    const nlohmann::json run_json = {{"backend", "accuracy_mutants"}, {"suite", "t"}};

    const RunSummary strict = summarize("accuracy_mutants", {record}, 1, CoverageFloor{});
    EXPECT_EQ(strict.exit_code, 1);
    EXPECT_EQ(strict.counts.at("unchecked"), 1);
    EXPECT_EQ(strict.counts.at("passed"), 0);
    EXPECT_EQ(summary_record(strict)["unchecked"], 1);
    EXPECT_EQ(summary_record(strict)["counts"]["unchecked"], 1);
    const std::string xml = junit_xml(run_json, {record}, strict);
    EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("<failure type=\"unchecked\" message=\"unchecked, not counted as passed"), std::string::npos)
        << xml;
    EXPECT_NE(verdict_line(run_json, strict).find("1 unchecked"), std::string::npos) << verdict_line(run_json, strict);

    const RunSummary allowed = summarize("accuracy_mutants", {record}, 1, CoverageFloor{}, true);
    EXPECT_EQ(allowed.exit_code, 0);
    EXPECT_EQ(allowed.counts.at("unchecked"), 1);
    EXPECT_EQ(allowed.counts.at("passed"), 0);
    const std::string allowed_xml = junit_xml(run_json, {record}, allowed);
    EXPECT_NE(allowed_xml.find("failures=\"0\""), std::string::npos) << allowed_xml;
    EXPECT_NE(allowed_xml.find("<skipped message=\"unchecked (allowed by --allow-unchecked): "), std::string::npos)
        << allowed_xml;
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

// The declarations of docs/accuracy.md, "Declared algorithms and input precision", for this plugin.
Expectations declaring(const std::string& declaration) {
    return Expectations::parse(R"({"backends": {"accuracy_mutants": {)" + declaration + "}}}", "test");
}
const char* kTf32 = R"("input_precision": {"dtype": "tf32", "reason": "rounds f32 inputs to TF32 on purpose"})";
const char* kWholeTensor = R"("bound": {"kind": "whole_tensor", "reason": "errors scale with the tensor's largest M"})";

// The f32 cases of the accuracy suite (stress and precision) that fail, with their first reason.
std::vector<CaseResult> f32_failures(const std::vector<CaseResult>& results) {
    std::vector<CaseResult> failed;
    for (const CaseResult& r : results)
        if (r.c.conv.dtype == DataType::f32 && r.status != Status::passed) failed.push_back(r);
    return failed;
}

TEST(DeclaredSlack, ATf32BackendFailsUndeclaredAndPassesDeclared) {
    const auto undeclared = f32_failures(run("accuracy_mutants", "mutant=tf32_inputs", accuracy_cases(1, "")));
    int stress = 0;
    for (const CaseResult& r : undeclared) {
        stress += r.c.mode == accuracy::Mode::stress;
        if (r.c.mode == accuracy::Mode::stress) {  // the f32 bound cannot hold TF32's input rounding
            ASSERT_TRUE(r.error && r.error->bound_growth_needed) << r.reason;
            EXPECT_GT(*r.error->bound_growth_needed, 1.0) << r.reason;
            if (r.kind == Kind::mismatch) {
                EXPECT_NE(r.reason.find("the per_output bound would have to grow"), std::string::npos) << r.reason;
            }
        }
    }
    EXPECT_GT(stress, 0) << "TF32 inputs passed every f32 stress case without a declaration";
    const Expectations tf32 = declaring(kTf32);
    for (const CaseResult& r : run("accuracy_mutants", "mutant=tf32_inputs", accuracy_cases(1, ""), &tf32)) {
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  " << r.reproducer;
        ASSERT_TRUE(r.error.has_value()) << r.c.id;
        if (r.c.conv.dtype == DataType::f32) {  // f16 and bf16 inputs lose nothing to TF32
            EXPECT_TRUE(r.error->comparison.statistics.judged_by.starts_with("input_precision:tf32"))
                << r.c.id << ": " << r.error->comparison.statistics.judged_by;
        }
    }
}

TEST(DeclaredSlack, ADeclaredTf32DoesNotCoverBf16Rounding) {
    const Expectations tf32 = declaring(kTf32);
    int failed = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=bf16_inputs", accuracy_cases(1, "precision"), &tf32)) {
        if (r.c.conv.dtype != DataType::f32) continue;
        ++failed;
        EXPECT_EQ(r.status, Status::failed) << r.c.id;
        EXPECT_NE(r.reason.find("rounds f32 inputs to bf16"), std::string::npos) << r.reason;
        EXPECT_NE(r.reason.find("declared input_precision tf32"), std::string::npos) << r.reason;
    }
    EXPECT_GT(failed, 0);
}

TEST(DeclaredSlack, AWholeTensorErrorFailsUndeclaredAndPassesDeclared) {
    const auto undeclared = f32_failures(run("accuracy_mutants", "mutant=whole_tensor_error", accuracy_cases(1, "")));
    EXPECT_FALSE(undeclared.empty()) << "an error of the tensor's largest magnitude passed every per-output bound";
    for (const CaseResult& r : undeclared) {
        if (r.c.mode == accuracy::Mode::precision) continue;  // not exact: a bug there without a declaration
        EXPECT_EQ(r.c.mode, accuracy::Mode::stress) << r.c.id << ": " << r.reason;
        EXPECT_STREQ(to_string(r.kind), "mismatch") << r.reason;
        ASSERT_TRUE(r.error && r.error->bound_growth_needed) << r.reason;
        EXPECT_GT(*r.error->bound_growth_needed, 1.0);
        EXPECT_EQ(case_record(r, "accuracy_mutants")["error"]["bound_growth_needed"], *r.error->bound_growth_needed);
    }
    const Expectations whole = declaring(kWholeTensor);
    for (const CaseResult& r : run("accuracy_mutants", "mutant=whole_tensor_error", accuracy_cases(1, ""), &whole)) {
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  " << r.reproducer;
        if (r.c.mode == accuracy::Mode::stress || r.c.mode == accuracy::Mode::precision) {
            ASSERT_TRUE(r.error.has_value()) << r.c.id;
            EXPECT_TRUE(r.error->comparison.statistics.judged_by.starts_with("whole_tensor"))
                << r.c.id << ": " << r.error->comparison.statistics.judged_by;
        }
    }
}

// A transform-domain algorithm's result is never exact (cuDNN gave -940.999878 for -941 on an exact-mode case):
// under a declared whole-tensor bound, exact mode's data is judged by that bound and the record says so.
TEST(DeclaredSlack, AWholeTensorDeclarationJudgesExactModeByItsBound) {
    const std::vector<Case> cases = load_cases("smoke", 1, "exact");
    int undeclared_failed = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=whole_tensor_error", cases))
        undeclared_failed += r.c.op == Op::conv && r.c.mode == accuracy::Mode::exact && r.status == Status::failed;
    EXPECT_GT(undeclared_failed, 0) << "an inexact result passed every exact case without a declaration";
    const Expectations whole = declaring(kWholeTensor);
    int judged = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=whole_tensor_error", cases, &whole)) {
        if (r.status == Status::unsupported || r.c.op != Op::conv || r.c.mode != accuracy::Mode::exact) continue;
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  " << r.reproducer;
        ASSERT_TRUE(r.error.has_value()) << r.c.id;
        ++judged;
        EXPECT_TRUE(r.error->comparison.statistics.judged_by.starts_with("whole_tensor"))
            << r.c.id << ": " << r.error->comparison.statistics.judged_by;
    }
    EXPECT_GT(judged, 0);
}

const char* kBiasAfterRounding =
    R"("bias": {"added": "after_output_rounding", "reason": "the bias is added after the sum is rounded to dst"})";

// cuDNN's convolution rounds to dst, then a separate op adds the bias in dst's type: on a 16-bit output two
// roundings, which the bound of one rounding does not hold; declared, the bound with both holds every case.
TEST(DeclaredSlack, ABiasAddedAfterRoundingFailsUndeclaredAndPassesDeclared) {
    const std::vector<Case> cases = load_cases("smoke", 1, "bound");
    int half_with_bias = 0, failed = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=bias_after_rounding", cases)) {
        if (r.status == Status::unsupported || r.c.op != Op::conv || !r.c.conv.has_bias ||
            r.c.conv.dst_dtype() == DataType::f32)
            continue;
        ++half_with_bias;
        failed += r.status == Status::failed;
    }
    ASSERT_GT(half_with_bias, 0) << "smoke has no f16/bf16 bound case with a bias";
    EXPECT_GT(failed, 0) << "two roundings passed every 16-bit case with a bias under the bound of one";
    const Expectations late = declaring(kBiasAfterRounding);
    int judged = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=bias_after_rounding", cases, &late)) {
        if (r.status == Status::unsupported) continue;
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  " << r.reproducer;
        if (r.c.op == Op::conv && r.c.conv.has_bias && r.error) {
            ++judged;
            EXPECT_NE(r.error->comparison.statistics.judged_by.find("bias_after_output_rounding"), std::string::npos)
                << r.c.id << ": " << r.error->comparison.statistics.judged_by;
        }
    }
    EXPECT_GT(judged, 0);
    for (const CaseResult& r : run("accuracy_mutants", "mutant=bias_after_rounding", accuracy_cases(1, "stress"), &late))
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  " << r.reproducer;
}

// The declaration holds a backend to both roundings, not to anything: the truncation mutant still fails.
TEST(DeclaredSlack, ABiasDeclarationDoesNotHideTruncation) {
    const Expectations late = declaring(kBiasAfterRounding);
    int failed = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=truncation", accuracy_cases(1, "stress"), &late))
        failed += r.status == Status::failed;
    EXPECT_GT(failed, 0);
}

// The declarations widen the bound only as far as derived: the honest baseline still passes with
// them, and the zeros mutant is still never a pass.
TEST(DeclaredSlack, DeclarationsDoNotHideAWrongResult) {
    const Expectations both = declaring(std::string(kTf32) + ", " + kWholeTensor);
    int failed = 0;
    for (const CaseResult& r : run("accuracy_mutants", "mutant=truncation", accuracy_cases(1, "stress"), &both))
        failed += r.status == Status::failed;
    EXPECT_GT(failed, 0) << "truncation toward zero passed every stress case under the declarations";
    for (const CaseResult& r : run("accuracy_mutants", "mutant=none", accuracy_cases(1, ""), &both))
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason;
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

// A case's fpmath (oneDNN's fpmath mode, docs/accuracy.md "fpmath") allows the input rounding it names and no more:
// a backend that rounds f32 inputs to bf16 passes fpmath=bf16's precision, bound and stress cases, and fails the
// precision case without fpmath and with fpmath=tf32 (TF32 keeps 3 more bits); a backend computing in f32 passes
// under every fpmath.
TEST(AccuracyMutants, ACasesFpmathAllowsItsOwnInputRoundingOnly) {
    const std::string base = "conv:n=1,c=16,o=4,in=6x6,k=3x3,pb=1x1,pe=1x1,bias=1";
    const auto under = [&](const std::string& mutant, const std::string& fpmath, const char* mode) {
        const auto results = run("accuracy_mutants", mutant, one_case(base + fpmath, mode));
        EXPECT_EQ(results.size(), 1u);
        return results.front();
    };
    for (const char* mode : {"precision", "bound", "stress"}) {
        const CaseResult r = under("mutant=bf16_inputs", ",fpmath=bf16", mode);
        EXPECT_EQ(r.status, Status::passed) << mode << ": " << r.reason;
        ASSERT_TRUE(r.error.has_value()) << r.reason;
        EXPECT_NE(r.error->comparison.statistics.judged_by.find("input_precision:bf16"), std::string::npos)
            << mode << ": " << r.error->comparison.statistics.judged_by;
        for (const char* fpmath : {",fpmath=bf16", ",fpmath=tf32", ""})
            EXPECT_EQ(under("mutant=none", fpmath, mode).status, Status::passed) << mode << fpmath;
    }
    for (const char* fpmath : {"", ",fpmath=tf32"}) {
        const CaseResult r = under("mutant=bf16_inputs", fpmath, "precision");
        EXPECT_EQ(r.status, Status::failed) << "bf16 inputs passed precision" << fpmath;
        EXPECT_NE(r.reason.find("rounds f32 inputs to bf16"), std::string::npos) << r.reason;
    }
}
