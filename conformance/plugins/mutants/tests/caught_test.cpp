// The validator's self-test, over THE list of mutants (mutants.def): the smoke suite (or the suite a
// bug's caught_in names: invalid, strides; the backward and transposed suites as well as smoke) catches every bug
// in the check meant to catch it,
// on several seeds (the designed cases catch deterministically, not by luck of the data); the baseline
// passes it; the honest variants (correct code computed another way) pass every designed suite that holds a case
// they compute differently, on seeds 1-10, the full sweep and the strides suite on seed 1 and the backward and
// transposed suites on seeds 1-3.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "convcheck/mutant_list/mutants.hpp"
#include "convcheck/runner/selftest.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;
using MutantKind = mutants::Kind;

namespace {

// `only`: run the suite's cases of these operations alone (empty: every case)
std::vector<CaseResult> run_suite(const std::string& mutant, const std::string& suite, std::uint64_t seed,
                                  const std::string& mode, bool fail_fast, Determinism determinism = {},
                                  const std::vector<Op>& only = {}) {
    auto session = open_backend("mutants", {"mutant=" + mutant}, 0, "none", 10.0);
    RunSettings settings;
    settings.shrink = false;
    settings.fail_fast = fail_fast;
    settings.check.determinism = determinism;
    std::vector<Case> cases = load_cases(suite, seed, mode);
    if (!only.empty())
        std::erase_if(cases, [&](const Case& c) { return std::find(only.begin(), only.end(), c.op) == only.end(); });
    return run_cases(session->backend, cases, settings);
}

// The operations a bug meant for the backward or transposed suite breaks (the cases it can fail); empty otherwise.
std::vector<Op> ops_of(const std::string& caught) {
    if (caught == "backward") return {Op::conv_bwd_data, Op::conv_bwd_weights};
    if (caught == "transposed") return {Op::conv_transposed};
    return {};
}

std::vector<std::string> names_of(MutantKind kind) {
    std::vector<std::string> names;
    for (const auto& m : mutants::kMutants)
        if (m.kind == kind) names.emplace_back(m.name);
    return names;
}

// The bugs smoke (or the invalid suite) must catch: all but those meant for the large suite, whose
// cases (GiBs each) conformance_large_mutants runs.
std::vector<std::string> smoke_bugs() {
    std::vector<std::string> names;
    for (const auto& m : mutants::kMutants)
        if (m.kind == MutantKind::bug && m.caught_in != "large") names.emplace_back(m.name);
    return names;
}

const mutants::MutantInfo& info(const std::string& name) {
    for (const auto& m : mutants::kMutants)
        if (m.name == name) return m;
    throw std::invalid_argument("no mutant " + name);
}

TEST(Mutants, TheListHasFortyBugsAndHonestVariants) {
    EXPECT_GE(names_of(MutantKind::bug).size(), 40u);
    EXPECT_GE(names_of(MutantKind::honest).size(), 4u);
    for (const auto& m : mutants::kMutants) {
        const std::string caught(m.caught_in);
        if (m.kind == MutantKind::bug)
            EXPECT_TRUE(caught == "exact" || caught == "bound" || caught == "probe" || caught == "crash" ||
                        caught == "invalid" || caught == "determinism" || caught == "large" ||
                        caught == "strides" || caught == "backward" || caught == "transposed")
                << m.name;
        else EXPECT_EQ(caught, "-") << m.name;
    }
}

TEST(Mutants, BaselinePassesTheSmokeSuite) {
    for (const CaseResult& r : run_suite("none", "smoke", 1, "", false))
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  reproducer: " << r.reproducer;
}

// The baseline passes every case of the strides suite: it claims every tensor strided and OXI.
TEST(Mutants, BaselinePassesTheStridesSuite) {
    const auto results = run_suite("none", "strides", 1, "", false);
    EXPECT_GE(results.size(), 40u);
    for (const CaseResult& r : results)
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  reproducer: " << r.reproducer;
}

// The baseline computes both backward passes: it passes every case of the backward suite.
TEST(Mutants, BaselinePassesTheBackwardSuite) {
    const auto results = run_suite("none", "backward", 1, "", false);
    std::size_t modes = 0;  // each entry once per mode letter
    for (const SuiteEntry& e : builtin_suite_entries("backward")) modes += e.modes.size();
    EXPECT_EQ(results.size(), modes);
    for (const CaseResult& r : results)
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  reproducer: " << r.reproducer;
}

// The baseline computes transposed convolution: it passes every case of the transposed suite.
TEST(Mutants, BaselinePassesTheTransposedSuite) {
    const auto results = run_suite("none", "transposed", 1, "", false);
    EXPECT_EQ(results.size(), expand("t", builtin_suite_entries("transposed"), 1, "").size());  // exact, bound, five in probe mode
    for (const CaseResult& r : results)
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  reproducer: " << r.reproducer;
}

// A bug meant for the transposed suite touches transposed convolution only: every other case of smoke and
// every backward case passes.
TEST(Mutants, TransposedBugsPassEveryOtherCase) {
    int transposed = 0;
    for (const auto& m : mutants::kMutants) {
        if (m.caught_in != "transposed") continue;
        ++transposed;
        for (const char* suite : {"smoke", "backward"})
            for (const CaseResult& r : run_suite(std::string(m.name), suite, 1, "", false)) {
                if (r.c.op == Op::conv_transposed) continue;
                EXPECT_EQ(r.status, Status::passed) << m.name << " " << r.c.id << ": " << r.reason;
            }
    }
    EXPECT_GE(transposed, 4);
}

// A bug meant for the backward suite is a bug of a backward pass only: every forward case of smoke passes.
TEST(Mutants, BackwardBugsPassEveryForwardCase) {
    int backward = 0;
    for (const auto& m : mutants::kMutants) {
        if (m.caught_in != "backward") continue;
        ++backward;
        for (const CaseResult& r : run_suite(std::string(m.name), "smoke", 1, "", false)) {
            if (r.c.op == Op::conv_bwd_data || r.c.op == Op::conv_bwd_weights) continue;
            EXPECT_EQ(r.status, Status::passed) << m.name << " " << r.c.id << ": " << r.reason;
        }
    }
    EXPECT_GE(backward, 14);
}

// The baseline refuses every case of the invalid suite (query: unsupported), and the refusal passes.
TEST(Mutants, BaselineRefusesTheInvalidSuite) {
    const auto results = run_suite("none", "invalid", 1, "", false);
    EXPECT_EQ(results.size(), builtin_suite_entries("invalid").size());
    for (const CaseResult& r : results) {
        EXPECT_EQ(r.status, Status::passed) << r.c.id << ": " << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_NE(r.reason.find("refused (query: unsupported): invalid descriptor"), std::string::npos) << r.reason;
    }
}

class Caught : public ::testing::TestWithParam<std::string> {};

// The mode meant to catch the bug catches it on every seed tried: some smoke case in that mode fails
// (or, for "crash", crashes; for "determinism", fails as nondeterministic in determinism mode); for
// "invalid", a case of the invalid suite fails as accepted_invalid; for "strides", a case of the strides
// suite fails. A bug of the backward passes or of transposed convolution fails a smoke case of the
// operation it breaks on every seed (smoke catches every bug class in every pass), and a case of its own
// suite (backward, transposed) on seed 1.
TEST_P(Caught, BySmokeInItsMode) {
    const std::string mutant = GetParam();
    const std::string caught(info(mutant).caught_in);
    const bool determinism = caught == "determinism";
    const std::vector<Op> ops = ops_of(caught);
    std::vector<std::pair<std::string, std::uint64_t>> runs{{"smoke", 1}, {"smoke", 2}, {"smoke", 3}};
    if (caught == "invalid" || caught == "strides") runs = {{caught, 1}, {caught, 2}, {caught, 3}};  // suites smoke leaves to them
    if (!ops.empty()) runs.emplace_back(caught, 1);
    for (const auto& [suite, seed] : runs) {
        const bool own_suite = caught == "invalid" || caught == "strides" || !ops.empty();
        const auto results = run_suite(mutant, suite, seed, caught == "crash" || determinism || own_suite ? "" : caught, true,
                                       determinism ? kSelftestDeterminism : Determinism{}, ops);
        ASSERT_FALSE(results.empty());
        const CaseResult& last = results.back();
        const bool killed = caught == "crash"  ? last.status == Status::crashed
                            : determinism      ? last.status == Status::failed && last.kind == Kind::nondeterministic
                                               : last.status == Status::failed || last.status == Status::crashed;
        ASSERT_TRUE(killed) << "mutant " << mutant << " survived the " << suite << " suite's " << caught << " check on seed "
                            << seed << " (" << results.size() << " cases)";
        // The checks that exist for exactly these bugs must be the ones that catch them.
        if (mutant == "window_overread") {
            EXPECT_NE(last.reason.find("outside its receptive field got NaN"), std::string::npos) << last.reason;
        }
        if (mutant == "wrong_output_size") {
            EXPECT_NE(last.reason.find("write past the end of the output dst"), std::string::npos) << last.reason;
        }
        if (mutant == "border_tap") {
            ASSERT_TRUE(last.error.has_value()) << last.reason;
            EXPECT_GT(last.error->border_mismatches, 0) << last.reason;
            EXPECT_EQ(last.error->interior_mismatches, 0) << last.reason;
        }
        if (mutant == "invalid_accepted") {
            EXPECT_EQ(last.kind, Kind::accepted_invalid) << last.reason;
            EXPECT_NE(last.reason.find("must be a positive integer"), std::string::npos) << last.reason;  // the rule
        }
        if (mutant == "dst_gaps_written") {
            EXPECT_EQ(last.kind, Kind::gaps_written) << last.reason;
        }
        if (mutant == "oxi_read_as_oix") {
            EXPECT_EQ(last.c.conv.filter_format, FilterFormat::oxi) << last.reproducer;
        }
        // a backward bug fails a case of its own pass, in the gradient it breaks
        if (caught == "backward") {
            const bool data = mutant.starts_with("bwd_data");
            EXPECT_EQ(last.c.op, data ? Op::conv_bwd_data : Op::conv_bwd_weights) << last.reproducer;
            const char* gradient = data ? "first diff_src[" : mutant.starts_with("bwd_bias") ? "first diff_bias[" : "first diff_weights[";
            EXPECT_NE(last.reason.find(gradient), std::string::npos) << last.reason;
        }
        // a transposed bug fails a transposed case, in an output it moves
        if (caught == "transposed") {
            EXPECT_EQ(last.c.op, Op::conv_transposed) << last.reproducer;
            EXPECT_NE(last.reason.find(" outputs "), std::string::npos) << last.reason;
            EXPECT_NE(last.reason.find("first dst["), std::string::npos) << last.reason;
        }
        // a bug that skips an exact zero is right on every finite input: only probe mode sees it, as a NaN
        // that the zero's term must carry missing (NaN * 0 is NaN)
        if ((mutant.starts_with("zero_") || mutant.find("_zero_") != std::string::npos) && mutant.ends_with("_skipped")) {
            EXPECT_EQ(last.c.mode, accuracy::Mode::probe) << last.reproducer;
            EXPECT_NE(last.reason.find("did not (first "), std::string::npos) << last.reason;
        }
        // a dropped channel tail fails a case with more than 8 channels in the reduction it breaks
        if (mutant == "bwd_data_out_tail_dropped_8") {
            EXPECT_GT(last.c.conv.out_channels_per_group(), 8) << last.reproducer;
        }
        if (mutant == "bwd_weights_in_tail_dropped_8") {
            EXPECT_GT(last.c.conv.in_channels_per_group(), 8) << last.reproducer;
        }
        // only bound mode sees accumulation in the storage type: exact mode's sums are exact in it too
        if (mutant == "bwd_weights_half_accumulation") {
            EXPECT_EQ(last.c.mode, accuracy::Mode::bound) << last.reproducer;
            EXPECT_NE(last.c.conv.dtype, DataType::f32) << last.reproducer;
        }
        // a quantized bug fails a quantized case, judged by the rule the plugin declares (exactly, or in bound mode
        // beside TOSA's window); a bug of the general output (post-ops) in bound mode, the steps of oneDNN's formula
        if (mutant.starts_with("q_")) {
            EXPECT_EQ(last.c.op, Op::conv_quantized) << last.reproducer;
            const char* rule = mutant == "q_zero_point_after_rounding"        ? "declared nearest_even_f32_with_zero_point"
                               : mutant == "q_dst_zero_point_before_post_ops" ? "/ dsc"
                                                                              : "declared double_rounding";
            EXPECT_NE(last.reason.find(rule), std::string::npos) << last.reason;
        }
        // a bug of the float post-ops fails a float case with a chain, in exact mode (the chain's exact result); a NaN
        // handled otherwise than declared, in probe mode, as a NaN missing where the declared policy keeps it; relu's
        // zero of another sign than declared, in probe mode, as a zero of the other sign
        if (mutant.starts_with("po_")) {
            EXPECT_EQ(last.c.op, Op::conv) << last.reproducer;
            EXPECT_FALSE(last.c.conv.post_ops.empty()) << last.reproducer;
            const bool nan = mutant.find("_nan_") != std::string::npos, zero = mutant.ends_with("_plus_zero");
            EXPECT_EQ(last.c.mode, nan || zero ? accuracy::Mode::probe : accuracy::Mode::exact) << last.reproducer;
            if (nan) {
                EXPECT_NE(last.reason.find("where the post-ops keep it"), std::string::npos) << last.reason;
            }
            if (zero) {
                EXPECT_NE(last.reason.find("a zero of the other sign (relu's zero as post_op_signed_zero declares it "
                                           "(relu minus_zero)"), std::string::npos) << last.reason;
            }
        }
        // a bug of a float case's scales fails a float case with scales, in exact mode (the scaled exact result)
        if (mutant.starts_with("sc_")) {
            EXPECT_EQ(last.c.op, Op::conv) << last.reproducer;
            EXPECT_TRUE(last.c.conv.scales.present()) << last.reproducer;
            EXPECT_EQ(last.c.mode, accuracy::Mode::exact) << last.reproducer;
        }
        if (mutant == "bf16_truncation") {
            EXPECT_EQ(last.c.conv.dtype, DataType::bf16) << last.reproducer;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Every, Caught, ::testing::ValuesIn(smoke_bugs()),
                         [](const auto& info) { return info.param; });

// A bug meant for the large suite is a bug of large indices only: every smoke case passes (its offsets
// stay below 2^31), so only the large suite can catch it (conformance_large_mutants shows it does).
TEST(Mutants, LargeIndexBugsPassTheSmokeSuite) {
    int large = 0;
    for (const auto& m : mutants::kMutants) {
        if (m.caught_in != "large") continue;
        ++large;
        for (const CaseResult& r : run_suite(std::string(m.name), "smoke", 1, "", false))
            EXPECT_EQ(r.status, Status::passed) << m.name << " " << r.c.id << ": " << r.reason;
    }
    EXPECT_GE(large, 2);
}

class Honest : public ::testing::TestWithParam<std::string> {};

// The operations an honest variant computes differently from the baseline, read off the mutants plugin: the
// arithmetic variants change the sums of mutants_conv.cpp and mutants_backward.cpp, which the transposed
// convolution reuses (mutants_transposed.cpp passes an honest variant on); honest_cc_f32 changes mutants_cc.cpp and
// mutants_cc_backward.cpp; honest_workspace_pool changes the forward plan (mutants_plugin.cpp) only, whose workspace
// the quantized convolution's plan reports too (computing outside it); honest_s16_pairs the quantized convolution
// (mutants_quantized.cpp) and the accumulator it declares. Every other
// case it computes exactly as the baseline (mutant=none) does, so running it there proves nothing the baseline's
// own runs do not.
std::vector<Op> changed_ops(const std::string& variant) {
    if (variant == "honest_reverse_order" || variant == "honest_blocked_sums" || variant == "honest_fma" ||
        variant == "honest_f64_accumulation")
        return {Op::conv, Op::conv_bwd_data, Op::conv_bwd_weights, Op::conv_transposed};
    if (variant == "honest_cc_f32") return {Op::cc, Op::cc_backward};
    if (variant == "honest_workspace_pool") return {Op::conv, Op::conv_quantized};
    if (variant == "honest_s16_pairs") return {Op::conv_quantized};
    return {};
}

// A new honest variant must say what it changes, or the test below would run it through nothing.
TEST(Mutants, EveryHonestVariantNamesTheOperationsItChanges) {
    for (const std::string& variant : names_of(MutantKind::honest)) EXPECT_FALSE(changed_ops(variant).empty()) << variant;
}

// Correct code computed another way passes: another summation order, f64 accumulation, FMA, f32 CC. Each suite
// holding a case of an operation the variant changes runs its cases of those operations as designed (smoke, edge, cc
// and pairwise on seeds 1-10, full and strides on seed 1, backward and transposed on seeds 1-3); its other cases, and
// a suite of only other operations, are left out (the variant computes them as the baseline does: e.g. the quantized
// cases of smoke and pairwise for the conv variants, a third of their time; edge, full and the rest for honest_cc_f32).
TEST_P(Honest, PassesEverySuiteOnSeedsOneToTen) {
    const std::string variant = GetParam();
    const std::vector<Op> changed = changed_ops(variant);
    auto check = [&](const std::string& suite, std::uint64_t seed) {
        for (const CaseResult& r : run_suite(variant, suite, seed, "", false, {}, changed))
            EXPECT_EQ(r.status, Status::passed) << variant << " " << r.c.id << " seed " << seed << ": " << r.reason
                                                << "\n  reproducer: " << r.reproducer;
    };
    auto seeds = [&](const std::string& suite, std::uint64_t last) {
        const std::vector<Case> cases = load_cases(suite, 1, "");
        const bool differs = std::any_of(cases.begin(), cases.end(), [&](const Case& c) {
            return std::find(changed.begin(), changed.end(), c.op) != changed.end();
        });
        if (differs)
            for (std::uint64_t seed = 1; seed <= last; ++seed) check(suite, seed);
        return differs;
    };
    int suites = 0;
    for (const char* suite : {"smoke", "edge", "cc", "pairwise"}) suites += seeds(suite, 10);
    suites += seeds("full", 1) + seeds("strides", 1) + seeds("backward", 3) + seeds("transposed", 3);
    EXPECT_GE(suites, 2) << variant;
}

INSTANTIATE_TEST_SUITE_P(Every, Honest, ::testing::ValuesIn(names_of(MutantKind::honest)),
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

// A special fill's reproducer names it, so that the one-line reproducer reruns the same data.
TEST(Mutants, SpecialFillReproducersNameTheFill) {
    const auto results = run_suite("ties_away", "smoke", 1, "exact", true);
    ASSERT_FALSE(results.empty());
    EXPECT_EQ(results.back().c.fill, accuracy::Fill::ties) << results.back().c.id;
    EXPECT_NE(results.back().reproducer.find("--fill ties"), std::string::npos) << results.back().reproducer;
}

}  // namespace
