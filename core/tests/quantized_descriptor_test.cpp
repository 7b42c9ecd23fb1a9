// The quantized convolution's descriptor: its string form, its defaults and each rule it refuses.
#include <gtest/gtest.h>

#include "convcheck/core/quantized_descriptor.hpp"

using namespace convcheck;

TEST(QuantizedDescriptor, PrintsEveryKeyAndReadsItBack) {
    const auto q = parse_quantized_descriptor(
        "qconv:c=8,o=4,in=6x6,k=3x3,pb=1x1,pe=1x1,bias=1,dt=s8:s8:s8,ssc=0.1,szp=-3,wsc=oc,dsc=0.5,dzp=2,lo=-20,hi=90");
    EXPECT_EQ(to_string(q),
              "qconv:n=1,c=8,o=4,g=1,in=6x6,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=1,data=ncx,wei=oix,dt=s8:s8:s8,"
              "ssc=0.1,szp=-3,wsc=oc,wzp=0,dsc=0.5,dzp=2,lo=-20,hi=90");
    EXPECT_EQ(parse_quantized_descriptor(to_string(q)), q);
    EXPECT_EQ(q.src_scale, 0.1f);  // the f32 nearest 0.1, printed as the shortest text that reads it back
    EXPECT_TRUE(q.narrowed());
}

// Per-channel scales given as a list (a model's) print and read back; the list must have one per output channel.
TEST(QuantizedDescriptor, PerChannelScalesGivenAsAList) {
    const auto q = parse_quantized_descriptor("qconv:c=2,o=3,in=4,k=3,dt=s8:s8:s8,wsc=0.5:0.25:0.1");
    EXPECT_TRUE(q.per_channel_scales);
    EXPECT_EQ(q.channel_scales, (std::vector<float>{0.5f, 0.25f, 0.1f}));
    EXPECT_NE(to_string(q).find(",wsc=0.5:0.25:0.1,"), std::string::npos) << to_string(q);
    EXPECT_EQ(parse_quantized_descriptor(to_string(q)), q);
    EXPECT_THROW(parse_quantized_descriptor("qconv:c=2,o=3,in=4,k=3,wsc=0.5:0.25"), ConvError);     // two for three channels
    EXPECT_THROW(parse_quantized_descriptor("qconv:c=2,o=3,in=4,k=3,wsc=0.5:0:0.25"), ConvError);   // a zero scale
}

TEST(QuantizedDescriptor, DefaultsAreU8S8U8WithUnitScalesAndTheWholeRange) {
    const auto q = parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3");
    EXPECT_EQ(q.src, IntegerType::u8);
    EXPECT_EQ(q.weights, IntegerType::s8);
    EXPECT_EQ(q.dst, IntegerType::u8);
    EXPECT_EQ(q.dst_min, 0);
    EXPECT_EQ(q.dst_max, 255);
    EXPECT_FALSE(q.narrowed());
    EXPECT_EQ(q.products_per_output(), 2 * 3);
    EXPECT_EQ(q.largest_product(), 255 * 128);
}

// Each rule broken names its key.
TEST(QuantizedDescriptor, RefusesEachBrokenRuleByItsKey) {
    const auto key_of = [](const char* text) {
        try {
            parse_quantized_descriptor(text);
        } catch (const ConvError& e) {
            return e.attribute();
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,ssc=0"), "ssc");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dsc=-1"), "dsc");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,wsc=inf"), "wsc");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,szp=256"), "szp");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=s8:s8:s8,szp=128"), "szp");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,wzp=-129"), "wzp");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,lo=10,hi=5"), "lo");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,hi=256"), "hi");
    // an s32 dst with a dst zero point or scale is oneDNN's rounded s32 (rounded_s32()), but takes no lo/hi; nor
    // does a float dst, which is f32, bf16 or f16
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,dzp=1"), "(accepted)");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,dsc=2"), "(accepted)");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,lo=0,hi=10"), "lo/hi");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:f32,lo=0,hi=10"), "lo/hi");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:f64"), "dt");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:u8,po=relu:nan"), "po");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=s32:s8:s32"), "dt");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dt=f32"), "dt");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,dir=bwd_d"), "dir");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,ssc=1,ssc=2"), "ssc");
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,bdt=f32"), "bdt");                        // no bias
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,bias=1,dt=u8:s8:s32,bdt=f32"), "(accepted)");  // a rounded s32
    EXPECT_EQ(key_of("qconv:c=2,o=2,in=4,k=3,bias=1,bdt=f16"), "bdt");
}

// bdt=f32: the bias added after the scales; printed only when f32, s32 the default.
TEST(QuantizedDescriptor, F32BiasPrintsAndReadsBack) {
    const auto q = parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,bias=1,bdt=f32,ssc=0.5");
    EXPECT_TRUE(q.f32_bias);
    EXPECT_NE(to_string(q).find(",dt=u8:s8:u8,bdt=f32,ssc=0.5,"), std::string::npos) << to_string(q);
    EXPECT_EQ(parse_quantized_descriptor(to_string(q)), q);
    const auto s32 = parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,bias=1,bdt=s32");
    EXPECT_FALSE(s32.f32_bias);
    EXPECT_EQ(to_string(s32).find("bdt"), std::string::npos);
}

// The accumulator rule: products_per_output * largest_product < 2^31, at its limit.
TEST(QuantizedDescriptor, RefusesAReductionThatCanLeaveS32) {
    // 255 * 128 = 32640 per product: 65793 products fit (65793 * 32640 < 2^31), 65794 do not
    EXPECT_NO_THROW(parse_quantized_descriptor("qconv:c=65793,o=1,in=1,k=1"));
    try {
        parse_quantized_descriptor("qconv:c=65794,o=1,in=1,k=1");
        FAIL() << "accepted";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "c/k");
        EXPECT_NE(e.rule().find("can leave s32"), std::string::npos) << e.rule();
    }
}

// The general output: a float dst prints as dst's type (its integer type unused, s32), post-ops as po=; an s32 dst is
// rounded (oneDNN's) with any scale other than 1, a dst zero point, an f32 bias or post-ops, else the accumulator.
TEST(QuantizedDescriptor, GeneralOutputPrintsAndReadsBack) {
    const auto f = parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:bf16,ssc=0.5,po=relu+sum:0.5");
    ASSERT_TRUE(f.float_dst.has_value());
    EXPECT_EQ(*f.float_dst, DataType::bf16);
    EXPECT_EQ(f.dst, IntegerType::s32);
    EXPECT_TRUE(f.general_output());
    EXPECT_FALSE(f.rounded_s32());  // a float dst, not an s32 one
    EXPECT_EQ(parse_quantized_descriptor(to_string(f)), f) << to_string(f);
    EXPECT_NE(to_string(f).find(",dt=u8:s8:bf16,"), std::string::npos) << to_string(f);
    const auto rounded = [](const char* text) { return parse_quantized_descriptor(text).rounded_s32(); };
    EXPECT_FALSE(rounded("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,szp=3,wzp=1"));  // zero points of the inputs: in acc
    EXPECT_TRUE(rounded("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,ssc=0.5"));
    EXPECT_TRUE(rounded("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,wsc=oc"));
    EXPECT_TRUE(rounded("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,dzp=-4"));
    EXPECT_TRUE(rounded("qconv:c=2,o=2,in=4,k=3,bias=1,dt=u8:s8:s32,bdt=f32"));
    EXPECT_TRUE(rounded("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,po=relu"));
    EXPECT_FALSE(rounded("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:u8,ssc=0.5"));  // u8: always requantized
}

// Per-channel zero points (oneDNN's mask 1 << 1): szp=ic / dzp=oc drawn, or a list with one per channel, each in its
// type's range; they print and read back; an s32 or float dst takes no per-channel dst zero points; the accumulator check assumes any drawn src zero point.
TEST(QuantizedDescriptor, PerChannelZeroPointsDrawnOrGiven) {
    const auto drawn = parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:u8,szp=ic,dzp=oc");
    EXPECT_TRUE(drawn.per_channel_src_zero_points);
    EXPECT_TRUE(drawn.per_channel_dst_zero_points);
    EXPECT_TRUE(drawn.src_zero_points.empty());
    EXPECT_NE(to_string(drawn).find(",szp=ic,"), std::string::npos) << to_string(drawn);
    EXPECT_NE(to_string(drawn).find(",dzp=oc"), std::string::npos) << to_string(drawn);
    EXPECT_EQ(parse_quantized_descriptor(to_string(drawn)), drawn);
    EXPECT_EQ(drawn.largest_product(), 255 * 128);  // a drawn src zero point may be 0 or 255
    const auto given = parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,dt=s8:s8:s8,szp=-3:0:7,dzp=5:-5");
    EXPECT_EQ(given.src_zero_points, (std::vector<std::int32_t>{-3, 0, 7}));
    EXPECT_EQ(given.dst_zero_points, (std::vector<std::int32_t>{5, -5}));
    EXPECT_NE(to_string(given).find(",szp=-3:0:7,"), std::string::npos) << to_string(given);
    EXPECT_EQ(parse_quantized_descriptor(to_string(given)), given);
    EXPECT_EQ(given.largest_product(), (7 + 128) * 128);  // the zero point farthest from an end of s8: 7
    const auto refuses = [](const char* text, const char* key) {
        try {
            parse_quantized_descriptor(text);
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), key) << text;
            return;
        }
        ADD_FAILURE() << text << " was accepted";
    };
    refuses("qconv:c=3,o=2,in=4,k=3,szp=1:2", "szp");                // two for three input channels
    refuses("qconv:c=3,o=2,in=4,k=3,dzp=1:2:3", "dzp");              // three for two output channels
    refuses("qconv:c=3,o=2,in=4,k=3,dt=s8:s8:s8,szp=1:200:3", "szp");  // outside s8
    // an s32 (rounded) or float dst takes per-channel dst zero points too (drawn from [-128, 127] by the runner)
    EXPECT_TRUE(parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:s32,dsc=2,dzp=oc").per_channel_dst_zero_points);
    EXPECT_TRUE(parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:f32,dzp=-7:300").per_channel_dst_zero_points);
    refuses("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:u8,dzp=1:256", "dzp");    // outside u8
    // with the general output: post-ops and an f32 bias on a u8 dst with per-channel zero points
    const auto general = parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,bias=1,dt=u8:s8:u8,bdt=f32,szp=ic,dzp=oc,po=relu");
    EXPECT_TRUE(general.general_output());
    EXPECT_EQ(parse_quantized_descriptor(to_string(general)), general) << to_string(general);
    refuses("qconv:c=3,o=2,in=4,k=3,szp=oc", "szp");                 // src's channels are the input channels
}

// Per-output-channel weights zero points (ONNX QLinearConv's and ConvInteger's w_zero_point of shape [M]): wzp=oc drawn
// or a list of out_channels values, each in the weights' range; they print and read back, and the accumulator check
// assumes the farthest one.
TEST(QuantizedDescriptor, PerOutputChannelWeightsZeroPoints) {
    const auto drawn = parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:u8,wzp=oc");
    EXPECT_TRUE(drawn.per_channel_weights_zero_points);
    EXPECT_TRUE(drawn.weights_zero_points.empty());
    EXPECT_NE(to_string(drawn).find(",wzp=oc,"), std::string::npos) << to_string(drawn);
    EXPECT_EQ(parse_quantized_descriptor(to_string(drawn)), drawn);
    EXPECT_EQ(drawn.largest_product(), 255 * 255);  // a drawn weights zero point may be -128 or 127
    const auto given = parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,dt=u8:u8:u8,wzp=3:250");
    EXPECT_EQ(given.weights_zero_points, (std::vector<std::int32_t>{3, 250}));
    EXPECT_NE(to_string(given).find(",wzp=3:250,"), std::string::npos) << to_string(given);
    EXPECT_EQ(parse_quantized_descriptor(to_string(given)), given);
    EXPECT_EQ(given.largest_product(), 255 * 252);  // u8 src 0..255 (szp=0) times w - 3 down to -3, up to 252
    const auto refuses = [](const char* text, const char* key, const char* rule) {
        try {
            parse_quantized_descriptor(text);
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), key) << text;
            EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << text << ": " << e.what();
            return;
        }
        ADD_FAILURE() << text << " was accepted";
    };
    refuses("qconv:c=3,o=2,in=4,k=3,wzp=1:2:3", "wzp", "one per channel (2)");       // three for two output channels
    refuses("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:u8,wzp=1:128", "wzp", "s8 [-128, 127]");  // outside s8
    refuses("qconv:c=3,o=2,in=4,k=3,wzp=ic", "wzp", "an integer");                   // the weights' channels are outputs
    refuses("qconv:c=3,o=2,in=4,k=3,wzp=1:x", "wzp", "an integer");
    // drawn ones leave less room in s32: 40960 products of 255 * 255 can leave it, with a per-tensor zero point not
    EXPECT_NO_THROW(parse_quantized_descriptor("qconv:c=4096,o=2,in=10,k=10,dt=u8:s8:u8"));
    refuses("qconv:c=4096,o=2,in=10,k=10,dt=u8:s8:u8,wzp=oc", "c/k", "can leave s32");
}

// zpt=s32 (oneDNN's zero points are s32 attributes): a zero point outside its tensor's type is valid and prints back;
// without it the type's range is the rule (ONNX, TFLite), and the key takes type or s32 only.
TEST(QuantizedDescriptor, S32ZeroPointsLieOutsideTheirTypes) {
    const auto onednn = parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:u8,zpt=s32,szp=-2,wzp=200,dzp=300");
    EXPECT_TRUE(onednn.s32_zero_points);
    EXPECT_EQ(onednn.src_zero_point, -2);
    EXPECT_NE(to_string(onednn).find(",zpt=s32,"), std::string::npos) << to_string(onednn);
    EXPECT_EQ(parse_quantized_descriptor(to_string(onednn)), onednn);
    EXPECT_EQ(onednn.largest_product(), 257 * 328);  // |x + 2| up to 257, |w - 200| up to 328
    EXPECT_EQ(to_string(parse_quantized_descriptor("qconv:c=3,o=2,in=4,k=3,zpt=type,szp=2")).find("zpt"), std::string::npos);
    const auto refuses = [](const char* text, const char* key, const char* rule) {
        try {
            parse_quantized_descriptor(text);
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), key) << text;
            EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << text << ": " << e.what();
            return;
        }
        ADD_FAILURE() << text << " was accepted";
    };
    refuses("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:u8,szp=-2", "szp", "src's range u8 [0, 255]");
    refuses("qconv:c=3,o=2,in=4,k=3,dt=u8:s8:u8,zpt=type,dzp=300", "dzp", "dst's range u8 [0, 255]");
    refuses("qconv:c=3,o=2,in=4,k=3,zpt=s16", "zpt", "s32");
    refuses("qconv:c=3,o=2,in=4,k=3,zpt=s32,szp=2147483648", "szp", "32-bit integer");
}

// acc=f32 (an ONNX QDQ model's f32 sum): printed after bdt, read back, judged as the general output; an s32 dst and
// a value other than s32/f32 are refused, naming the key.
TEST(QuantizedDescriptor, F32AccumulationPrintsAndReadsBack) {
    const auto q = parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,bias=1,dt=u8:s8:u8,bdt=f32,acc=f32,ssc=0.02,dsc=0.05");
    EXPECT_TRUE(q.f32_accumulation);
    EXPECT_TRUE(q.judged_as_general());
    EXPECT_FALSE(q.general_output());  // nothing the plugin sees changes
    EXPECT_NE(to_string(q).find(",bdt=f32,acc=f32,"), std::string::npos) << to_string(q);
    EXPECT_EQ(parse_quantized_descriptor(to_string(q)), q) << to_string(q);
    EXPECT_FALSE(parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,acc=s32").f32_accumulation);
    EXPECT_EQ(to_string(parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,acc=s32")).find("acc="), std::string::npos);
    for (const char* bad : {"qconv:c=2,o=2,in=4,k=3,dt=u8:s8:s32,acc=f32", "qconv:c=2,o=2,in=4,k=3,acc=f16"}) {
        try {
            parse_quantized_descriptor(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), "acc") << bad;
        }
    }
}

// dsc=a:b:... (an ONNX QDQ model's per-axis y_scale): one dst scale per output channel, printed and read back,
// dst_scale_of(oc) gives channel oc's; another length or a scale that is not > 0 is refused, naming dsc.
TEST(QuantizedDescriptor, DstScalesPerOutputChannel) {
    const auto q = parse_quantized_descriptor("qconv:c=2,o=3,in=4,k=3,dt=u8:s8:u8,acc=f32,dsc=0.5:0.25:2,dzp=7");
    ASSERT_EQ(q.dst_scales, (std::vector<float>{0.5f, 0.25f, 2.0f}));
    EXPECT_EQ(q.dst_scale_of(0), 0.5f);
    EXPECT_EQ(q.dst_scale_of(2), 2.0f);
    EXPECT_NE(to_string(q).find(",dsc=0.5:0.25:2,"), std::string::npos) << to_string(q);
    EXPECT_EQ(parse_quantized_descriptor(to_string(q)), q) << to_string(q);
    EXPECT_EQ(parse_quantized_descriptor("qconv:c=2,o=3,in=4,k=3,dsc=0.5").dst_scale_of(2), 0.5f);
    EXPECT_EQ(parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,dt=u8:s8:f32,dsc=1:2").dst_scales.size(), 2u);
    EXPECT_EQ(parse_quantized_descriptor("qconv:c=2,o=2,in=4,k=3,dt=s8:s8:s8,po=relu,dsc=1:2").dst_scales.size(), 2u);
    for (const char* bad : {"qconv:c=2,o=3,in=4,k=3,acc=f32,dsc=0.5:0.25", "qconv:c=2,o=2,in=4,k=3,acc=f32,dsc=0.5:0",
                            "qconv:c=2,o=2,in=4,k=3,acc=f32,dsc=0.5:x"}) {
        try {
            parse_quantized_descriptor(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), "dsc") << bad;
        }
    }
}
