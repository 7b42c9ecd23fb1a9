// benchdnn problem strings: real shape-file lines with canonical descriptors derived by hand,
// benchdnn's deduction and error rules, printing, round trips and batch files.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {

struct Line {
    const char* benchdnn;   // as written in oneDNN's tests/benchdnn/inputs/conv/ (or its docs)
    const char* canonical;  // derived by hand (comment), bias=1 from benchdnn's default --dir=FWD_B
    const char* name;
};

// Notation: K = (k-1)*(d+1)+1 with benchdnn's 0-based d; missing o = (i - K + 2p)/s + 1;
// right pad p_r = (o-1)*s - i + K - p; canonical dilation = d + 1.
const std::vector<Line>& real_lines() {
    static const std::vector<Line> lines = {
        // the classic: mb2, h only (w copied), o = (7-3+2)/1+1 = 7, p_r = 6-7+3-1 = 1
        {"mb2ic16ih7oc16kh3ph1", "n=2,c=16,o=16,g=1,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1", ""},
        // MobileNet depthwise (shapes_mobilenet): g32, p_r = 111-112+3-1 = 1
        {"g32mb1ic32ih112oc32oh112kh3ph1n\"mobilenet:conv2_1/dw\"",
         "n=1,c=32,o=32,g=32,in=112x112,k=3x3,pb=1x1,pe=1x1,bias=1", "mobilenet:conv2_1/dw"},
        // ResNet-50 conv1 (shapes_resnet_50): p_r = 111*2-224+7-3 = 2 (the last row is never reached)
        {"g1mb1ic3ih224iw224oc64oh112ow112kh7kw7sh2sw2ph3pw3n\"resnet_50:conv1\"",
         "n=1,c=3,o=64,g=1,in=224x224,k=7x7,s=2x2,pb=3x3,pe=2x2,bias=1", "resnet_50:conv1"},
        // ResNet-50 1x1: p_r = 55-56+1-0 = 0
        {"mb1ic64ih56oc256oh56kh1ph0n\"resnet_50:res2a_branch1*4\"",
         "n=1,c=64,o=256,in=56x56,k=1x1,bias=1", "resnet_50:res2a_branch1*4"},
        // ResNet-50 strided 1x1: p_r = 27*2-56+1-0 = -1, a negative right pad (-1 + s = 1 > 0)
        {"g1mb1ic256ih56iw56oc512oh28ow28kh1kw1sh2sw2ph0pw0n\"resnet_50:res3a_branch1\"",
         "n=1,c=256,o=512,in=56x56,k=1x1,s=2x2,pb=0x0,pe=-1x-1,bias=1", "resnet_50:res3a_branch1"},
        // AlexNet conv1 (driver_conv.md): p_r = 54*4-227+11-0 = 0
        {"ic3ih227iw227_oc96oh55ow55_kh11kw11_sh4sw4ph0pw0_n\"alexnet:conv1\"",
         "n=2,c=3,o=96,in=227x227,k=11x11,s=4x4,bias=1", "alexnet:conv1"},
        // 3-D (shapes_3d), every axis given: o = i, p_r = 1 on each
        {"ic16oc16_ih13kh3ph1_iw50kw3pw1_id10kd3pd1_n\"3d_conv_pad:1\"",
         "n=2,c=16,o=16,in=10x13x50,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1", "3d_conv_pad:1"},
        // 3-D, d only: cubic. o = (56-3+0)/2+1 = 27, p_r = 26*2-56+3-0 = -1
        {"g3_ic6oc6_id56kd3sd2_n\"3d_gconv_non-block_s2\"",
         "n=2,c=6,o=6,g=3,in=56x56x56,k=3x3x3,s=2x2x2,pb=0x0x0,pe=-1x-1x-1,bias=1", "3d_gconv_non-block_s2"},
        // V-Net: p_r = 31*2-64+2 = 0 (d, h), 15*2-32+2 = 0 (w)
        {"g1ic32oc64_id64od32kd2sd2dd0pd0_ih64oh32kh2sh2dh0ph0_iw32ow16kw2sw2dw0pw0_n\"vnet:conv1\"",
         "n=2,c=32,o=64,in=64x64x32,k=2x2x2,s=2x2x2,bias=1", "vnet:conv1"},
        // 1-D depthwise (shapes_1d): p_r = 15-16+3-1 = 1
        {"g128ic128iw16oc128ow16kw3sw1pw1n\"conv_dw\"", "n=2,c=128,o=128,g=128,in=16,k=3,pb=1,pe=1,bias=1",
         "conv_dw"},
        // 1-D strided: p_r = 111*2-224+7-3 = 2
        {"g1mb50ic3iw224oc64ow112kw7sw2pw3n\"conv1d:2\"", "n=50,c=3,o=64,in=224,k=7,s=2,pb=3,pe=2,bias=1",
         "conv1d:2"},
        // 1-D dilated: dw2 -> d = 3, K = 2*3+1 = 7, p_r = 1*1-5+7-3 = 0
        {"ic8oc8_iw5ow2kw3sw1dw2pw3n\"conv1d_gemm:1\"", "n=2,c=8,o=8,in=5,k=3,d=3,pb=3,pe=0,bias=1",
         "conv1d_gemm:1"},
        // 2-D dilated on h only: K_h = 2*2+1 = 5, p_r = 3*2-8+5-1 = 2; w: p_r = 7-8+3-1 = 1
        {"ic4ih8iw8oc6oh4ow8kh3kw3sh2sw1ph1pw1dh1dw0n\"dilated_conv:11\"",
         "n=2,c=4,o=6,in=8x8,k=3x3,s=2x1,d=2x1,pb=1x1,pe=2x1,bias=1", "dilated_conv:11"},
        // padding larger than the kernel: K = 2*5+1 = 11, p_r = 2-5+11-4 = 4
        {"g1ic16iw5oc16ow3kw3pw4dw4n\"large_padding_and_dilation_w.r.t._kernel_size\"",
         "n=2,c=16,o=16,in=5,k=3,d=5,pb=4,pe=4,bias=1", "large_padding_and_dilation_w.r.t._kernel_size"},
        // od1 is given, so this "1-D" line is 3-D with unit d and h; w: K = 2*4+1 = 9, p_r = 0-1+9-1 = 7
        {"mb1_ic1oc16_kd1kh1kw3_id1ih1iw1_od1oh1ow1_sd1sh1sw2_pd0ph0pw1_dd0dh0dw3n"
         "\"dilated_1d_1st_strided_padding_1_pw-right(7)\"",
         "n=1,c=1,o=16,in=1x1x1,k=1x1x3,s=1x1x2,d=1x1x4,pb=0x0x1,pe=0x0x7,bias=1",
         "dilated_1d_1st_strided_padding_1_pw-right(7)"},
        // and its negative right pad: p_r = 1*2-11+9-1 = -1
        {"mb1_ic1oc16_kd1kh1kw3_id1ih1iw11_od1oh1ow2_sd1sh1sw2_pd0ph0pw1_dd0dh0dw3n"
         "\"dilated_1d_1st_strided_padding_33_pw-right(-1)\"",
         "n=1,c=1,o=16,in=1x1x11,k=1x1x3,s=1x1x2,d=1x1x4,pb=0x0x1,pe=0x0x-1,bias=1",
         "dilated_1d_1st_strided_padding_33_pw-right(-1)"},
    };
    return lines;
}

void expect_error(const std::string& text, const std::string& attribute) {
    try {
        const auto p = parse_benchdnn(text);
        ADD_FAILURE() << "accepted `" << text << "` as " << to_string(p.descriptor);
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), attribute) << "`" << text << "`: " << e.what();
    }
}

}  // namespace

TEST(Benchdnn, RealShapeLinesGiveTheHandDerivedDescriptors) {
    for (const auto& line : real_lines()) {
        const auto problem = parse_benchdnn(line.benchdnn);
        EXPECT_EQ(to_string(problem.descriptor), to_string(parse_descriptor(line.canonical))) << line.benchdnn;
        EXPECT_EQ(problem.name, line.name) << line.benchdnn;
    }
}

TEST(Benchdnn, DeductionRules) {
    struct Case {
        const char* benchdnn;
        const char* canonical;
    };
    const Case cases[] = {
        // C division: o = (2-3+0)/2+1 = 0+1 = 1 (floor would give 0), p_r = 0-2+3-0 = 1
        {"ic1ih2oc1kh3sh2", "n=2,c=1,o=1,in=2x2,k=3x3,s=2x2,pb=0x0,pe=1x1,bias=1"},
        // pad from the output: p = (4-5+3)/2 = 1, p_r = 4-5+3-1 = 1
        {"ic1ih5oc1oh5kh3", "n=2,c=1,o=1,in=5x5,k=3x3,pb=1x1,pe=1x1,bias=1"},
        // odd total: p = (5-6+4)/2 = 1, p_r = 5-6+4-1 = 2 (the extra pad goes right)
        {"ic1ih6oc1oh6kh4", "n=2,c=1,o=1,in=6x6,k=4x4,pb=1x1,pe=2x2,bias=1"},
        // zero dilation and zero pad on d do not make a d axis; a repeated entry keeps its last value
        {"ic8ic16ih7oc16kh3dd0pd0", "n=2,c=16,o=16,in=7x7,k=3x3,bias=1"},
        // w given, h not: 1-D
        {"ic2iw9oc4kw3", "n=2,c=2,o=4,in=9,k=3,bias=1"},
        // `_` separators anywhere between entries, and a trailing one before the name
        {"mb3_g2_ic4_ih5_oc6_kh1_", "n=3,c=4,o=6,g=2,in=5x5,k=1x1,bias=1"},
    };
    for (const auto& c : cases)
        EXPECT_EQ(to_string(parse_benchdnn(c.benchdnn).descriptor), to_string(parse_descriptor(c.canonical)))
            << c.benchdnn;
}

TEST(Benchdnn, SettingsFillWhatTheStringDoesNotSay) {
    BenchdnnSettings s;
    s.has_bias = false;
    s.dtype = DataType::bf16;
    s.data_format = DataFormat::nxc;
    s.filter_format = FilterFormat::xio;
    const auto d = parse_benchdnn("ic16ih7oc16kh3ph1", s).descriptor;
    EXPECT_EQ(to_string(d), to_string(parse_descriptor(
                                "n=2,c=16,o=16,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=0,dt=bf16,data=nxc,wei=xio")));
}

TEST(Benchdnn, BadStringsNameTheField) {
    expect_error("ic16ih7oc16", "kh");               // a present axis needs its kernel
    expect_error("ic16oc16kh3", "ih");               // ... and its input
    expect_error("ih7oc16kh3", "ic");                // channels are required
    expect_error("ic16ih7kh3", "oc");
    expect_error("ic16ih7oc16kh3sh0", "sh");         // strides are positive
    expect_error("g0ic16ih7oc16kh3", "g");           // a given g is positive
    expect_error("ic16ih7oc16kh3ph-1", "ph");        // no negative values
    expect_error("ic16ih", "ih");                    // no value after the entry
    expect_error("ic16ih7oc16kh3xx1", "benchdnn problem");  // unknown entry
    expect_error("_ic16ih7oc16kh3", "benchdnn problem");    // benchdnn rejects a leading `_`
    expect_error("ic16ih7oc16kh3__ph1", "benchdnn problem");  // ... and two in a row
    expect_error("ic16ih2oc16kh5", "oh");            // deduced output (2-5)/1+1 = -2
    expect_error("ic16ih56oc16oh10kh3ph1", "oh");    // p_r = 9*1-56+3-1 = -45: pad_r + s <= 0
    expect_error("ic16ih10oc16oh5kh3", "ph");        // deduced p = (4-10+3)/2 = -1
    expect_error("ic16id5ih5oc16kd3kh3", "iw");      // 3-D with h but not w
    expect_error("ic16id5iw5oc16kd3kw3", "ih");      // 3-D with w but not h
    expect_error("ic16ih7oc16kh3sd2", "id");         // a stride on d makes the d axis present
    expect_error("ic16ih7iw7oc16kh3", "kw");         // iw makes w present: it needs kw
    expect_error("ic16oc16", "benchdnn problem");    // no spatial axis
    expect_error("g3ic16ih5oc16kh3", "in_channels (c)");  // validate(): 16 % 3 != 0
    expect_error("", "ic");
    // a left pad near 2^63 (found by fuzz_benchdnn): the right pad (o-1)*s - i + K - p overflows
    expect_error("mb1ic3ih224oc64oh112kh7sh1ph9223372036854775807", "ph");
}

TEST(Benchdnn, PrintsBenchdnnsShortForm) {
    struct Case {
        const char* benchdnn;
        const char* printed;
    };
    const Case cases[] = {
        {"mb2ic16ih7oc16kh3ph1", "ic16ih7oc16oh7kh3ph1"},
        {"g1mb1ic3ih224iw224oc64oh112ow112kh7kw7sh2sw2ph3pw3n\"resnet_50:conv1\"",
         "mb1ic3ih224oc64oh112kh7sh2ph3n\"resnet_50:conv1\""},
        {"ic16oc16_ih13kh3ph1_iw50kw3pw1_id10kd3pd1_n\"3d_conv_pad:1\"",
         "ic16id10ih13iw50oc16od10oh13ow50kd3kh3kw3pd1ph1pw1n\"3d_conv_pad:1\""},
        {"g3_ic6oc6_id56kd3sd2_n\"3d_gconv_non-block_s2\"", "g3ic6id56oc6od27kd3sd2pd0n\"3d_gconv_non-block_s2\""},
        // benchdnn's own order reproduces this line exactly
        {"ic4ih8iw8oc6oh4ow8kh3kw3sh2sw1ph1pw1dh1dw0n\"dilated_conv:11\"",
         "ic4ih8iw8oc6oh4ow8kh3kw3sh2sw1ph1pw1dh1dw0n\"dilated_conv:11\""},
        {"ic8oc8_iw5ow2kw3sw1dw2pw3n\"conv1d_gemm:1\"", "ic8iw5oc8ow2kw3pw3dw2n\"conv1d_gemm:1\""},
    };
    for (const auto& c : cases) {
        const auto p = parse_benchdnn(c.benchdnn);
        EXPECT_EQ(to_benchdnn(p.descriptor, p.name), c.printed) << c.benchdnn;
    }
}

TEST(Benchdnn, RealLinesSurvivePrintAndParse) {
    for (const auto& line : real_lines()) {
        const auto p = parse_benchdnn(line.benchdnn);
        const auto again = parse_benchdnn(to_benchdnn(p.descriptor, p.name));
        EXPECT_EQ(to_string(again.descriptor), to_string(p.descriptor)) << line.benchdnn;
        EXPECT_EQ(again.name, p.name) << line.benchdnn;
    }
}

TEST(Benchdnn, RefusesWhatBenchdnnCannotExpress) {
    auto d = parse_descriptor("c=1,o=1,in=5x5,k=3x3,pb=-1x0,pe=1x1");
    EXPECT_THROW(to_benchdnn(d), ConvError);  // negative left pad
    d = parse_descriptor("c=1,o=1,in=5,k=3,pb=0,pe=-1");
    EXPECT_THROW(to_benchdnn(d), ConvError);  // right pad -1 with stride 1: pad_r + s = 0
    d = parse_descriptor("c=1,o=1,in=5,k=3,s=2,pb=0,pe=-1");
    EXPECT_THROW(to_benchdnn(d), ConvError);  // 1 output; benchdnn deduces p_r = 0*2-5+3-0 = -2, -2 + 2 = 0
    d = parse_descriptor("c=1,o=1,in=6,k=3,s=2,pb=0,pe=-1");
    EXPECT_EQ(to_benchdnn(d), "mb1ic1iw6oc1ow2kw3sw2pw0");  // p_r = 1*2-6+3-0 = -1, -1 + 2 > 0 is fine
    EXPECT_THROW(to_benchdnn(d, "two words"), ConvError);
    EXPECT_THROW(to_benchdnn(d, "a\"quote"), ConvError);
}

// canonical -> benchdnn -> canonical. benchdnn keeps only the right pad that the output needs:
// pads_end comes back as (out-1)*s + K - in - pads_begin (the same output shape and values).
RC_GTEST_PROP(Benchdnn, RoundTripsExpressibleDescriptors, ()) {
    testgen::DescriptorLimits lim;
    lim.negative_pads = false;
    lim.any_dtype = false;
    lim.any_format = false;
    lim.max_stride = 4;
    const auto d = *testgen::valid_descriptor(lim);
    const auto name = *rc::gen::container<std::string>(
        rc::gen::element('a', 'z', 'Q', '0', '9', ':', '/', '_', '*', '-', '.', '(', ')'));
    BenchdnnSettings settings;
    settings.has_bias = d.has_bias;
    const std::string printed = to_benchdnn(d, name);
    RC_LOG() << "descriptor " << to_string(d) << " printed " << printed << "\n";
    const auto back = parse_benchdnn(printed, settings);
    ConvDescriptor want = d;
    for (int a = 0; a < d.rank; ++a) {
        want.pads_end[a] = (d.output_size(a) - 1) * d.strides[a] + d.dilated_kernel(a) - d.input_size[a] - d.pads_begin[a];
        RC_ASSERT(want.output_size(a) == d.output_size(a));
    }
    RC_ASSERT(to_string(back.descriptor) == to_string(want));
    RC_ASSERT(back.name == name);
    RC_ASSERT(to_benchdnn(back.descriptor, back.name) == printed);
}


TEST(Benchdnn, KeepsWhetherGWasGivenAndTheNameAsWritten) {
    // benchdnn prints `g` whenever it was given (grouped weights, even g1) and the name exactly as written
    const auto g1 = parse_benchdnn("g1ic4ih5oc4kh3n\"quoted\"");
    EXPECT_TRUE(g1.has_groups);
    EXPECT_EQ(g1.descriptor.groups, 1);
    EXPECT_EQ(g1.name, "quoted");
    EXPECT_EQ(g1.written_name, "\"quoted\"");
    const auto plain = parse_benchdnn("ic4ih5oc4kh3nplain");
    EXPECT_FALSE(plain.has_groups);
    EXPECT_EQ(plain.written_name, "plain");
}
