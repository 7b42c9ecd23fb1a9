// The claims of transposed convolution are its own (docs/transposed.md, plugin.h): a transposed case is
// checked against CONVCHECK_OP_CONV_TRANSPOSED and its own dtype, rank and formats, never against the
// passes of discrete convolution (prop_kinds). A plugin of gradients and transposed convolution, which
// claims the two backward passes and not the forward one, must get every transposed case: the mutants
// plugin with prop_kinds=backward is one.
#include <gtest/gtest.h>

#include <string>

#include "../transposed/operation.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

std::vector<CaseResult> run_on_backward_only(const std::vector<Case>& cases) {
    auto session = open_backend("mutants", {"mutant=none", "prop_kinds=backward"}, 0, "none", 30.0);
    EXPECT_EQ(session->backend.info.prop_kinds,
              CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) | CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS));
    RunSettings settings;
    settings.shrink = false;
    return run_cases(session->backend, cases, settings);
}

TEST(TransposedClaims, APluginWithoutTheForwardPassRunsEveryTransposedCase) {
    const std::vector<Case> cases = load_cases("transposed", 1, "");
    ASSERT_FALSE(cases.empty());
    for (const CaseResult& r : run_on_backward_only(cases))
        EXPECT_STREQ(to_string(r.status), "passed") << r.c.id << " " << r.c.descriptor() << ": " << r.reason;
}

TEST(TransposedClaims, ThatPluginRunsTheBackwardPassesAndDeclinesTheForwardOneAsNotClaimed) {
    std::vector<Case> cases;
    for (const char* d : {"conv:c=3,o=2,in=5x5,k=3x3,pb=1x1,pe=1x1,dir=bwd_d", "conv:c=3,o=2,in=5x5,k=3x3,dir=bwd_w,bias=1",
                          "conv:c=3,o=2,in=5x5,k=3x3"})
        for (const Case& c : expand("t", {SuiteEntry(d)}, 1, "bound")) cases.push_back(c);
    const std::vector<CaseResult> results = run_on_backward_only(cases);
    ASSERT_EQ(results.size(), 3u);
    EXPECT_STREQ(to_string(results[0].status), "passed") << results[0].reason;
    EXPECT_STREQ(to_string(results[1].status), "passed") << results[1].reason;
    EXPECT_STREQ(to_string(results[2].status), "unsupported");
    EXPECT_TRUE(results[2].pass_not_claimed);
    EXPECT_NE(results[2].reason.find("does not claim prop_kind forward"), std::string::npos) << results[2].reason;
}

// The claims function itself: only CONV_TRANSPOSED among the operations, no pass of discrete convolution.
TEST(TransposedClaims, ATransposedCaseNeedsNoClaimOfDiscreteConvolution) {
    PluginInfo info;
    info.abi_major = 1;
    info.abi_minor = 3;
    info.operations = CONVCHECK_OP_CONV_TRANSPOSED;
    info.prop_kinds = CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA);
    info.dtypes = CONVCHECK_BIT(CONVCHECK_F32);
    info.ranks = CONVCHECK_BIT(2);
    info.data_formats = CONVCHECK_BIT(CONVCHECK_NCX);
    info.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX);
    Case c;
    c.op = Op::conv_transposed;
    c.deconv = parse_transposed_descriptor("deconv:c=2,o=3,in=4x4,k=3x3,s=2x2");
    EXPECT_EQ(unclaimed_operation(info, c.op), "");
    EXPECT_EQ(detail::transposed_unclaimed(info, c), "");
    // its own dtype, rank and formats still decide, named in the runner's words
    c.deconv.data_format = DataFormat::nxc;
    EXPECT_EQ(detail::transposed_unclaimed(info, c), "the plugin does not claim data format nxc");
}

}  // namespace
