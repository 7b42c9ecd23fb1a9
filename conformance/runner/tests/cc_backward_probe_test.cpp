// Probe mode for the CC backward pass (cc_backward/probe.cpp, docs/cc-backward.md "Probe mode"): the runs
// probe diff_dst, then src; a correct backend passes; a NaN that reaches a gradient the reference's does
// not is a leak, one that does not reach a gradient the reference's reaches is missing, and each failure
// names the probed element and the gradient element; the bug classes only probe mode sees pass bound mode.
#include <gtest/gtest.h>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

// smoke's cc/backward_net_batch: a batch of 2, windows in the zero padding, the Internal-Net
constexpr const char* kNet =
    "cc:n=2,cin=2,cout=2,in=6x7,scale=3/2x5/4,support=3x3,kernel=net,hidden=8x4,slope=0.2,bias=1,dir=bwd";
constexpr const char* kCubic = "cc:n=1,cin=2,cout=2,in=8x8,scale=0.7071,support=4x4,kernel=cubic,bias=1,dir=bwd";

CaseResult run_one(const std::string& mutant, const std::string& descriptor, const std::string& mode) {
    auto s = open_backend("mutants", {"mutant=" + mutant}, 0, "none", 10.0);
    return check_case(s->backend, expand("ccbwdprobe", {SuiteEntry(descriptor)}, 1, mode).front(), CheckSettings{});
}

TEST(CcBackwardProbe, TheBaselinePassesWithRunsOverDiffDstThenSrc) {
    for (const char* layer : {kNet, kCubic}) {
        const CaseResult r = run_one("none", layer, "probe");
        ASSERT_EQ(r.status, Status::passed) << r.reason;
        ASSERT_TRUE(r.error && r.error->probe) << r.reason;
        const std::vector<std::int64_t>& runs = r.error->probe->src_elements;
        ASSERT_EQ(runs.size(), 6u);  // first, last, one random: of diff_dst, then of src
        const std::int64_t dst = parse_cc_descriptor(r.c.cc).dst_elements();
        for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i] >= dst, i >= 3) << runs[i];
        EXPECT_EQ(runs[0], 0);
        EXPECT_EQ(runs[1], dst - 1);
        EXPECT_EQ(runs[3], dst);
        EXPECT_EQ(r.error->comparison.statistics.judged_by, "probe");
    }
}

// cc_bwd_window_overscatter: right on finite data (bound mode passes); a NaN in diff_dst leaks into diff_src
TEST(CcBackwardProbe, AScatterOutsideTheWindowLeaks) {
    EXPECT_EQ(run_one("cc_bwd_window_overscatter", kNet, "bound").status, Status::passed);
    const CaseResult r = run_one("cc_bwd_window_overscatter", kNet, "probe");
    ASSERT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_EQ(r.kind, Kind::probe) << r.reason;
    EXPECT_NE(r.reason.find("NaN probe at diff_dst[0,0,0,0]: "), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("outside the elements the forward pairs it with got NaN (first diff_src["), std::string::npos)
        << r.reason;
    EXPECT_NE(r.reason.find("src[0,0,0,0]"), std::string::npos) << r.reason;  // the src runs, by name
    EXPECT_GT(r.error->probe->leaked, 0);
    EXPECT_EQ(r.error->probe->missing, 0);
}

// cc_bwd_theta_nan_clamped: right on finite data; a NaN in diff_dst or src never reaches diff_theta
TEST(CcBackwardProbe, AGradientThatDropsNaNMisses) {
    EXPECT_EQ(run_one("cc_bwd_theta_nan_clamped", kNet, "bound").status, Status::passed);
    const CaseResult r = run_one("cc_bwd_theta_nan_clamped", kNet, "probe");
    ASSERT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_NE(r.reason.find("did not (first diff_theta["), std::string::npos) << r.reason;
    EXPECT_EQ(r.error->probe->leaked, 0);
    EXPECT_GT(r.error->probe->missing, 0);
    // an analytic kernel has no diff_theta: nothing there to drop
    EXPECT_EQ(run_one("cc_bwd_theta_nan_clamped", kCubic, "probe").status, Status::passed);
}

// The gradients a NaN does not reach are judged under the CC backward bound, as in bound mode.
TEST(CcBackwardProbe, TheGradientsTheNaNDoesNotReachAreJudgedUnderTheBound) {
    const CaseResult r = run_one("cc_bwd_theta_first_image", kNet, "probe");
    ASSERT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_EQ(r.kind, Kind::mismatch) << r.reason;
    EXPECT_NE(r.reason.find("exceed the error bound (first diff_theta["), std::string::npos) << r.reason;
    EXPECT_GT(r.error->probe->over_bound, 0);
}

// Exact and precision mode stay declined, with the reason.
TEST(CcBackwardProbe, ExactModeIsDeclinedWithItsReason) {
    const CaseResult r = run_one("none", kNet, "exact");
    EXPECT_EQ(r.status, Status::unsupported) << r.reason;
    EXPECT_NE(r.reason.find("exact mode does not apply to the CC backward pass (K_theta computes the weights"),
              std::string::npos)
        << r.reason;
}

}  // namespace
