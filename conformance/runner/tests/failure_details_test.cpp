// A failure says where and by how much, and its counts agree (issue 16): a probe-mode failure names
// its worst output (coordinates, got, want, bound) in the reason and the JSON, and every count says
// what it counts (one probe run, or summed over the runs: the same number in the reason and in
// error.mismatches); CC failures split their outputs into those whose window reaches the border
// and the others; CC failures shrink to a small cc: reproducer (and do not with shrinking off).
#include <gtest/gtest.h>

#include <regex>
#include <utility>

#include "convcheck/runner/cc_window_margin.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/shrink_cc.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

Case one_case(const std::string& descriptor, const std::string& mode) {
    return expand("details", {SuiteEntry(descriptor)}, 1, mode).front();
}

CaseResult run_one(const std::string& mutant, const std::string& descriptor, const std::string& mode) {
    auto s = open_backend("mutants", {"mutant=" + mutant}, 0, "none", 10.0);
    return check_case(s->backend, one_case(descriptor, mode), CheckSettings{});
}

// The summed counts the reason states: "summed over the N probe runs (...): M of E outputs wrong (L NaN
// outside the receptive field, I no NaN inside it, O over the error bound; B at the border, J inside)".
struct StatedTotals {
    long long runs = -1, mismatches = -1, elements = -1, leaked = -1, missing = -1, over = -1, border = -1, inside = -1;
};
StatedTotals stated_totals(const std::string& reason) {
    static const std::regex totals(
        "summed over the ([0-9]+) probe runs \\([^)]*\\): ([0-9]+) of ([0-9]+) outputs wrong \\(([0-9]+) NaN outside "
        "the receptive field, ([0-9]+) no NaN inside it, ([0-9]+) over the error bound; ([0-9]+) at the border, "
        "([0-9]+) inside\\)");
    std::smatch m;
    StatedTotals t;
    if (!std::regex_search(reason, m, totals)) return t;
    long long* fields[] = {&t.runs, &t.mismatches, &t.elements, &t.leaked, &t.missing, &t.over, &t.border, &t.inside};
    for (int i = 0; i < 8; ++i) *fields[i] = std::stoll(m[i + 1].str());
    return t;
}

// The reason's counts and the JSON's are the same numbers, and the parts add up to the whole.
void expect_consistent_probe_counts(const CaseResult& r) {
    ASSERT_TRUE(r.error.has_value()) << r.reason;
    const nlohmann::json e = case_record(r, "mutants").at("error");
    const StatedTotals t = stated_totals(r.reason);
    ASSERT_GE(t.runs, 1) << "the reason states no summed counts: " << r.reason;
    ASSERT_TRUE(e.contains("probe")) << e.dump();
    const nlohmann::json& p = e["probe"];
    EXPECT_EQ(p["runs"].get<long long>(), t.runs) << r.reason;
    EXPECT_EQ(p["src_elements"].size(), static_cast<std::size_t>(t.runs)) << r.reason;
    EXPECT_EQ(e["mismatches"].get<long long>(), t.mismatches) << r.reason;
    EXPECT_EQ(e["elements"].get<long long>(), t.elements) << r.reason;
    EXPECT_EQ(p["leaked"].get<long long>(), t.leaked) << r.reason;
    EXPECT_EQ(p["missing"].get<long long>(), t.missing) << r.reason;
    EXPECT_EQ(p["over_bound"].get<long long>(), t.over) << r.reason;
    EXPECT_EQ(t.leaked + t.missing + t.over, t.mismatches) << r.reason;
    EXPECT_EQ(e["border_mismatches"].get<long long>(), t.border) << r.reason;
    EXPECT_EQ(e["interior_mismatches"].get<long long>(), t.inside) << r.reason;
    EXPECT_EQ(t.border + t.inside, t.mismatches) << r.reason;
}

const char* kConv = "conv:n=1,c=3,o=4,in=7x6,k=3x2,pb=1x0,pe=1x1,bias=1";

TEST(FailureDetails, AProbeBoundFailureNamesItsWorstOutputInTheReasonAndTheJson) {
    const CaseResult r = run_one("bias_dropped", kConv, "probe");
    ASSERT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "mismatch") << r.reason;
    expect_consistent_probe_counts(r);
    const nlohmann::json e = case_record(r, "mutants").at("error");
    const nlohmann::json& worst = e["worst"];
    ASSERT_EQ(worst["index"].size(), 4u) << e.dump();  // [n, c, y, x]
    ASSERT_TRUE(worst["got"].is_number() && worst["want"].is_number() && worst["bound"].is_number()) << e.dump();
    EXPECT_GT(e["max_bound_fraction"].get<double>(), 1.0) << e.dump();
    EXPECT_NE(e["probe"]["worst_src_element"], nullptr) << e.dump();
    std::string index = "[";
    for (std::size_t i = 0; i < worst["index"].size(); ++i) index += (i ? "," : "") + worst["index"][i].dump();
    index += "]";
    EXPECT_NE(r.reason.find("worst at " + index + " with the NaN at src element " +
                            e["probe"]["worst_src_element"].dump()),
              std::string::npos)
        << r.reason;
    EXPECT_NE(r.reason.find(", bound "), std::string::npos) << r.reason;
    EXPECT_GT(e["probe"]["over_bound"].get<long long>(), 0) << e.dump();
}

TEST(FailureDetails, AProbeLeakCountsTheSameInTheReasonAndTheJson) {
    const CaseResult r = run_one("window_overread", "conv:c=1,o=2,in=9,k=3,bias=1", "probe");
    ASSERT_EQ(r.status, Status::failed) << r.reason;
    EXPECT_STREQ(to_string(r.kind), "probe") << r.reason;
    EXPECT_NE(r.reason.find("outside its receptive field got NaN"), std::string::npos) << r.reason;
    expect_consistent_probe_counts(r);
    EXPECT_GT(r.error->probe->leaked, 0) << r.reason;
}

TEST(FailureDetails, ACcProbeFailureCountsTheSameWay) {
    const CaseResult r = run_one("cc_window_overread", "cc:n=1,cin=1,cout=2,in=7x6,scale=2/3,support=2x2,kernel=linear",
                                 "probe");
    ASSERT_EQ(r.status, Status::failed) << r.reason;
    expect_consistent_probe_counts(r);
    EXPECT_GT(r.error->probe->leaked, 0) << r.reason;
}

TEST(FailureDetails, APassingProbeCaseStillRecordsItsRunsAndWorstOutput) {
    const CaseResult r = run_one("none", kConv, "probe");
    ASSERT_EQ(r.status, Status::passed) << r.reason;
    ASSERT_TRUE(r.error && r.error->probe) << r.reason;
    EXPECT_EQ(r.error->probe->src_elements.size(), 3u);
    EXPECT_EQ(r.error->comparison.mismatches, 0);
    EXPECT_EQ(r.error->worst_coordinates.size(), 4u);
}

// A bound failure's record names its worst output by coordinates and says how far the bound would have to grow,
// for discrete convolution ([n, c, y, x]) and for CC ([n, c, y, x] of its output) alike (complete_error_report).
TEST(FailureDetails, ABoundFailureRecordsItsWorstOutputAndTheGrowthNeeded) {
    for (const auto& [mutant, descriptor] :
         {std::pair<const char*, const char*>{"bias_dropped", kConv},
          {"cc_bias_dropped", "cc:n=1,cin=2,cout=2,in=9x8,scale=2/3,support=3x3,kernel=linear,bias=1"}}) {
        const CaseResult r = run_one(mutant, descriptor, "bound");
        ASSERT_EQ(r.status, Status::failed) << r.reason;
        ASSERT_TRUE(r.error.has_value()) << r.reason;
        EXPECT_EQ(r.error->worst_coordinates.size(), 4u) << mutant << ": " << r.reason;
        ASSERT_TRUE(r.error->bound_growth_needed.has_value()) << mutant;
        EXPECT_EQ(*r.error->bound_growth_needed, r.error->comparison.max_bound_fraction) << mutant;
        const nlohmann::json e = case_record(r, "mutants").at("error");
        EXPECT_EQ(e["worst"]["index"].size(), 4u) << e.dump();
    }
}

// An edge pixel read where zero padding belongs is wrong only where the window reaches the border.
TEST(FailureDetails, CcFailuresSplitBorderFromInteriorOutputs) {
    const char* layer = "cc:n=1,cin=2,cout=2,in=9x8,scale=2/3,support=3x3,kernel=linear,bias=1";
    const CaseResult edge = run_one("cc_edge_replicate", layer, "bound");
    ASSERT_EQ(edge.status, Status::failed) << edge.reason;
    ASSERT_TRUE(edge.error.has_value());
    EXPECT_GT(edge.error->border_mismatches, 0) << edge.reason;
    EXPECT_EQ(edge.error->interior_mismatches, 0) << edge.reason;
    EXPECT_EQ(edge.error->border_mismatches, edge.error->comparison.mismatches) << edge.reason;
    EXPECT_NE(edge.reason.find("(" + std::to_string(edge.error->border_mismatches) +
                               " where the window reaches the border, 0 inside)"),
              std::string::npos)
        << edge.reason;
    const nlohmann::json e = case_record(edge, "mutants").at("error");
    EXPECT_EQ(e["border_mismatches"].get<long long>(), edge.error->border_mismatches);

    // a dropped bias is wrong everywhere: inside too
    const CaseResult bias = run_one("cc_bias_dropped", layer, "bound");
    ASSERT_EQ(bias.status, Status::failed) << bias.reason;
    EXPECT_GT(bias.error->interior_mismatches, 0) << bias.reason;
    EXPECT_EQ(bias.error->border_mismatches + bias.error->interior_mismatches, bias.error->comparison.mismatches);
}

TEST(FailureDetails, CcShrinkCandidatesAreValidSmallerAndNeverAmbiguous) {
    const CcDescriptor d = parse_cc_descriptor("cc:n=2,cin=3,cout=4,in=9x8,scale=2/3,out=5x6,support=3x3,kernel=net,bias=1");
    const auto candidates = smaller_cc_descriptors(d, accuracy::Mode::bound);
    ASSERT_FALSE(candidates.empty());
    for (const CcDescriptor& c : candidates) {
        EXPECT_NO_THROW(validate(c)) << to_string(c);
        EXPECT_FALSE(c == d);
        EXPECT_TRUE(c.src_elements() < d.src_elements() || c.dst_elements() < d.dst_elements() ||
                    c.neighbours() < d.neighbours() || c.theta_elements() < d.theta_elements() ||
                    (d.has_bias && !c.has_bias) || c.kernel != d.kernel || !(c.scale[0] == d.scale[0]) ||
                    !(c.scale[1] == d.scale[1]))
            << to_string(c);
    }
    // a real scale whose shrunk window would sit on an edge is not offered (cc_window_margin.hpp)
    for (const CcDescriptor& c :
         smaller_cc_descriptors(parse_cc_descriptor("cc:n=1,cin=1,cout=1,in=10x50,scale=1.1,support=2x2,kernel=linear"),
                                accuracy::Mode::probe))
        EXPECT_EQ(ambiguous_real_scale_window(c, accuracy::Mode::probe), "") << to_string(c);
}

TEST(FailureDetails, CcFailuresShrinkToASmallReproducer) {
    auto session = open_backend("mutants", {"mutant=cc_bias_dropped"}, 0, "none", 10.0);
    const auto cases =
        expand("t", {SuiteEntry("cc:n=2,cin=3,cout=4,in=9x8,scale=2/3,support=3x3,kernel=net,bias=1")}, 1, "bound");
    RunSettings settings;
    const auto results = run_cases(session->backend, cases, settings);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_EQ(results[0].shrunk_descriptor,
              "cc:n=1,cin=1,cout=1,in=1x1,scale=1x1,out=1x1,support=1x1,kernel=linear,bias=1,dt=f32")
        << results[0].shrunk_reproducer;
    EXPECT_NE(results[0].shrunk_reproducer.find("--case '" + results[0].shrunk_descriptor + "' --seed "),
              std::string::npos)
        << results[0].shrunk_reproducer;

    settings.shrink = false;  // --no-shrink
    const auto unshrunk = run_cases(session->backend, cases, settings);
    ASSERT_EQ(unshrunk.size(), 1u);
    EXPECT_EQ(unshrunk[0].status, Status::failed);
    EXPECT_EQ(unshrunk[0].shrunk_descriptor, "");
}

// A window bug keeps its failure while shrinking: the shrunk layer still fails in probe mode.
TEST(FailureDetails, ACcProbeFailureShrinksToAProbeFailure) {
    auto session = open_backend("mutants", {"mutant=cc_window_overread"}, 0, "none", 10.0);
    const auto cases = expand("t", {SuiteEntry("cc:n=1,cin=2,cout=3,in=9x8,scale=2/3,support=3x3,kernel=net,bias=1")},
                              1, "probe");
    const auto results = run_cases(session->backend, cases, RunSettings{});
    ASSERT_EQ(results.size(), 1u);
    ASSERT_EQ(results[0].status, Status::failed) << results[0].reason;
    ASSERT_NE(results[0].shrunk_descriptor, "") << results[0].reason;
    const CcDescriptor shrunk = parse_cc_descriptor(results[0].shrunk_descriptor);
    EXPECT_LT(shrunk.src_elements(), 9 * 8 * 2) << results[0].shrunk_descriptor;
    auto again = check_case(session->backend, one_case(results[0].shrunk_descriptor, "probe"), CheckSettings{});
    EXPECT_EQ(again.status, Status::failed) << results[0].shrunk_descriptor;
    EXPECT_STREQ(to_string(again.kind), "probe") << again.reason;
}

}  // namespace
