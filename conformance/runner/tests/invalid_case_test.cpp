// The invalid suite and mode "invalid" (docs/runner.md): every case breaks the one rule its name says;
// the buffers an invalid shape gets are safe sizes; a refusal (query unsupported or an error, or an
// error from execute) passes; a backend that computes the case fails as accepted_invalid, naming
// the rule, with a reproducer that reruns exactly that case.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "convcheck/core/descriptor_unvalidated.hpp"
#include "convcheck/core/transposed_descriptor.hpp"
#include "convcheck/runner/invalid_case.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

// The words of validate()'s rule (core/descriptor.cpp) that each case must break.
const std::map<std::string, std::string> kRuleOf = {
    {"batch_not_positive", "batch (n) = 0: must be a positive integer"},
    {"in_channels_not_positive", "in_channels (c) = 0: must be a positive integer"},
    {"out_channels_not_positive", "out_channels (o) = 0: must be a positive integer"},
    {"groups_not_positive", "groups (g) = 0: must be a positive integer"},
    {"in_channels_not_divisible_by_groups", "in_channels (c) = 3: must be divisible by groups = 2"},
    {"out_channels_not_divisible_by_groups", "out_channels (o) = 3: must be divisible by groups = 2"},
    {"input_size_not_positive", "input_size (in)[0] (h) = 0: must be a positive integer"},
    {"kernel_size_not_positive", "kernel_size (k)[0] (h) = 0: must be a positive integer"},
    {"stride_zero", "strides (s)[0] (h) = 0: must be a positive integer"},
    {"stride_negative", "strides (s)[0] (h) = -1: must be a positive integer"},
    {"dilation_zero", "dilations (d)[0] (h) = 0: must be a positive integer"},
    {"dilation_negative", "dilations (d)[0] (h) = -1: must be a positive integer"},
    {"padded_input_smaller_than_kernel", "exceeds the padded input input+pads_begin+pads_end = 2 (empty output)"},
    {"padded_input_smaller_than_kernel_within_stride", "exceeds the padded input input+pads_begin+pads_end = 2"},
    {"padded_input_smaller_than_dilated_kernel", "(k-1)*d+1 = 7 exceeds the padded input"},
    {"cropping_pads_leave_less_than_kernel", "exceeds the padded input input+pads_begin+pads_end = 2"},
    {"element_count_overflows_64_bits", "the element count overflows 64 bits"},
    // memory strides (ABI 1.2, core/include/convcheck/core/memory_layout.hpp)
    {"src_strides_overlap", "ss (src strides) = 144x36x3x1: stride 2 (3) is within the span of the smaller strides"},
    {"src_stride_negative", "ss (src strides) = 144x36x-6x1: stride 2 is -6: every stride must be >= 1"},
    {"weights_stride_zero", "ws (weights strides) = 36x9x3x0: stride 3 is 0: every stride must be >= 1"},
    {"dst_strides_overlap", "ds (dst strides) = 64x16x2x1: stride 2 (2) is within the span of the smaller strides"},
    {"src_strides_too_short", "ss (src strides) = 144x36x6: needs 4 strides, one per dim of src"},
};

// Every case of `suite` is in mode invalid, one per rule, and breaks the rule `rules` names for it.
void expect_each_breaks_its_rule(const std::string& suite, const std::map<std::string, std::string>& rules, Op op) {
    const std::vector<Case> cases = load_cases(suite, 1, "");
    ASSERT_EQ(cases.size(), rules.size());
    std::set<std::string> names;
    for (const Case& c : cases) {
        EXPECT_EQ(c.op, op) << c.id;
        EXPECT_EQ(c.mode, accuracy::Mode::invalid) << c.id;
        EXPECT_TRUE(names.insert(c.name).second) << "one case per rule: " << c.name;
        ASSERT_TRUE(rules.count(c.name)) << c.name;
        const std::string rule = op == Op::conv ? broken_rule(c.conv) : broken_rule(c.deconv);
        EXPECT_NE(rule.find(rules.at(c.name)), std::string::npos) << c.name << ": " << rule;
    }
}

TEST(InvalidSuite, EveryCaseBreaksTheRuleItIsNamedFor) { expect_each_breaks_its_rule("invalid", kRuleOf, Op::conv); }

// The words of the transposed descriptor's validate() (core/transposed_descriptor.cpp) each case of the
// invalid_transposed suite must break.
const std::map<std::string, std::string> kTransposedRuleOf = {
    {"batch_not_positive", "batch (n) = 0: must be a positive integer"},
    {"in_channels_not_positive", "in_channels (c) = 0: must be a positive integer"},
    {"out_channels_not_positive", "out_channels (o) = 0: must be a positive integer"},
    {"groups_not_positive", "groups (g) = 0: must be a positive integer"},
    {"in_channels_not_divisible_by_groups", "in_channels (c) = 3: must be divisible by groups = 2"},
    {"out_channels_not_divisible_by_groups", "out_channels (o) = 3: must be divisible by groups = 2"},
    {"input_size_not_positive", "input_size (in)[0] = 0: must be a positive integer"},
    {"kernel_size_not_positive", "kernel_size (k)[0] = 0: must be a positive integer"},
    {"stride_not_positive", "strides (s)[0] = 0: must be a positive integer"},
    {"dilation_not_positive", "dilations (d)[0] = 0: must be a positive integer"},
    {"output_padding_negative", "output_padding (op)[0] = -1: must be >= 0"},
    {"pads_crop_the_whole_output", "pads_end (pe)[0] = 5: the output size (in-1)*s - pb - pe + (k-1)*d + 1 + op = 0 must be >= 1"},
    {"pad_beyond_2_to_the_40", "pads_begin (pb)[0] = 1099511627777: out of range: |value| <= 2^40"},
    {"element_count_overflows_64_bits", "the element count overflows 64 bits (in the forward convolution it transposes"},
};

TEST(InvalidSuite, EveryTransposedCaseBreaksTheRuleItIsNamedFor) {
    expect_each_breaks_its_rule("invalid_transposed", kTransposedRuleOf, Op::conv_transposed);
    // safe buffers: every count at least 1 and at most the cap
    for (const Case& c : load_cases("invalid_transposed", 1, "")) {
        const InvalidCaseElements n = invalid_case_elements(c.deconv);
        for (const std::int64_t count : {n.src, n.weights, n.dst}) {
            EXPECT_GE(count, 1) << c.name;
            EXPECT_LE(count, InvalidCaseElements::kMaxElements) << c.name;
        }
    }
    // the valid base every case changes one field of: 7x7 outputs, no broken rule
    const TransposedDescriptor base = parse_transposed_descriptor("deconv:c=4,o=4,in=5x5,k=3x3");
    EXPECT_EQ(broken_rule(base), "");
    EXPECT_EQ(invalid_case_elements(base).dst, 4 * 7 * 7);
    // output padding at the stride is PyTorch's rule, not the descriptor's: valid, so not an invalid case
    EXPECT_THROW(expand("t", {SuiteEntry("deconv:c=4,o=4,in=5x5,k=3x3,s=2,op=2", "i")}, 1, ""), std::invalid_argument);
}

TEST(InvalidSuite, TheModeTakesInvalidDescriptorsOnly) {
    // an entry in mode invalid that breaks no rule is a mistake in the suite
    EXPECT_THROW(expand("t", {SuiteEntry("c=1,o=1,in=3,k=3", "i")}, 1, ""), std::invalid_argument);
    // an invalid descriptor in any other mode is refused with the rule (exit 2 on the command line)
    EXPECT_THROW(expand("t", {SuiteEntry("c=1,o=1,in=2,k=3", "b")}, 1, ""), ConvError);
    // --mode filters: a valid entry has no invalid case, an invalid entry no case in another mode
    EXPECT_TRUE(expand("t", {SuiteEntry("c=1,o=1,in=3,k=3")}, 1, "invalid").empty());
    EXPECT_TRUE(load_suite("invalid", 1, "").cases.size() > 0);
    EXPECT_THROW(load_suite("invalid", 1, "bound"), std::invalid_argument);  // holds no cases
    // --case with --mode invalid: the reproducer's path
    const auto cli = expand("cli", {SuiteEntry("conv:c=3,o=4,g=2,in=6x6,k=3x3")}, 5, "invalid");
    ASSERT_EQ(cli.size(), 1u);
    EXPECT_EQ(cli[0].mode, accuracy::Mode::invalid);
    EXPECT_EQ(cli[0].conv.groups, 2);
}

TEST(InvalidSuite, BuffersHaveSafeSizes) {
    auto elements = [](const std::string& text) { return invalid_case_elements(parse_descriptor_unvalidated(text)); };
    // an empty output axis counts one output (XNNPACK's doz, oneDNN's truncating division)
    auto e = elements("n=2,c=4,o=5,in=2x6,k=3x3,bias=1");
    EXPECT_EQ(e.src, 2 * 4 * 2 * 6);
    EXPECT_EQ(e.weights, 5 * 4 * 3 * 3);
    EXPECT_EQ(e.bias, 5);
    EXPECT_EQ(e.dst, 2 * 5 * 1 * 4);
    // zero counts as one; groups that do not divide round C/G up; groups 0 count as 1
    e = elements("n=0,c=3,o=0,g=2,in=4x4,k=3x3");
    EXPECT_EQ(e.src, 1 * 3 * 16);
    EXPECT_EQ(e.weights, 1 * 2 * 9);
    EXPECT_EQ(e.dst, 1 * 1 * 2 * 2);
    EXPECT_EQ(elements("c=4,o=4,g=0,in=6x6,k=3x3").weights, 4 * 4 * 9);
    // a stride or dilation below 1: as many outputs as the padded input has elements
    EXPECT_EQ(elements("c=1,o=1,in=6x6,k=3x3,s=0x1,pb=1x0,pe=1x0").dst, 8 * 4);
    EXPECT_EQ(elements("c=1,o=1,in=6x6,k=3x3,d=-1x1").dst, 6 * 4);
    // counts whose product overflows are capped
    e = elements("n=8589934592,c=2147483648,o=4,in=1x1,k=1x1");
    EXPECT_EQ(e.src, InvalidCaseElements::kMaxElements);
    EXPECT_EQ(e.dst, InvalidCaseElements::kMaxElements);
}

CaseResult run_one(const std::string& mutant, const std::string& descriptor) {
    auto s = open_backend("mutants", {"mutant=" + mutant}, 0, "none", 10.0);
    return check_case(s->backend, expand("t", {SuiteEntry(descriptor, "i")}, 1, "").front(), CheckSettings{});
}

TEST(InvalidMode, ARefusalPasses) {
    const CaseResult r = run_one("none", "c=3,o=4,g=2,in=6x6,k=3x3");
    EXPECT_EQ(r.status, Status::passed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "");
    EXPECT_NE(r.reason.find("refused (query: unsupported)"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("must be divisible by groups = 2"), std::string::npos) << r.reason;
    // the reference plugin refuses by returning an error from query: a refusal too
    auto ref = open_backend("reference", {}, 0, "none", 10.0);
    const CaseResult q = check_case(ref->backend, expand("t", {SuiteEntry("c=4,o=4,in=2x6,k=3x3", "i")}, 1, "").front(),
                                    CheckSettings{});
    EXPECT_EQ(q.status, Status::passed) << q.reason;
    // the refusal carries the plugin's ABI 1.2 error code
    EXPECT_NE(q.reason.find("refused (query (invalid_argument): "), std::string::npos) << q.reason;
}

TEST(InvalidMode, ABackendThatComputesTheCaseFailsNamingTheRule) {
    const CaseResult r = run_one("invalid_accepted", "c=4,o=4,in=2x6,k=3x3,s=2x1");
    EXPECT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "accepted_invalid");
    EXPECT_NE(r.reason.find("accepted an invalid case: kernel_size (k)[0] (h) = 3: the dilated kernel extent"),
              std::string::npos)
        << r.reason;
    // the mutant computes (2 - 3) / 2 + 1 = 1 output row (C division, as oneDNN's) of 4, in 4 channels:
    // every output of the buffer written
    EXPECT_NE(r.reason.find("writing 16 of the 16 outputs its buffer holds"), std::string::npos) << r.reason;
    EXPECT_NE(r.reproducer.find("--case 'conv:n=1,c=4,o=4,g=1,in=2x6,k=3x3,s=2x1,"), std::string::npos) << r.reproducer;
    EXPECT_NE(r.reproducer.find("--mode invalid"), std::string::npos) << r.reproducer;
}

TEST(InvalidMode, AnExpectedAcceptanceIsAnExpectedFailure) {
    auto s = open_backend("mutants", {"mutant=invalid_accepted"}, 0, "none", 10.0);
    const Expectations x = Expectations::parse(
        R"({"backends": {"mutants": {"expected_failures": [{"match": {"mode": "invalid", "g": "2"},
            "reason": "computes c=3 with g=2"}]}}})",
        "test");
    Backend b = s->backend;
    b.expectations = &x;
    const CaseResult r = check_case(b, expand("t", {SuiteEntry("c=3,o=4,g=2,in=6x6,k=3x3", "i")}, 1, "").front(),
                                    CheckSettings{});
    EXPECT_EQ(r.status, Status::xfail) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "accepted_invalid");
}

}  // namespace
