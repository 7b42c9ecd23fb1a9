// TensorFlow atrous_conv2d (seed 000): the dialect by hand, and the seed's reduction (space_to_batch,
// VALID conv, batch_to_space) as a third reading of the reference, equal to the direct dilated
// convolution for every rate, filter size and padding tried.

#include "case_table.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/dialects/atrous.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(AtrousDialect, ByHand) {
    check_table("atrous", {
        // VALID: out = in - rate*(k-1) = 7 - 4 = 3; a dilated convolution with d = rate
        {"in=7x7 k=3x3 rate=2 padding=VALID", "pb=0x0 pe=0x0 out=3x3 d=2x2"},
        // SAME: pad (k-1)*rate = 4 -> 2/2, out = in
        {"in=7x7 k=3x3 rate=2 padding=SAME", "pb=2x2 pe=2x2 out=7x7"},
        // SAME, even filter: pad (2-1)*3 = 3 -> 1/2 (the extra at the end)
        {"in=5x5 k=2x2 rate=3 padding=SAME", "pb=1x1 pe=2x2 out=5x5"},
        // non-square filter, rate 3: 10 - 3*(2-1) = 7, 12 - 3*(4-1) = 3
        {"in=10x12 k=2x4 rate=3 padding=VALID", "out=7x3"},
        // VALID, 5 - 2*(3-1) = 1 through the reduction: extra 1, 3 blocks, conv 1, 2 - 1 = 1
        {"in=5x5 k=3x3 rate=2 padding=VALID", "out=1x1"},
        // VALID, in 4: no extra, 2 blocks, conv 2 - 3 + 1 = 0: an empty tensor
        {"in=4x4 k=3x3 rate=2 padding=VALID", "empty out=0x0"},
        {"in=7x7 k=3x3 rate=1 padding=VALID", "out=5x5 d=1x1"},
    });
}

TEST(AtrousDialect, RejectsWhatTensorflowRejects) {
    check_table("atrous", {
        {"in=7x7 k=3x3 rate=0", "error rate 0 cannot be less than one"},
        {"in=7x7 k=3x3 rate=2 padding=EXPLICIT", "error padding is other than 'VALID' or 'SAME'"},
        // in 3: extra 1, 2 blocks, conv 0, then batch_to_space crops 1 from 0
        {"in=3x3 k=3x3 rate=2 padding=VALID", "error cropped_shape[0]=-1 must be non-negative"},
        // in 2: no extra, 1 block, conv 1 - 3 + 1 = -1
        {"in=2x2 k=3x3 rate=2 padding=VALID", "error Computed output size would be negative: -1"},
        {"in=7 k=3 rate=2", "ours 2-D"},
    });
}

namespace {

atrous::Nhwc ramp(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
    atrous::Nhwc t{n, h, w, c, {}};
    t.values.resize(n * h * w * c);
    for (std::size_t i = 0; i < t.values.size(); ++i) t.values[i] = double(int(i * 7 % 11) - 5);
    return t;
}

// The direct reading: reference::convolution on the dialect's descriptor (NHWC / HWIO, f32 buffers:
// small integers are exact).
atrous::Nhwc direct(const ConvDescriptor& d, const atrous::Nhwc& value, const std::vector<double>& filters_hwio) {
    std::vector<float> src(value.values.begin(), value.values.end());
    std::vector<float> weights(filters_hwio.begin(), filters_hwio.end());
    const auto r = reference::convolution(d, src.data(), weights.data(), nullptr);
    atrous::Nhwc out{d.batch, d.output_size(0), d.output_size(1), d.out_channels, {}};
    out.values.resize(out.batch * out.height * out.width * out.channels);
    for (std::int64_t n = 0; n < out.batch; ++n)
        for (std::int64_t o = 0; o < out.channels; ++o)
            for (std::int64_t y = 0; y < out.height; ++y)
                for (std::int64_t x = 0; x < out.width; ++x)
                    out.at(n, y, x, o) = r.dst[((n * out.channels + o) * out.height + y) * out.width + x];
    return out;
}

}  // namespace

TEST(AtrousReduction, SpaceToBatchThenBatchToSpaceIsTheIdentity) {
    const atrous::Nhwc value = ramp(2, 5, 7, 3);
    for (std::int64_t rate = 1; rate <= 4; ++rate) {
        const auto red = atrous::atrous_paddings(5, 7, 3, 2, rate, "SAME");
        const auto s2b = atrous::space_to_batch(value, red.paddings, rate);
        EXPECT_EQ(s2b.batch, 2 * rate * rate);
        const atrous::Pads2 crop = red.paddings;  // cropping what was padded gives the input back
        const auto back = atrous::batch_to_space(s2b, crop, rate);
        EXPECT_EQ(back.values, value.values) << "rate " << rate;
    }
}

TEST(AtrousReduction, SpaceToBatchPlacesBlocksAsTensorflowDefines) {
    // 1 x 4 x 4 x 1, values 0..15, rate 2, no padding: batch (i*2 + j) holds value[2y + i, 2x + j]
    atrous::Nhwc v{1, 4, 4, 1, {}};
    for (int i = 0; i < 16; ++i) v.values.push_back(i);
    const auto s = atrous::space_to_batch(v, atrous::Pads2{}, 2);
    EXPECT_EQ(s.values, (std::vector<double>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
}

TEST(AtrousReduction, EqualsTheDirectDilatedConvolutionForEveryRateFilterAndPadding) {
    int cases = 0;
    for (const char* padding : {"SAME", "VALID"})
        for (std::int64_t rate = 1; rate <= 4; ++rate)
            for (std::int64_t kh = 1; kh <= 4; ++kh)
                for (std::int64_t kw = 1; kw <= 3; ++kw)
                    for (std::int64_t h : {1, 4, 7, 9})
                        for (std::int64_t w : {3, 8}) {
                            atrous::AtrousConv2dAttributes a;
                            a.shapes = {2, 2, 3, {h, w}, {kh, kw}};
                            a.rate = rate;
                            a.padding = padding;
                            const DialectResult r = atrous::atrous_conv2d(a);
                            const std::string repro = std::string("in=") + std::to_string(h) + "x" +
                                                      std::to_string(w) + " k=" + std::to_string(kh) + "x" +
                                                      std::to_string(kw) + " rate=" + std::to_string(rate) +
                                                      " padding=" + padding + " n=2 c=2 o=3";
                            const atrous::Nhwc value = ramp(2, h, w, 2);
                            std::vector<double> filters(kh * kw * 2 * 3);
                            for (std::size_t i = 0; i < filters.size(); ++i) filters[i] = double(int(i * 5 % 7) - 3);
                            if (r.error) {
                                // TF fails in the reduction too, at the same step
                                EXPECT_THROW(atrous::atrous_conv2d_by_space_to_batch(value, filters, kh, kw, 3, rate, padding),
                                             ConvError)
                                    << repro;
                                continue;
                            }
                            const atrous::Nhwc third =
                                atrous::atrous_conv2d_by_space_to_batch(value, filters, kh, kw, 3, rate, padding);
                            EXPECT_EQ(third.height, r.output_size[0]) << repro;
                            EXPECT_EQ(third.width, r.output_size[1]) << repro;
                            if (r.empty_output) {
                                EXPECT_TRUE(third.values.empty()) << repro;
                                continue;
                            }
                            EXPECT_EQ(third.values, direct(r.descriptor, value, filters).values) << repro;
                            ++cases;
                        }
    EXPECT_GT(cases, 250);  // most of the grid has a non-empty output
}
