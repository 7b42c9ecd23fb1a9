// Determinism mode (runner/include/convcheck/runner/determinism.hpp): the two mutants whose bits depend on the thread count or on
// the run (each inside the bound, so one run of any mode passes them) fail it as "nondeterministic", with
// the first differing output's coordinates, both values and both runs named; correct code (the baseline,
// every honest mutant, the optimized plugin) passes it; a backend that declares "nondeterministic" in
// backends.json passes with the difference in its reason, and is still checked on every run.
#include <gtest/gtest.h>

#include <regex>

#include "convcheck/mutant_list/mutants.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/runner/selftest.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

Case one_case(const std::string& descriptor, const std::string& mode) {
    return expand("determinism", {SuiteEntry(descriptor)}, 1, mode).front();
}

CheckSettings determinism(int repeat, std::vector<int> threads) {
    CheckSettings s;
    s.determinism = {repeat, std::move(threads)};
    return s;
}

std::unique_ptr<BackendSession> mutant(const std::string& name, int threads = 0) {
    return open_backend("mutants", {"mutant=" + name}, threads, "none", 10.0);
}

const char* kCase = "conv:n=2,c=16,o=4,in=7x6,k=3x3,pb=1x1,pe=1x1,bias=1";

TEST(Determinism, TheThreadBugsPassEverySingleRun) {
    // at one thread count, in every mode of smoke: only determinism mode can catch them
    for (const char* name : {"thread_split_order", "run_to_run_order"})
        for (int threads : {1, 2}) {
            auto s = mutant(name, threads);
            RunSettings settings;
            settings.shrink = false;
            for (const CaseResult& r : run_cases(s->backend, load_cases("smoke", 1, ""), settings))
                EXPECT_EQ(r.status, Status::passed) << name << " at " << threads << " threads, " << r.c.id << ": "
                                                    << r.reason << "\n  " << r.reproducer;
        }
}

TEST(Determinism, CorrectOnOneThreadWrongOnTwoIsNondeterministic) {
    auto s = mutant("thread_split_order");
    const CaseResult r = check_case(s->backend, one_case(kCase, "bound"), determinism(1, {1, 2}));
    EXPECT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_EQ(r.kind, Kind::nondeterministic) << r.reason;
    EXPECT_NE(r.reason.find("run 2 (2 threads) differs from run 1 (1 thread) in "), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("; first at ["), std::string::npos) << r.reason;
    EXPECT_NE(r.reproducer.find("--case '" + r.c.descriptor() + "' --seed "), std::string::npos) << r.reproducer;
    EXPECT_NE(r.reproducer.find(" --repeat 1 --threads-sweep 1,2"), std::string::npos) << r.reproducer;
    // and the same mutant is identical on repeated runs at one thread count
    const CaseResult same = check_case(s->backend, one_case(kCase, "bound"), determinism(3, {2}));
    EXPECT_EQ(same.status, Status::passed) << same.reason;
}

TEST(Determinism, OutputsThatVaryRunToRunOnOneThreadCountAreNondeterministic) {
    auto s = mutant("run_to_run_order", 1);
    const CaseResult r = check_case(s->backend, one_case(kCase, "bound"), determinism(3, {}));
    EXPECT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_EQ(r.kind, Kind::nondeterministic) << r.reason;
    EXPECT_TRUE(std::regex_search(r.reason, std::regex("run [23] \\(1 thread\\) differs from run 1 \\(1 thread\\)")))
        << r.reason;
    EXPECT_NE(r.reproducer.find(" --repeat 3 --threads 1"), std::string::npos) << r.reproducer;
}

// The message names an output that differs, by [n, c, spatial...] in any layout, with the values each run wrote.
TEST(Determinism, TheMessageNamesADifferingOutputAndBothValues) {
    for (const char* layout : {"ncx", "nxc"}) {
        auto s = mutant("thread_split_order");
        // wide pads: the corner outputs sum two products, the same in any split, so the first difference lies
        // elsewhere, at coordinates that differ between the two layouts' element orders
        const Case c = one_case(std::string("conv:n=1,c=2,o=3,in=7x6,k=3x3,pb=2x2,pe=2x2,data=") + layout, "bound");
        CheckSettings settings = determinism(1, {1, 2});
        ExecutionLog log;
        settings.log = &log;
        const CaseResult r = check_case(s->backend, c, settings);
        ASSERT_EQ(r.kind, Kind::nondeterministic) << r.reason;
        ASSERT_EQ(log.executions.size(), 2u);
        EXPECT_EQ(log.executions[0].run, 1);
        EXPECT_EQ(log.executions[1].run, 2);
        EXPECT_EQ(log.executions[1].threads, 2);
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.reason, m, std::regex("first at \\[(\\d+),(\\d+),(\\d+),(\\d+)\\]: (\\S+) \\(0x"
                                                              "[0-9a-f]+\\) in run 1, (\\S+) \\(0x[0-9a-f]+\\) in run 2")))
            << r.reason;
        const ConvDescriptor& d = c.conv;
        const std::int64_t flat =
            ((std::stoll(m[1]) * d.out_channels + std::stoll(m[2])) * d.output_size(0) + std::stoll(m[3])) *
                d.output_size(1) +
            std::stoll(m[4]);
        const auto one = reference::dst_to_ncx(d, log.executions[0].dst.data());
        const auto two = reference::dst_to_ncx(d, log.executions[1].dst.data());
        EXPECT_NE(one[flat], two[flat]) << layout << ": " << r.reason;
        // nine significant digits name an f32 value exactly
        EXPECT_EQ(static_cast<float>(std::stod(m[5])), static_cast<float>(one[flat])) << r.reason;
        EXPECT_EQ(static_cast<float>(std::stod(m[6])), static_cast<float>(two[flat])) << r.reason;
        EXPECT_NE(flat, 0) << "the first difference should not be the first output in either layout: " << r.reason;
    }
}

TEST(Determinism, ADeclaredBackendPassesWithTheDifferenceInItsReason) {
    const Expectations declared = Expectations::parse(
        R"({"backends": {"mutants": {"nondeterministic": {"reason": "the split follows the thread count"}}}})", "test");
    auto s = mutant("thread_split_order");
    s->backend.expectations = &declared;
    const CaseResult r = check_case(s->backend, one_case(kCase, "bound"), determinism(2, {1, 2}));
    EXPECT_EQ(r.status, Status::passed) << r.reason;
    EXPECT_NE(r.reason.find("outputs differ between runs, as the backend declares (the split follows the thread "
                            "count): run 3 (2 threads) differs from run 1"),
              std::string::npos)
        << r.reason;
    // still judged against the bound: a wrong value fails as a mismatch
    auto wrong = mutant("bias_dropped");
    const Expectations declared_wrong = Expectations::parse(
        R"({"backends": {"mutants": {"nondeterministic": {"reason": "declared"}}}})", "test");
    wrong->backend.expectations = &declared_wrong;
    const CaseResult w = check_case(wrong->backend, one_case(kCase, "bound"), determinism(2, {1, 2}));
    EXPECT_EQ(w.status, Status::failed) << w.reason;
    EXPECT_EQ(w.kind, Kind::mismatch) << w.reason;
}

TEST(Determinism, ADeclarationNeedsAReasonAndNothingElse) {
    for (const char* bad : {R"({"backends": {"b": {"nondeterministic": true}}})",
                            R"({"backends": {"b": {"nondeterministic": {"reason": ""}}}})",
                            R"({"backends": {"b": {"nondeterministic": {}}}})",
                            R"({"backends": {"b": {"nondeterministic": {"reason": "r", "runs": 2}}}})"})
        EXPECT_THROW(Expectations::parse(bad, "test"), std::invalid_argument) << bad;
    EXPECT_EQ(Expectations::parse(R"({"backends": {"b": {"nondeterministic": {"reason": "r"}}}})", "test")
                  .nondeterministic("b"),
              std::optional<std::string>("r"));
    EXPECT_EQ(Expectations::parse(R"({"backends": {"b": {}}})", "test").nondeterministic("b"), std::nullopt);
}

TEST(Determinism, AFailingRunIsTheCasesResultNamingTheRun) {
    auto s = mutant("bias_dropped");
    const CaseResult r = check_case(s->backend, one_case(kCase, "exact"), determinism(2, {1, 2}));
    EXPECT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_EQ(r.kind, Kind::mismatch) << r.reason;
    EXPECT_NE(r.reproducer.find(" --repeat 2 --threads-sweep 1,2"), std::string::npos) << r.reproducer;
}

// Correct code passes determinism mode: the baseline, every honest variant and the optimized plugin. Smoke's
// backward cases pass where the backend claims their pass and are declined as not claimed where it does not (the
// optimized plugin), never passed unchecked; the optimized plugin declines f64 (it computes in f32).
TEST(Determinism, CorrectCodePassesSmokeAtOneAndTwoThreadsTwice) {
    std::vector<std::unique_ptr<BackendSession>> backends;
    backends.push_back(open_backend("optimized", {}, 0, "", 30.0));  // with its declarations (post_op_nan: clip)
    for (const auto& m : mutants::kMutants)
        if (m.kind != mutants::Kind::bug) backends.push_back(mutant(std::string(m.name)));
    RunSettings settings;
    settings.shrink = false;
    settings.check.determinism = {2, {1, 2}};
    for (const auto& s : backends)
        for (const CaseResult& r : run_cases(s->backend, load_cases("smoke", 1, ""), settings)) {
            const bool f64_declined = &s == &backends.front() && r.c.op == Op::conv && r.c.conv.dtype == DataType::f64;
            EXPECT_EQ(r.status, r.pass_not_claimed || f64_declined ? Status::unsupported : Status::passed)
                << s->backend.options.options << " " << r.c.id << ": " << r.reason << "\n  " << r.reproducer;
        }
}

}  // namespace
