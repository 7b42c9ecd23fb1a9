// benchdnn batch files as a suite: the test cases convcheck runs become cases, the others skipped inputs
// with their reasons (never cases); their "skipped" records and the report grouped by reason; a caller
// that cannot report skips (load_cases) refuses the file instead of dropping them.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck::runner;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

// issue 18's reproducer (skipped for its post-op), then two setups of which one runs, then one skipped
const char* kFile =
    "--reset --dir=BWD_D --dt=bf16 --stag=nhwc --mb=1 --attr-post-ops=relu\n"
    "mb2ic4ih5oc4oh5kh3ph1n\"x\"\n"
    "--reset --dir=FWD_D,BWD_DW --dt=bf16 --stag=nhwc --mb=1\n"
    "mb2ic4ih5oc4oh5kh3ph1n\"y\"\n"
    "--reset --dir=BWD_DW ic4ih5oc4kh3n\"z\"\n";

TEST(SuiteBenchdnn, SkippedTestCasesAreReportedNeverRun) {
    const auto path = write_temp("batch_reproducer", kFile);
    const LoadedSuite loaded = load_suite(path, 1, "");
    ASSERT_EQ(loaded.cases.size(), 1u);
    EXPECT_EQ(loaded.cases[0].descriptor(),
              "conv:n=1,c=4,o=4,g=1,in=5x5,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=bf16,data=nxc,wei=oix");
    EXPECT_EQ(loaded.cases[0].name, "y");
    ASSERT_EQ(loaded.skipped.size(), 3u);
    const SkippedInput& first = loaded.skipped[0];
    EXPECT_EQ(first.suite, "batch_reproducer");
    EXPECT_EQ(first.source, path + ":2");
    EXPECT_EQ(first.input, "--dir=BWD_D --dt=bf16 --stag=nhwc --mb=1 --attr-post-ops=relu mb2ic4ih5oc4oh5kh3ph1n\"x\"");
    EXPECT_EQ(first.reason, "--attr-post-ops on --dir=BWD_D: oneDNN's post-ops apply to forward propagation only");

    const nlohmann::json record = skipped_record(first);
    EXPECT_EQ(record["record"], "skipped");
    EXPECT_EQ(record["suite"], "batch_reproducer");
    EXPECT_EQ(record["source"], first.source);
    EXPECT_EQ(record["input"], first.input);
    EXPECT_EQ(record["reason"], first.reason);

    const auto reasons = skip_reasons(loaded.skipped);  // most frequent first
    ASSERT_EQ(reasons.size(), 2u);
    EXPECT_EQ(reasons[0].first, "--dir=BWD_DW: backward data and weights in one call; convcheck runs each backward "
                                "pass on its own (BWD_D, BWD_W, BWD_WB)");
    EXPECT_EQ(reasons[0].second, 2);
    EXPECT_EQ(reasons[1].first, first.reason);
    EXPECT_EQ(reasons[1].second, 1);
}

// BWD_D, BWD_W and BWD_WB are cases of the backward passes (docs/passes.md), never forward ones.
TEST(SuiteBenchdnn, BackwardDirectionsAreCasesOfTheirPasses) {
    const LoadedSuite loaded =
        load_suite(write_temp("batch_backward", "--reset --dir=BWD_D,BWD_W,BWD_WB --mb=2 ic4ih5oc4kh3ph1n\"b\"\n"), 1, "");
    EXPECT_TRUE(loaded.skipped.empty());
    ASSERT_EQ(loaded.cases.size(), 3u);
    const char* base = "conv:n=2,c=4,o=4,g=1,in=5x5,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,";
    EXPECT_EQ(loaded.cases[0].descriptor(), std::string(base) + "bias=0,dt=f32,data=ncx,wei=oix,dir=bwd_d");
    EXPECT_EQ(loaded.cases[1].descriptor(), std::string(base) + "bias=0,dt=f32,data=ncx,wei=oix,dir=bwd_w");
    EXPECT_EQ(loaded.cases[2].descriptor(), std::string(base) + "bias=1,dt=f32,data=ncx,wei=oix,dir=bwd_w");
}

TEST(SuiteBenchdnn, TheReportGroupsByReasonWithCounts) {
    const LoadedSuite loaded = load_suite(write_temp("batch_report", kFile), 1, "");
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    print_skipped_inputs(out, loaded.skipped);
    std::fclose(out);
    const std::string report(text, size);
    std::free(text);
    EXPECT_NE(report.find("skipped 3 inputs"), std::string::npos) << report;
    EXPECT_NE(report.find("       2  --dir=BWD_DW: backward data and weights"), std::string::npos) << report;
    EXPECT_NE(report.find("       1  --attr-post-ops on --dir=BWD_D"), std::string::npos) << report;
}

TEST(SuiteBenchdnn, LoadCasesRefusesAFileWithSkipsInsteadOfDroppingThem) {
    const auto path = write_temp("batch_refused", kFile);
    try {
        load_cases(path, 1, "");
        ADD_FAILURE() << "skipped test cases were dropped silently";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("3 input(s) cannot be run exactly"), std::string::npos) << e.what();
    }
    // a plain shape file has nothing to skip
    EXPECT_EQ(load_cases(write_temp("shapes_plain", "ic4ih5oc4kh3\n"), 1, "").size(), 1u);
}

// issue 20: the driver is the caller's choice (benchdnn --deconv); the same file reads as deconv: cases under the
// deconv driver and as conv: cases under the default, never mixed.
TEST(SuiteBenchdnn, TheDeconvDriverMakesTransposedCasesAndSkipsTheBackwardDirections) {
    const auto path = write_temp("batch_deconv", "--dir=FWD_B,BWD_D oc3ic16_ow5iw5kw3pw1_n\"deconv_ci_1d:1st\"\n");
    SuiteReadOptions deconv;
    deconv.benchdnn_driver = convcheck::BenchdnnDriver::deconv;
    const LoadedSuite loaded = load_suite(path, 1, "", deconv);
    ASSERT_EQ(loaded.cases.size(), 1u);
    EXPECT_EQ(loaded.cases[0].op, Op::conv_transposed);
    EXPECT_EQ(loaded.cases[0].descriptor(),
              "deconv:n=2,c=16,o=3,g=1,in=5,k=3,s=1,d=1,pb=1,pe=1,op=0,bias=1,dt=f32,data=ncx,wei=oix");
    ASSERT_EQ(loaded.skipped.size(), 1u);
    EXPECT_NE(loaded.skipped[0].reason.find("--dir=BWD_D: the backward data pass of a transposed convolution"),
              std::string::npos);
    // on a source that is not a benchdnn file the option would be dropped unread: refused
    EXPECT_THROW(load_suite("smoke", 1, "", deconv), std::invalid_argument);
    EXPECT_THROW(load_suite(write_temp("list.cases", "c=1,o=1,in=3,k=1 b -\n"), 1, "", deconv), std::invalid_argument);
    const LoadedSuite as_conv = load_suite(path, 1, "");  // the default: benchdnn --conv
    ASSERT_EQ(as_conv.cases.size(), 2u);
    EXPECT_EQ(as_conv.cases[0].op, Op::conv);
    // the case's benchdnn line is the deconv driver's, and reads back as the same transposed convolution
    std::string why;
    EXPECT_EQ(operation(Op::conv_transposed).benchdnn(loaded.cases[0], &why),
              "--deconv --dir=FWD_B --dt=f32 --stag=abx --wtag=iow --dtag=abx ic16iw5oc3ow5kw3pw1")
        << why;
    Case grouped = loaded.cases[0];
    grouped.deconv = convcheck::parse_transposed_descriptor("deconv:n=1,c=4,o=6,g=2,in=5x5,k=3x3,s=2x2,pb=1,pe=1,op=1,wei=xio");
    EXPECT_EQ(operation(Op::conv_transposed).benchdnn(grouped, &why),
              "--deconv --dir=FWD_D --dt=f32 --stag=abx --wtag=any --dtag=abx g2mb1ic4ih5oc6oh10kh3sh2ph1")
        << why;
    grouped.deconv.pads_begin[0] = -1;  // benchdnn has no negative left pad
    EXPECT_EQ(operation(Op::conv_transposed).benchdnn(grouped, &why), "");
    EXPECT_NE(why.find("negative left pad"), std::string::npos) << why;
}

// The grammar is the caller's choice too (--benchdnn-version): current oneDNN's by default, where FWD_B on bf16 has an
// f32 bias (a mixed case, skipped), or v3.7.1's, where that bias is bf16. A bundle's line is current oneDNN's.
TEST(SuiteBenchdnn, TheBenchdnnVersionChoosesTheGrammar) {
    const auto path = write_temp("batch_bia_dt", "--dt=bf16 ic4ih5oc4kh3n\"v\"\n");
    const LoadedSuite current = load_suite(path, 1, "");  // FWD_B: benchdnn's f32 bias on bf16 data
    EXPECT_TRUE(current.skipped.empty());
    ASSERT_EQ(current.cases.size(), 1u);
    EXPECT_EQ(current.cases[0].descriptor(),
              "conv:n=2,c=4,o=4,g=1,in=5x5,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=1,dt=bf16,bdt=f32,data=ncx,wei=oix");
    SuiteReadOptions v371;
    v371.benchdnn_version = convcheck::BenchdnnVersion::v3_7_1;
    const LoadedSuite old = load_suite(path, 1, "", v371);
    ASSERT_EQ(old.cases.size(), 1u);
    EXPECT_EQ(old.cases[0].descriptor(),
              "conv:n=2,c=4,o=4,g=1,in=5x5,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=1,dt=bf16,data=ncx,wei=oix");
    EXPECT_THROW(load_suite("smoke", 1, "", v371), std::invalid_argument);
    // the bf16 bias is --bia-dt's in current oneDNN, with FWD_D (BWD_W for the bias gradient)
    std::string why;
    EXPECT_EQ(operation(Op::conv).benchdnn(old.cases[0], &why),
              "--conv --dir=FWD_D --dt=bf16 --bia-dt=bf16 --stag=abx --wtag=abx --dtag=abx ic4ih5oc4oh3kh3ph0")
        << why;
}

}  // namespace

// An int8 line is a qconv: case (formats/benchdnn_quantized.hpp): in exact mode where its scales let the declared
// rule be held bit for bit (dyadic src and weights scales, a power-of-two dst scale), else in bound mode.
TEST(SuiteBenchdnn, Int8LinesAreQuantizedCasesExactWhereTheirScalesAllow) {
    const auto path = write_temp("batch_int8",
                                 "--reset --dir=FWD_I --dt=u8:s8:u8 --attr-scales=src:common:0.25+wei:common:0.5+dst:common:2\n"
                                 "ic4ih5oc4kh3n\"dyadic\"\n"
                                 "--reset --dir=FWD_I --dt=u8:s8:u8 --attr-scales=src:common:0.1+dst:common:3\n"
                                 "ic4ih5oc4kh3n\"decimal\"\n");
    const LoadedSuite loaded = load_suite(path, 1, "");
    ASSERT_EQ(loaded.cases.size(), 2u);
    EXPECT_TRUE(loaded.skipped.empty());
    EXPECT_EQ(loaded.cases[0].op, Op::conv_quantized);
    EXPECT_EQ(loaded.cases[0].mode, convcheck::accuracy::Mode::exact);
    EXPECT_EQ(loaded.cases[0].qconv.src_scale, 0.25f);
    EXPECT_EQ(loaded.cases[0].name, "dyadic");
    EXPECT_EQ(loaded.cases[1].op, Op::conv_quantized);
    EXPECT_EQ(loaded.cases[1].mode, convcheck::accuracy::Mode::bound);
    EXPECT_EQ(loaded.cases[1].qconv.src_scale, 0.1f);
}
