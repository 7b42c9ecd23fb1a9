// The validator's self-test: the smoke suite catches every mutant, each in the way it should, and the
// mutants plugin without a mutation passes it (so a caught mutant is caught for its bug alone).
#include <gtest/gtest.h>

#include <string>

#include "../mutants.hpp"
#include "session.hpp"
#include "suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

std::vector<CaseResult> run_smoke(const std::string& mutant, bool fail_fast) {
    auto session = open_backend("mutants", {"mutant=" + mutant}, 0, "none", 10.0);
    RunSettings settings;
    settings.shrink = false;
    settings.fail_fast = fail_fast;
    return run_cases(session->backend, load_cases("smoke", 1, ""), settings);
}

TEST(Mutants, BaselinePassesTheSmokeSuite) {
    for (const CaseResult& r : run_smoke("none", false)) {
        // the mutants plugin has no CC: those cases are unsupported, every other one passes
        const Status want = r.c.op == Op::cc ? Status::unsupported : Status::passed;
        EXPECT_EQ(r.status, want) << r.c.id << ": " << r.reason << "\n  reproducer: " << r.reproducer;
    }
}

class Caught : public ::testing::TestWithParam<std::string> {};

TEST_P(Caught, BySmokeSuite) {
    const std::string mutant = GetParam();
    const auto results = run_smoke(mutant, true);
    ASSERT_FALSE(results.empty());
    const CaseResult& last = results.back();
    ASSERT_TRUE(last.status == Status::failed || last.status == Status::crashed)
        << "mutant " << mutant << " survived the smoke suite (" << results.size() << " cases passed)";
    // The modes and checks that exist for exactly these bugs must be the ones that catch them.
    if (mutant == "last_ulp") {
        EXPECT_EQ(last.c.mode, accuracy::Mode::exact) << last.reproducer;
    }
    if (mutant == "window_overread") {
        EXPECT_EQ(last.c.mode, accuracy::Mode::probe) << last.reproducer;
        EXPECT_NE(last.reason.find("outside its receptive field got NaN"), std::string::npos) << last.reason;
    }
    if (mutant == "wrong_output_size") {
        EXPECT_EQ(last.status, Status::crashed) << last.reason;
        EXPECT_NE(last.reason.find("write past the end of the output dst"), std::string::npos) << last.reason;
    }
    if (mutant == "border_tap") {
        ASSERT_TRUE(last.error.has_value()) << last.reason;
        EXPECT_GT(last.error->border_mismatches, 0) << last.reason;
        EXPECT_EQ(last.error->interior_mismatches, 0) << last.reason;
    }
    if (mutant == "bf16_truncation") {
        EXPECT_EQ(last.c.conv.dtype, DataType::bf16) << last.reproducer;
    }
}

std::vector<std::string> all_mutants() {
    std::vector<std::string> names;
    for (auto name : mutants::kMutantNames)
        if (name != "none") names.emplace_back(name);
    return names;
}

INSTANTIATE_TEST_SUITE_P(Every, Caught, ::testing::ValuesIn(all_mutants()),
                         [](const auto& info) { return info.param; });

// A failing case shrinks to a smaller descriptor that fails the same way, with a reproducer.
TEST(Mutants, FailuresShrink) {
    auto session = open_backend("mutants", {"mutant=bias_dropped"}, 0, "none", 10.0);
    RunSettings settings;
    const auto results = run_cases(session->backend, expand("t", {SuiteEntry("n=2,c=6,o=4,in=9x9,k=3x3,pb=1x1,pe=1x1,bias=1")}, 1, ""), settings);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_EQ(results[0].shrunk_descriptor,
              "conv:n=1,c=1,o=1,g=1,in=1,k=1,s=1,d=1,pb=0,pe=0,bias=1,dt=f32,data=ncx,wei=oix")
        << results[0].shrunk_reproducer;
    EXPECT_NE(results[0].shrunk_reproducer.find("--case 'conv:n=1,c=1,o=1"), std::string::npos);
}

}  // namespace
