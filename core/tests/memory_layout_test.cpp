#include <gtest/gtest.h>

#include <set>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/memory_layout.hpp"

using namespace convcheck;

namespace {

void expect_refused(const std::string& text, const std::string& attribute_part, const std::string& rule_part) {
    try {
        parse_descriptor(text);
        ADD_FAILURE() << "accepted: " << text;
    } catch (const ConvError& e) {
        EXPECT_NE(e.attribute().find(attribute_part), std::string::npos) << e.what();
        EXPECT_NE(e.rule().find(rule_part), std::string::npos) << e.what();
    }
}

// Offsets in canonical order.
std::vector<std::int64_t> offsets(const ConvDescriptor& d, TensorRole role) {
    std::vector<std::int64_t> out;
    for_each_element(d, role, [&](std::int64_t flat, std::int64_t at) {
        EXPECT_EQ(flat, static_cast<std::int64_t>(out.size()));
        out.push_back(at);
    });
    return out;
}

}  // namespace

TEST(MemoryLayout, DenseStridesAreRowMajor) {
    EXPECT_EQ(dense_strides({2, 3, 4, 5}), (std::vector<std::int64_t>{60, 20, 5, 1}));
    const auto d = parse_descriptor("n=2,c=3,o=4,in=5x6,k=3x3");
    const MemoryLayout src = layout_of(d, TensorRole::src);
    EXPECT_TRUE(src.dense());
    EXPECT_EQ(src.span(), d.src_elements());
    // dense NCX: canonical order is memory order
    const auto at = offsets(d, TensorRole::src);
    for (std::size_t i = 0; i < at.size(); ++i) ASSERT_EQ(at[i], static_cast<std::int64_t>(i));
}

TEST(MemoryLayout, OxiIsOhwi) {
    const auto d = parse_descriptor("c=3,o=4,in=5x6,k=2x3,wei=oxi");
    EXPECT_EQ(d.weights_dims(), (std::vector<std::int64_t>{4, 2, 3, 3}));
    // canonical OIX index (o, i, kh, kw) lies at ((o * KH + kh) * KW + kw) * I + i
    const auto at = offsets(d, TensorRole::weights);
    for (std::int64_t o = 0; o < 4; ++o)
        for (std::int64_t i = 0; i < 3; ++i)
            for (std::int64_t kh = 0; kh < 2; ++kh)
                for (std::int64_t kw = 0; kw < 3; ++kw)
                    ASSERT_EQ(at[((o * 3 + i) * 2 + kh) * 3 + kw], ((o * 2 + kh) * 3 + kw) * 3 + i);
    EXPECT_EQ(parse_descriptor(to_string(d)), d);
}

TEST(MemoryLayout, APermutedViewReadsNxcMemoryAsNcx) {
    // NCHW dims [1][3][4][5] over NHWC memory: strides n=60, c=1, h=15, w=3
    const auto d = parse_descriptor("c=3,o=2,in=4x5,k=1,ss=60x1x15x3");
    EXPECT_FALSE(layout_of(d, TensorRole::src).dense());
    EXPECT_EQ(layout_of(d, TensorRole::src).span(), 60);
    const auto at = offsets(d, TensorRole::src);
    for (std::int64_t c = 0; c < 3; ++c)
        for (std::int64_t x = 0; x < 20; ++x) ASSERT_EQ(at[c * 20 + x], x * 3 + c);
    // no gaps in a permutation
    for (bool gap : gap_map(d, TensorRole::src)) EXPECT_FALSE(gap);
}

TEST(MemoryLayout, PaddedRowsLeaveGapsBetweenRows) {
    // rows of 5 with a pitch of 8: three gaps after every row
    const auto d = parse_descriptor("c=1,o=1,in=2x5,k=1,ss=16x16x8x1");
    const MemoryLayout l = layout_of(d, TensorRole::src);
    EXPECT_EQ(l.span(), 13);
    const auto gaps = gap_map(d, TensorRole::src);
    std::set<std::int64_t> holes;
    for (std::size_t i = 0; i < gaps.size(); ++i)
        if (gaps[i]) holes.insert(static_cast<std::int64_t>(i));
    EXPECT_EQ(holes, (std::set<std::int64_t>{5, 6, 7}));
    EXPECT_EQ(l.offset({0, 0, 1, 4}), 12);
}

TEST(MemoryLayout, PrintsAndParsesStridesRoundTrip) {
    const auto d = parse_descriptor("c=2,o=3,in=4x4,k=3x3,ss=64x32x8x1,ws=18x9x3x1,ds=16x8x4x2");
    EXPECT_EQ(d.src_strides, (std::vector<std::int64_t>{64, 32, 8, 1}));
    const std::string text = to_string(d);
    EXPECT_NE(text.find(",ss=64x32x8x1,ws=18x9x3x1,ds=16x8x4x2"), std::string::npos) << text;
    EXPECT_EQ(parse_descriptor(text), d);
    // no strides: the canonical text is unchanged from before strides existed
    EXPECT_EQ(to_string(parse_descriptor("c=1,o=1,in=3,k=1")).find("ss="), std::string::npos);
}

TEST(MemoryLayout, RefusesStridesThatBreakARule) {
    expect_refused("c=2,o=1,in=4x4,k=1,ss=32x16x4", "ss", "one per dim");
    expect_refused("c=2,o=1,in=4x4,k=1,ss=32x16x4x1x1", "ss", "one per dim");
    expect_refused("c=2,o=1,in=4x4,k=1,ss=32x16x-4x1", "ss", ">= 1");
    expect_refused("c=2,o=1,in=4x4,k=1,ss=32x0x4x1", "ss", ">= 1");
    expect_refused("c=2,o=1,in=4x4,k=1,ss=32x16x2x1", "ss", "overlap");      // rows of 4 every 2
    expect_refused("c=2,o=1,in=4x4,k=1,ss=32x1x8x1", "ss", "overlap");       // channels and pixels both 1 apart
    EXPECT_NO_THROW(parse_descriptor("c=2,o=1,in=4x4,k=1,ss=32x1x8x2"));    // channels between pixels 2 apart: interleaved
    expect_refused("c=2,o=3,in=4x4,k=3x3,ws=18x9x3x0", "ws", ">= 1");
    expect_refused("c=2,o=3,in=4x4,k=3x3,ds=2x2x2x1", "ds", "overlap");
    expect_refused("c=2,o=1,in=4x4,k=1,ss=1x4611686018427387904x4x1", "ss", "overflows");
    expect_refused("c=2,o=1,in=4x4,k=1,ss=1x2x3x4x5x6", "ss", "at most 5");
    // extent-1 dims take any stride >= 1: n=1 here
    EXPECT_NO_THROW(parse_descriptor("c=2,o=1,in=4x4,k=1,ss=1x16x4x1"));
}

TEST(MemoryLayout, CopyTensorMovesElementsBetweenLayoutsAndLeavesGapsAlone) {
    // OXI weights to OIX and back; a strided src to dense and back, the strided buffer's gaps untouched
    const auto oxi = parse_descriptor("c=3,o=2,in=4x4,k=2x3,wei=oxi");
    auto oix = oxi;
    oix.filter_format = FilterFormat::oix;
    std::vector<float> w(static_cast<std::size_t>(oxi.weights_elements())), dense(w.size()), back(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
    copy_tensor(oxi, w.data(), oix, dense.data(), TensorRole::weights);
    EXPECT_EQ(dense[1], w[3]);  // OIX (o0, i0, kh0, kw1) is OXI offset (0*2 + 0)*3*3 + 1*3 + 0 = 3
    copy_tensor(oix, dense.data(), oxi, back.data(), TensorRole::weights);
    EXPECT_EQ(back, w);

    const auto padded = parse_descriptor("c=1,o=1,in=2x5,k=1,ss=16x16x8x1");
    auto plain = padded;
    plain.src_strides.clear();
    std::vector<float> src(10), strided(13, -1.0f), again(10);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i + 1);
    copy_tensor(plain, src.data(), padded, strided.data(), TensorRole::src);
    EXPECT_EQ(strided, (std::vector<float>{1, 2, 3, 4, 5, -1, -1, -1, 6, 7, 8, 9, 10}));
    copy_tensor(padded, strided.data(), plain, again.data(), TensorRole::src);
    EXPECT_EQ(again, src);
    EXPECT_THROW(copy_tensor(plain, src.data(), oix, again.data(), TensorRole::src), ConvError);
}
