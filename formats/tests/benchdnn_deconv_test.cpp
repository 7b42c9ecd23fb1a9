// benchdnn's deconv driver (issue 20): problem strings of oneDNN's tests/benchdnn/inputs/deconv against canonical
// transposed descriptors derived by hand from deconv/deconv_aux.cpp (v3.7.1), the deduction and error rules, the
// printed short form, and batch files read by the deconv driver (directions, options it lacks, its inputs folder).
#include <gtest/gtest.h>

#include <filesystem>

#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/formats/benchdnn_driver.hpp"

using namespace convcheck;

namespace {

const std::filesystem::path kData = CONVCHECK_BENCHDNN_TEST_DATA;

struct Line {
    const char* benchdnn;   // as written in oneDNN v3.7.1's tests/benchdnn/inputs/deconv/
    const char* canonical;  // derived by hand (comment), bias=1 from benchdnn's default --dir=FWD_B
};

// deconv_aux.cpp: K = (k-1)*(d+1)+1 with 0-based d; missing o = (i-1)*s + (k-1)*(d+1) - 2p + 1;
// missing p = ((i-1)*s - o + K)/2; right pad p_r = (i-1)*s - o + K - p (init_pad_r's opp_pad). The canonical
// descriptor's output (in-1)*s - pb - pe + K + op is then o with pb = p, pe = p_r, op = 0.
const std::vector<Line>& real_lines() {
    static const std::vector<Line> lines = {
        // shapes_2d alexnet:deconv1: p_r = 54*4 - 227 + 11 - 0 = 0 (as conv: (227-1)*4 - 55 + 11 = 860)
        {"g1mb256oc3oh227ow227ic96ih55iw55kh11kw11sh4sw4ph0pw0n\"alexnet:deconv1\"",
         "deconv:n=256,c=96,o=3,g=1,in=55x55,k=11x11,s=4x4,pb=0,pe=0,bias=1"},
        // shapes_2d alexnet:deconv2: square, p_r = 26 - 27 + 5 - 2 = 2
        {"g2mb256oc96oh27ic256ih27kh5ph2n\"alexnet:deconv2\"",
         "deconv:n=256,c=256,o=96,g=2,in=27x27,k=5x5,pb=2,pe=2,bias=1"},
        // shapes_2d googlenet_v1:conv1/7x7_s2: p_r = 111*2 - 224 + 7 - 3 = 2
        {"g1mb96ic64ih112iw112oc3oh224ow224kh7kw7sh2sw2ph3pw3n\"googlenet_v1:conv1/7x7_s2\"",
         "deconv:n=96,c=64,o=3,in=112x112,k=7x7,s=2x2,pb=3,pe=2,bias=1"},
        // shapes_2d resnet_50:res3a_branch1: p_r = 27*2 - 56 + 1 - 0 = -1, a negative right pad (-1 + 2 > 0)
        {"g1mb50_oc512oh56ow56_ic256ih28iw28_kh1kw1sh2sw2ph0pw0n\"resnet_50:res3a_branch1\"",
         "deconv:n=50,c=256,o=512,in=28x28,k=1x1,s=2x2,pb=0,pe=-1,bias=1"},
        // shapes_2d masknet_p1:deconv1: p_r = 511*2 - 1030 + 7 - 0 = -1
        {"mb1_g1oc3ic64_oh1030ih512kh7sh2dh0ph0_ow1030iw512kw7sw2dw0pw0_n\"masknet_p1:deconv1\"",
         "deconv:n=1,c=64,o=3,in=512x512,k=7x7,s=2x2,pb=0,pe=-1,bias=1"},
        // shapes_1d deconv1d:1: dw2 -> K = 2*3+1 = 7, p_r = 4 - 2 + 7 - 3 = 6 (the pads crop 5 -> 2 outputs)
        {"ic8iw5oc8ow2kw3pw3dw2n\"deconv1d:1\"", "deconv:n=2,c=8,o=8,in=5,k=3,d=3,pb=3,pe=6,bias=1"},
        // shapes_1d deconv2d:2: h: K = 7, p_r = 4 - 2 + 7 - 3 = 6; w: p_r = 0 - 1 + 1 - 0 = 0
        {"ic8ih5iw1oc8oh2ow1kh3kw1ph3pw0dh2dw0n\"deconv2d:2\"",
         "deconv:n=2,c=8,o=8,in=5x1,k=3x1,d=3x1,pb=3x0,pe=6x0,bias=1"},
        // shapes_3d unet_3d:deconv8: d: p_r = 7 - 10 + 3 - 0 = 0; h, w: 8 - 11 + 3 - 0 = 0
        {"g1mb1ic512ih9iw9id8oc256oh11ow11od10kh3kw3kd3sh1sw1sd1ph0pw0dh0dw0n\"unet_3d:deconv8\"",
         "deconv:n=1,c=512,o=256,in=8x9x9,k=3x3x3,bias=1"},
        // shapes_dilated alexnet:dilated_deconv4: dh2 -> K = 7, p_r = 8 - 13 + 7 - 1 = 1
        {"g2mb256oc384oh13ic384ih9kh3ph1dh2n\"alexnet:dilated_deconv4\"",
         "deconv:n=256,c=384,o=384,g=2,in=9x9,k=3x3,d=3x3,pb=1,pe=1,bias=1"},
        // shapes_ci deconv_ci_1d:1st: p_r = 4 - 5 + 3 - 1 = 1
        {"oc3ic16_ow5iw5kw3pw1_n\"deconv_ci_1d:1st\"", "deconv:n=2,c=16,o=3,in=5,k=3,pb=1,pe=1,bias=1"},
        // shapes_ci deconv_ci_2d:ic_tail_gemm: p_r = 7 - 5 + 3 - 3 = 2 (the conv driver refuses it: 4 - 8 + 3 - 3 = -4)
        {"g1oc16ic17_oh5ih8kh3ph3_n\"deconv_ci_2d:ic_tail_gemm\"",
         "deconv:n=2,c=17,o=16,in=8x8,k=3x3,pb=3,pe=2,bias=1"},
        // shapes_ci deconv_ci_3d:tail_depthwise: cubic, p_r = 4 - 5 + 3 - 1 = 1
        {"g17oc17ic17_od5id5kd3pd1_n\"deconv_ci_3d:tail_depthwise\"",
         "deconv:n=2,c=17,o=17,g=17,in=5x5x5,k=3x3x3,pb=1,pe=1,bias=1"},
    };
    return lines;
}

TEST(BenchdnnDeconv, RealLinesGiveTheHandDerivedDescriptors) {
    for (const Line& line : real_lines()) {
        SCOPED_TRACE(line.benchdnn);
        const BenchdnnDeconvProblem p = parse_benchdnn_deconv(line.benchdnn);
        EXPECT_EQ(to_string(p.descriptor), to_string(parse_transposed_descriptor(line.canonical)));
        EXPECT_EQ(p.descriptor, parse_transposed_descriptor(line.canonical));
        // the output size of the canonical descriptor is benchdnn's o (given in every real line)
        const std::string text = line.benchdnn;
        const std::size_t oh = text.find(p.descriptor.rank == 1 ? "ow" : "oh");
        if (oh != std::string::npos && p.descriptor.rank != 3) {
            EXPECT_EQ(p.descriptor.output_size(0), std::stoll(text.substr(oh + 2)));
        }
    }
}

TEST(BenchdnnDeconv, PrintingGivesBackTheSameProblem) {
    for (const Line& line : real_lines()) {
        SCOPED_TRACE(line.benchdnn);
        const BenchdnnDeconvProblem p = parse_benchdnn_deconv(line.benchdnn);
        const std::string printed = to_benchdnn(p.descriptor, p.name);
        EXPECT_EQ(parse_benchdnn_deconv(printed).descriptor, p.descriptor) << printed;
    }
    EXPECT_EQ(to_benchdnn(parse_benchdnn_deconv("oc3ic16_ow5iw5kw3pw1_n\"deconv_ci_1d:1st\"").descriptor, "x"),
              "ic16iw5oc3ow5kw3pw1n\"x\"");
    // output padding: benchdnn deduces the right pad pe - op, the same outputs (docs/transposed.md)
    EXPECT_EQ(to_benchdnn(parse_transposed_descriptor("deconv:n=2,c=4,o=4,in=5,k=3,s=2,pb=1,pe=1,op=1")),
              "ic4iw5oc4ow10kw3sw2pw1");
    EXPECT_THROW(to_benchdnn(parse_transposed_descriptor("deconv:c=4,o=4,in=5,k=3,pb=-1,pe=1")), ConvError);
}

TEST(BenchdnnDeconv, DeductionRules) {
    auto deconv = [](const char* text) { return to_string(parse_benchdnn_deconv(text).descriptor); };
    auto canonical = [](const char* text) { return to_string(parse_transposed_descriptor(text)); };
    // missing output: (i-1)*s + (k-1)*(d+1) - 2p + 1 = 4*2 + 2 - 2 + 1 = 9; p_r = 8 - 9 + 3 - 1 = 1
    EXPECT_EQ(deconv("ic4ih5oc4kh3sh2ph1"), canonical("deconv:n=2,c=4,o=4,in=5x5,k=3x3,s=2x2,pb=1,pe=1,bias=1"));
    // missing output and pad: 4 + 2 - 0 + 1 = 7 = (i-1) + K: the full transposed output, no crop
    EXPECT_EQ(deconv("ic8iw5oc8kw3"), canonical("deconv:n=2,c=8,o=8,in=5,k=3,bias=1"));
    // missing pad from the output, C division: (8 - 10 + 3)/2 = 0, p_r = 8 - 10 + 3 - 0 = 1
    EXPECT_EQ(deconv("ic4ih5oc4oh10kh3sh2"), canonical("deconv:n=2,c=4,o=4,in=5x5,k=3x3,s=2x2,pb=0,pe=1,bias=1"));
    // an odd total: (8 - 9 + 4)/2 = 1, p_r = 8 - 9 + 4 - 1 = 2
    EXPECT_EQ(deconv("ic4ih5oc4oh9kh4sh2"), canonical("deconv:n=2,c=4,o=4,in=5x5,k=4x4,s=2x2,pb=1,pe=2,bias=1"));
    // dilation is 0-based as in conv: dw1 -> d = 2, K = 5; o = 4 + 4 + 1 = 9
    EXPECT_EQ(deconv("ic4iw5oc4kw3dw1"), canonical("deconv:n=2,c=4,o=4,in=5,k=3,d=2,bias=1"));
    // ic and oc are the deconvolution's src and dst channels; groups divide both
    EXPECT_EQ(deconv("g2ic4iw5oc6kw1"), canonical("deconv:n=2,c=4,o=6,g=2,in=5,k=1,bias=1"));
    EXPECT_TRUE(parse_benchdnn_deconv("g1ic4iw5oc6kw1").has_groups);
    EXPECT_EQ(parse_benchdnn_deconv("ic4iw5oc6kw1n\"a b\"").name, "a b");
}

TEST(BenchdnnDeconv, WhatBenchdnnOrOneDnnRejectsIsAnErrorNamingTheField) {
    struct Bad {
        const char* text;
        const char* attribute;
    };
    for (const Bad& bad : std::vector<Bad>{
             {"ic4iw1oc4kw1pw1", "ow"},      // o = 0 + 0 - 2 + 1 = -1: the pads take the whole output
             {"ic4iw2oc4ow10kw1", "pw"},     // p = (1 - 10 + 1)/2 = -4: a negative left pad
             {"ic4iw2oc4ow5kw3pw0", "ow"},   // p_r = 1 - 5 + 3 - 0 = -1, -1 + s = 0: oneDNN refuses
             {"ic4iw5oc4", "kw"},            // an axis needs its kernel
             {"g3ic4iw5oc6kw1", "in_channels (c)"},  // groups must divide the channels
             {"ic4oc4", "benchdnn problem"},  // no spatial axis
         }) {
        SCOPED_TRACE(bad.text);
        try {
            parse_benchdnn_deconv(bad.text);
            ADD_FAILURE() << "accepted";
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), bad.attribute) << e.what();
        }
    }
    // the same string is fine for the conv driver where its formulas differ (and the reverse)
    EXPECT_NO_THROW(parse_benchdnn("ic4iw2oc4ow5kw3pw0"));  // conv's o is given: p_r = 4 - 2 + 3 = 5
    EXPECT_THROW(parse_benchdnn("g1oc16ic17_oh5ih8kh3ph3"), ConvError);
    EXPECT_NO_THROW(parse_benchdnn_deconv("g1oc16ic17_oh5ih8kh3ph3"));
}

// A case of a batch file: a deconv: descriptor or the start of its skip reason.
void expect_deconv_cases(const std::vector<BenchdnnCase>& got, const std::vector<std::pair<const char*, const char*>>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE("case " + std::to_string(i) + ": " + got[i].source + " " + got[i].input);
        EXPECT_FALSE(got[i].descriptor.has_value()) << "the deconv driver never makes a convolution case";
        if (want[i].first) {
            ASSERT_TRUE(got[i].transposed.has_value()) << got[i].skip_reason;
            EXPECT_EQ(to_string(*got[i].transposed), to_string(parse_transposed_descriptor(want[i].first)));
        } else {
            EXPECT_FALSE(got[i].transposed.has_value());
            EXPECT_TRUE(got[i].skip_reason.starts_with(want[i].second)) << got[i].skip_reason;
        }
    }
}

BenchdnnReadOptions deconv_driver(BenchdnnVersion version = BenchdnnVersion::current) {
    BenchdnnReadOptions options;
    options.driver = BenchdnnDriver::deconv;
    options.version = version;
    return options;
}

#define FIRST "deconv:n=2,c=16,o=3,in=5,k=3,pb=1,pe=1"

TEST(BenchdnnDeconv, EveryDirectionOfTheDeconvDriver) {
    const auto cases = read_benchdnn_batch((kData / "deconv" / "test_small").string(), deconv_driver());
    ASSERT_EQ(cases.size(), 30u);  // 5 problems x 6 directions, dir turning slowest
    expect_deconv_cases(std::vector<BenchdnnCase>(cases.begin(), cases.begin() + 6),
                        {{FIRST ",bias=1", nullptr},
                         {FIRST ",bias=0", nullptr},
                         {FIRST ",bias=0", nullptr},
                         {nullptr, "--dir=BWD_D: the backward data pass of a transposed convolution"},
                         {nullptr, "--dir=BWD_W: the backward weights pass of a transposed convolution"},
                         {nullptr, "--dir=BWD_WB: the backward weights and bias pass of a transposed convolution"}});
    int run = 0;
    for (const auto& c : cases) run += c.transposed ? 1 : 0;
    EXPECT_EQ(run, 15);
}

TEST(BenchdnnDeconv, OptionsTheDeconvDriverReadsItsOwnWay) {
    auto read = [](const std::string& text) { return read_benchdnn_batch_text(text, "text", deconv_driver()); };
    // --wtag over oneDNN's deconvolution weights {[G,] OC/G, IC/G, k...}: iohw is convcheck's oix, hwoi its xio,
    // oihw (abx) a layout convcheck's transposed op does not have; grouped: giohw (acbde) and hwoigi (debac)
    expect_deconv_cases(read("--wtag=iohw,cdab,oihw ic4ih5oc2kh3"),
                        {{"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=1,wei=oix", nullptr},
                         {"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=1,wei=xio", nullptr},
                         {nullptr, "--wtag: a plain weights layout convcheck does not have"}});
    expect_deconv_cases(read("--wtag=acbde,debac g2ic4ih5oc2kh3"),
                        {{"deconv:n=2,c=4,o=2,g=2,in=5x5,k=3x3,bias=1,wei=oix", nullptr},
                         {"deconv:n=2,c=4,o=2,g=2,in=5x5,k=3x3,bias=1,wei=xio", nullptr}});
    // the tensors' options as in the conv driver; current oneDNN's bias: f32 for FWD_B, --bia-dt's for FWD_D and FWD_I
    expect_deconv_cases(read("--dt=bf16 --stag=axb --mb=3 --dir=FWD_D,FWD_I,FWD_B --bia-dt=bf16 ic4ih5oc2kh3"),
                        {{"deconv:n=3,c=4,o=2,in=5x5,k=3x3,bias=1,dt=bf16,data=nxc", nullptr},
                         {"deconv:n=3,c=4,o=2,in=5x5,k=3x3,bias=1,dt=bf16,data=nxc", nullptr},
                         {nullptr, "--dt/--bia-dt: mixed per-tensor data types of a transposed convolution"}});
    expect_deconv_cases(read("--dir=FWD_D --bia-dt=undef,f32,f16 ic4ih5oc2kh3"),
                        {{"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=0", nullptr},
                         {"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=1", nullptr},
                         {nullptr, "--dt/--bia-dt: mixed per-tensor data types of a transposed convolution"}});
    // v3.7.1: FWD_B's bias has the weights' data type; no --bia-dt
    const auto v371 = [](const std::string& text) {
        return read_benchdnn_batch_text(text, "text", deconv_driver(BenchdnnVersion::v3_7_1));
    };
    expect_deconv_cases(v371("--dt=bf16 --stag=axb --mb=3 ic4ih5oc2kh3"),
                        {{"deconv:n=3,c=4,o=2,in=5x5,k=3x3,bias=1,dt=bf16,data=nxc", nullptr}});
    expect_deconv_cases(v371("--bia-dt=f32 ic4ih5oc2kh3"),
                        {{nullptr, "after --bia-dt=f32 (text:1): not an option of benchdnn's deconv driver"}});
    // deconv_aux.cpp's str2alg knows direct and wino only
    expect_deconv_cases(read("--alg=direct,auto,wino ic4ih5oc2kh3"),
                        {{"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=1", nullptr},
                         {nullptr, "--alg=auto: not an algorithm of benchdnn's deconv driver"},
                         {nullptr, "--alg=wino"}});
    // bench_deconv.cpp has no --strides: benchdnn's deconv driver exits there
    expect_deconv_cases(read("--strides=:: ic4ih5oc2kh3"),
                        {{nullptr, "after --strides=:: (text:1): not an option of benchdnn's deconv driver"}});
    // a driver switch inside a batch file is not one (benchdnn's main() reads it from its command line only)
    expect_deconv_cases(read("--conv ic4ih5oc2kh3"),
                        {{nullptr, "after --conv (text:1): a driver switch inside a batch file"}});
    const auto conv = read_benchdnn_batch_text("--deconv ic4ih5oc4kh3", "text");
    ASSERT_EQ(conv.size(), 1u);
    EXPECT_NE(conv[0].skip_reason.find("a driver switch inside a batch file; benchdnn takes the driver from its "
                                       "command line only"),
              std::string::npos)
        << conv[0].skip_reason;
    EXPECT_NE(conv[0].skip_reason.find("its conv driver exits there"), std::string::npos) << conv[0].skip_reason;
}

TEST(BenchdnnDeconv, MatchFiltersTheDeconvDriversLine) {
    // v3.7.1's prb_t::set_repro_line: `--deconv`, then the problem in benchdnn's short form
    auto v371 = [](const std::string& text) {
        return read_benchdnn_batch_text(text, "text", deconv_driver(BenchdnnVersion::v3_7_1));
    };
    expect_deconv_cases(v371("--match=--deconv.*ic4ih5oc2oh7 ic4ih5oc2kh3 ic4ih5oc2kh1"),
                        {{"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=1", nullptr}});
    EXPECT_TRUE(v371("--match=--conv ic4ih5oc2kh3").empty());
    // current oneDNN's: the driver's options from the first, --bia-dt among them (not for FWD_B)
    auto read = [](const std::string& text) { return read_benchdnn_batch_text(text, "text", deconv_driver()); };
    expect_deconv_cases(read("--match=^ic4ih5oc2oh7 ic4ih5oc2kh3 ic4ih5oc2kh1"),
                        {{"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=1", nullptr}});
    EXPECT_TRUE(read("--match=--deconv ic4ih5oc2kh3").empty());
    expect_deconv_cases(read("--match=^--dir=FWD_I.--dt=f16:f16:f16.--bia-dt=f16.ic4 --dir=FWD_I,FWD_B --dt=f16 "
                             "--bia-dt=f16 ic4ih5oc2kh3"),
                        {{"deconv:n=2,c=4,o=2,in=5x5,k=3x3,bias=1,dt=f16", nullptr}});
}

TEST(BenchdnnDeconv, NestedBatchFilesAreFoundInTheDeconvInputsFolder) {
    BenchdnnReadOptions options = deconv_driver();
    try {
        read_benchdnn_batch_text("--batch=shapes_nowhere", "text", options);
        ADD_FAILURE() << "found a file that does not exist";
    } catch (const ConvError& e) {
        EXPECT_NE(e.rule().find("set CONVCHECK_BENCHDNN_DECONV_INPUTS to oneDNN's tests/benchdnn/inputs/deconv"),
                  std::string::npos)
            << e.what();
    }
    options.inputs_dir = (kData / "deconv").string();
    EXPECT_EQ(read_benchdnn_batch_text("--batch=shapes_small", "text", options).size(), 5u);
    EXPECT_EQ(std::string(benchdnn_inputs_variable(BenchdnnDriver::conv)), "CONVCHECK_BENCHDNN_INPUTS");
}

}  // namespace
