// CNTK Convolution (seed 003): pads and shapes derived by hand from ConvolveGeometry
// (autoPadding: out = ceil(in/s), e = (in-1) mod s, pb = floor((K-1)/2) - floor(e/2),
// pe = ceil((K-1)/2) - ceil(e/2), not clamped).
#include "case_table.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/dialects/cntk.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(CntkDialect, AutoPaddingByHand) {
    check_table("cntk", {
        // out = ceil(7/2) = 4; e = 6 mod 2 = 0; pb = 1 - 0, pe = 1 - 0
        {"in=7 kernel=3:1 stride=2:1 autoPadding=true:false", "pb=1 pe=1 out=4"},
        // e = 7 mod 2 = 1: pb = 1 - 0 = 1, pe = 1 - 1 = 0: the odd pad at the BEGINNING (TF puts it at the end)
        {"in=8 kernel=3:1 stride=2:1 autoPadding=true:false", "pb=1 pe=0 out=4"},
        // e = 7 mod 3 = 1, K - 1 = 0: pb = 0, pe = 0 - 1 = -1 (a negative pad crops)
        {"in=8 kernel=1:1 stride=3:1 autoPadding=true:false", "pb=0 pe=-1 out=3"},
        // e = 6 mod 4 = 2: pb = 0 - 1 = -1, pe = 1 - 1 = 0
        {"in=7 kernel=2:1 stride=4:1 autoPadding=true:false", "pb=-1 pe=0 out=2"},
        // e = 8 mod 4 = 0: pb = 0, pe = 1
        {"in=9 kernel=2:1 stride=4:1 autoPadding=true:false", "pb=0 pe=1 out=3"},
        // even kernel, stride 1: pb = floor(3/2) = 1, pe = ceil(3/2) = 2
        {"in=7 kernel=4:1 stride=1 autoPadding=true:false", "pb=1 pe=2 out=7"},
        // dilation 2: K = 5: pb = 2, pe = 2
        {"in=7 kernel=3:1 dilation=2:1 autoPadding=true:false", "pb=2 pe=2 out=7 d=2"},
        // convcheck's k= (outermost first) is turned into CNTK's kernel (W first) plus the channel dim
        {"in=7x9 c=2 k=3x5 autoPadding=true:true:false", "k=3x5 pb=1x2 pe=1x2 out=7x9"},
        // CNTK order: kernel=kW:kH:C, stride=sW:sH:C -> convcheck's k=HxW = 1x3, s = 1x2
        {"in=5x7 c=1 kernel=3:1:1 stride=2:1:1 autoPadding=false", "k=1x3 s=1x2 out=5x3"},
    });
}

TEST(CntkDialect, ExplicitPaddingByHand) {
    check_table("cntk", {
        {"in=7 kernel=3:1 stride=2:1 autoPadding=false", "pb=0 pe=0 out=3"},
        // floor((5 + 1 + 1 - 3) / 1) + 1 = 5; the windows reach the end: (5-1)*1 + 3 = 7 >= 5 + 1
        {"in=5 kernel=3:1 autoPadding=false lowerPad=1:0 upperPad=1:0", "pb=1 pe=1 out=5"},
    });
}

TEST(CntkDialect, RejectsWhatCntkRejects) {
    check_table("cntk", {
        {"in=2 kernel=3:1 autoPadding=true:false", "error Convolution operation requires that kernel dim 3 <= input dim 2."},
        // out = floor((8 - 3) / 2) + 1 = 3; (3-1)*2 + 3 = 7 < 7 + 1
        {"in=7 kernel=3:1 stride=2:1 autoPadding=false lowerPad=1:0 upperPad=0",
         "error Convolution requires that kernel fills the entire space if auto-padding is disabled."},
        {"in=7 kernel=3:1 stride=1:1:1 autoPadding=false", "error Convolution stride tensor must have rank 1 or the same as the input tensor."},
        {"in=7 c=2 kernel=3:1 autoPadding=false", "error the last kernel dimension must be equal to the number of input channels (2)"},
        {"in=7 kernel=3 autoPadding=false", "error Convolution input and kernel tensors must have the same rank."},
        // a single autoPadding=true pads the channel axis too: with C = 2 it gives 2 positions there
        {"in=7 c=2 kernel=3:2 autoPadding=true", "ours along the channel axis"},
        {"in=7x7 k=3x3 imageLayout=HWC", "error The only supported value is cudnn"},
        {"in=7 kernel=3:1 lowerPad=-1 autoPadding=false", "ours unsigned"},
    });
}

TEST(CntkDialect, TwoDimensionalSyntax) {
    check_table("cntk", {
        {"in=7x7 kernelWidth=3 kernelHeight=3 horizontalStride=2 verticalStride=2 zeroPadding=true", "pb=1x1 pe=1x1 out=4x4"},
        {"in=7x7 kernelWidth=3 kernelHeight=3 horizontalStride=2 verticalStride=2", "pb=0x0 pe=0x0 out=3x3"},
        // H = 5 (vertical), W = 7 (horizontal): k = 1x3, s = 1x2 -> out 5 x 3
        {"in=5x7 kernelWidth=3 kernelHeight=1 horizontalStride=2 verticalStride=1", "k=1x3 s=1x2 out=5x3"},
        {"in=7x7 kernelWidth=3 kernelHeight=3 horizontalStride=2", "ours a positional parameter of the 2-D syntax"},
    });
}

TEST(CntkDialect, ImageLayoutsAndWeightMatrix) {
    // "cudnn": (W,H,C) column-major = row-major [C][H][W]; "HWC": (C,W,H) column-major = [H][W][C]
    DialectResult r = cases::run("cntk", "in=5x5 c=3 mapCount=4 kernelWidth=3 kernelHeight=3 horizontalStride=1 verticalStride=1");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::ncx);
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::oix);  // [mapCount][C][kH][kW]
    EXPECT_EQ(r.descriptor.out_channels, 4);
    r = cases::run("cntk", "in=5x5 c=3 mapCount=4 kernelWidth=3 kernelHeight=3 horizontalStride=1 verticalStride=1 imageLayout=HWC");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::nxc);
    // the weight matrix [mapCount, kW*kH*C]: (kw, kh, c) of map m at m*kW*kH*C + kw + kW*(kh + kH*c),
    // which is exactly the OIX index ((m*C + c)*kH + kh)*kW + kw
    const std::int64_t kW = 3, kH = 3, C = 3;
    for (std::int64_t m = 0; m < 4; ++m)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t kh = 0; kh < kH; ++kh)
                for (std::int64_t kw = 0; kw < kW; ++kw)
                    EXPECT_EQ(m * kW * kH * C + kw + kW * (kh + kH * c), ((m * C + c) * kH + kh) * kW + kw);
}

TEST(CntkDialect, SharingFalseMarksTheAxis) {
    const DialectResult r = cases::run("cntk", "in=6x7 k=3x3 sharing=false:true:true autoPadding=false");
    ASSERT_TRUE(r.ok());
    // CNTK order: the first flag is W, convcheck's axis 1
    EXPECT_TRUE(r.weights_shared[0]);
    EXPECT_FALSE(r.weights_shared[1]);
    // the request carries it: CNTK spells it back, no other framework can say it
    std::string why_not;
    for (const Dialect& d : all_dialects()) {
        const auto spelled = d.spell(r.request, &why_not);
        if (d.name != "cntk") {
            EXPECT_FALSE(spelled.has_value()) << d.name;
            continue;
        }
        ASSERT_TRUE(spelled.has_value());
        EXPECT_EQ(spelled->at("sharing"), "false:true:true");
        EXPECT_EQ(d.read(*spelled).weights_shared, r.weights_shared);
    }
}

namespace {
// CNTK's column-major descriptions, literally: cudnn stores the image (W, H, C) column-major, so
// (w, h, c) is at w + W*(h + H*c); HWC stores (C, W, H) column-major, so (c, w, h) is at c + C*(w + W*h).
// The weight matrix [mapCount, kW*kH*C]: row m, (kw, kh, c) at m*kW*kH*C + kw + kW*(kh + kH*c).
std::vector<float> cntk_image(const std::string& layout, std::int64_t C, std::int64_t H, std::int64_t W,
                              const std::vector<double>& chw) {
    std::vector<float> buffer(C * H * W);
    for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t w = 0; w < W; ++w) {
                const std::int64_t at = layout == "cudnn" ? w + W * (h + H * c) : c + C * (w + W * h);
                buffer[at] = static_cast<float>(chw[(c * H + h) * W + w]);
            }
    return buffer;
}
}  // namespace

TEST(CntkDialect, ColumnMajorLayoutsRunThroughTheReference) {
    const std::int64_t C = 2, H = 4, W = 5, M = 3, kH = 3, kW = 2;
    std::vector<double> image(C * H * W), weights_ockk(M * C * kH * kW);
    for (std::size_t i = 0; i < image.size(); ++i) image[i] = double(int(i * 5 % 7) - 3);
    for (std::size_t i = 0; i < weights_ockk.size(); ++i) weights_ockk[i] = double(int(i * 3 % 5) - 2);
    std::vector<float> matrix(M * kW * kH * C);
    for (std::int64_t m = 0; m < M; ++m)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t kh = 0; kh < kH; ++kh)
                for (std::int64_t kw = 0; kw < kW; ++kw)
                    matrix[m * kW * kH * C + kw + kW * (kh + kH * c)] =
                        static_cast<float>(weights_ockk[((m * C + c) * kH + kh) * kW + kw]);
    std::vector<double> expected;
    for (const std::string layout : {"cudnn", "HWC"}) {
        const DialectResult r = cases::run(
            "cntk", "in=4x5 c=2 mapCount=3 kernelWidth=2 kernelHeight=3 horizontalStride=1 verticalStride=1 zeroPadding=true "
                    "imageLayout=" + layout);
        ASSERT_TRUE(r.ok()) << layout;
        const std::vector<float> src = cntk_image(layout, C, H, W, image);
        const auto got = reference::convolution(r.descriptor, src.data(), matrix.data(), nullptr).dst;
        if (expected.empty()) {
            ConvDescriptor canonical = r.descriptor;
            canonical.data_format = DataFormat::ncx;
            expected = reference::convolution_summation(canonical, image, weights_ockk, {}).dst;
        }
        EXPECT_EQ(got, expected) << layout;
    }
}

TEST(CntkDialect, SpellsItsOwnReadingsBack) {
    // mixed autoPadding (negative auto pads included), the 2-D HWC syntax, and sharing=false
    for (const char* text : {"in=8x7 kernel=2:1:1 stride=4:3:1 autoPadding=true:false:false",
                             "in=7x9 kernel=3:3:1 stride=2:1:1 autoPadding=false:true:false lowerPad=1:0:0 upperPad=1:0:0",
                             "in=5x7 kernelWidth=3 kernelHeight=1 horizontalStride=2 verticalStride=1 zeroPadding=true imageLayout=HWC",
                             "in=6x7 k=3x3 sharing=false:true:true autoPadding=false"}) {
        const DialectResult r = cases::run("cntk", text);
        ASSERT_TRUE(r.ok()) << text;
        std::string why_not;
        const auto spelled = find_dialect("cntk")->spell(r.request, &why_not);
        ASSERT_TRUE(spelled.has_value()) << text << ": " << why_not;
        const DialectResult back = find_dialect("cntk")->read(*spelled);
        ASSERT_TRUE(back.ok()) << to_string(*spelled);
        EXPECT_EQ(back.descriptor, r.descriptor) << text << " -> " << to_string(*spelled);
        EXPECT_EQ(back.weights_shared, r.weights_shared) << text;
    }
}
