// Every case record says what decided its outcome ("kind", docs/results-schema.md): a wrong value
// is a mismatch, a NaN that reaches the wrong outputs a probe failure, NaN where the reference is
// finite "nan", outputs left unwritten "unwritten", an error the plugin returned "plugin_error"; a
// backend's decline is "declined"; an expected failure keeps the kind of the failure it matched and
// an expected failure that passes is "xpass". (The fault zoo's crashes, hangs and leaks:
// faultzoo_classification_test; out of memory and over the memory limit: memory_limit_test.)
#include <gtest/gtest.h>

#include <cstring>

#include "convcheck/runner/verdict.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

Case one_case(const std::string& descriptor, const std::string& mode) {
    return expand("kind", {SuiteEntry(descriptor)}, 1, mode).front();
}

const char* kCase = "conv:n=1,c=2,o=3,in=6x5,k=3x3,pb=1x1,pe=1x1,bias=1";

TEST(Kind, AWrongValueIsAMismatch) {
    auto s = open_backend("mutants", {"mutant=bias_dropped"}, 0, "none", 10.0);
    for (const char* mode : {"bound", "exact"}) {
        const CaseResult r = check_case(s->backend, one_case(kCase, mode), CheckSettings{});
        EXPECT_EQ(r.status, Status::failed) << r.reason;
        EXPECT_STREQ(to_string(r.kind), "mismatch") << mode << ": " << r.reason;
    }
}

TEST(Kind, ANanThatReachesOutputsOutsideItsReceptiveFieldIsAProbeFailure) {
    auto s = open_backend("mutants", {"mutant=window_overread"}, 0, "none", 10.0);
    const CaseResult r = check_case(s->backend, one_case("conv:c=1,o=1,in=8,k=3", "probe"), CheckSettings{});
    EXPECT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "probe") << r.reason;
}

TEST(Kind, APassHasNoKindAndTheRecordCarriesIt) {
    auto s = open_backend("mutants", {"mutant=none"}, 0, "none", 10.0);
    const CaseResult r = check_case(s->backend, one_case(kCase, "bound"), CheckSettings{});
    EXPECT_EQ(r.status, Status::passed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "");
    EXPECT_EQ(case_record(r, "mutants").at("kind"), "");
    CaseResult failed = r;
    failed.kind = Kind::out_of_memory;
    EXPECT_EQ(case_record(failed, "mutants").at("kind"), "out_of_memory");
}

TEST(Kind, ADeclineIsDeclined) {
    // the fault zoo claims discrete convolution only (the mutants plugin now has a CC layer of its own)
    auto s = open_backend("faultzoo", {"fault=none"}, 0, "none", 10.0);
    const CaseResult r = check_case(s->backend, one_case("cc:n=1,cin=2,cout=2,in=6x6,scale=1/2x1/2,support=2x2",
                                                         "bound"),
                                    CheckSettings{});
    EXPECT_EQ(r.status, Status::unsupported) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "declined") << r.reason;
}

TEST(Kind, AnExpectedFailureKeepsItsKindAndAnUnexpectedPassIsXpass) {
    const Expectations bias_fails = Expectations::parse(
        R"({"schema": 1, "backends": {"mutants": {"expected_failures": [{"match": {"bias": "1"}, "reason": "r"}]}}})",
        "test");
    auto broken = open_backend("mutants", {"mutant=bias_dropped"}, 0, "none", 10.0);
    broken->backend.expectations = &bias_fails;
    const CaseResult xfail = check_case(broken->backend, one_case(kCase, "bound"), CheckSettings{});
    EXPECT_EQ(xfail.status, Status::xfail) << xfail.reason;
    EXPECT_STREQ(to_string(xfail.kind), "mismatch") << xfail.reason;

    auto correct = open_backend("mutants", {"mutant=none"}, 0, "none", 10.0);
    correct->backend.expectations = &bias_fails;
    const CaseResult xpass = check_case(correct->backend, one_case(kCase, "bound"), CheckSettings{});
    EXPECT_EQ(xpass.status, Status::xpass) << xpass.reason;
    EXPECT_STREQ(to_string(xpass.kind), "xpass") << xpass.reason;
}

// The mapping of a child's outcome and of a failed comparison to kinds (no bundled plugin returns
// an error from execute or leaves outputs unwritten on purpose).
TEST(Kind, ChildOutcomesAndComparisonsMapToTheirKinds) {
    const struct {
        ChildOutcome::Kind outcome;
        Status status;
        const char* kind;
    } map[] = {{ChildOutcome::Kind::unsupported, Status::unsupported, "declined"},
               {ChildOutcome::Kind::plugin_error, Status::failed, "plugin_error"},
               {ChildOutcome::Kind::crashed, Status::crashed, "crash"},
               {ChildOutcome::Kind::hanged, Status::hanged, "hang"},
               {ChildOutcome::Kind::out_of_memory, Status::crashed, "out_of_memory"},
               {ChildOutcome::Kind::paths_differ, Status::failed, "paths_differ"},
               {ChildOutcome::Kind::gaps_written, Status::failed, "gaps_written"}};
    for (const auto& m : map) {
        ChildOutcome o;
        o.kind = m.outcome;
        o.reason = "why";
        CaseResult r;
        EXPECT_TRUE(detail::outcome_status(o, r));
        EXPECT_EQ(r.status, m.status) << m.kind;
        EXPECT_STREQ(to_string(r.kind), m.kind);
        EXPECT_EQ(r.reason, "why");
    }
    EXPECT_STREQ(to_string(detail::mismatch_kind(3, 5)), "unwritten");
    EXPECT_STREQ(to_string(detail::mismatch_kind(0, 5)), "nan");
    EXPECT_STREQ(to_string(detail::mismatch_kind(0, 0)), "mismatch");
    const float unwritten_fill[3] = {0.0f, 0.0f, 0.0f};
    unsigned char bytes[12];
    std::memcpy(bytes, unwritten_fill, sizeof(bytes));
    std::memset(bytes + 4, 0xFF, 8);  // two of three never written
    EXPECT_EQ(detail::unwritten_elements(bytes, 3, 4), 2);
}

}  // namespace
