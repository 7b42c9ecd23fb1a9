// The runner's side of ABI 1.2 memory strides (strided_buffers.hpp): who is sent a strided or OXI case,
// how the gaps are filled, and how a written gap or an unwritten element is found.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "convcheck/runner/strided_buffers.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

PluginInfo plugin(int minor, std::uint32_t strided = 0) {
    PluginInfo info;
    info.abi_major = 1;
    info.abi_minor = minor;
    info.strided_tensors = strided;
    return info;
}

}  // namespace

TEST(StridedBuffers, OnlyAPluginThatClaimsATensorIsSentItStrided) {
    const ConvDescriptor dense = parse_descriptor("c=2,o=3,in=4x5,k=3x3");
    const ConvDescriptor src = parse_descriptor("c=2,o=3,in=4x5,k=3x3,ss=80x40x8x1");
    const ConvDescriptor dst = parse_descriptor("c=2,o=3,in=4x5,k=3x3,ds=40x10x4x1");
    const ConvDescriptor oxi = parse_descriptor("c=2,o=3,in=4x5,k=3x3,wei=oxi");
    for (int minor : {0, 1}) {
        EXPECT_EQ(layout_unclaimed(plugin(minor, ~0u), dense), "");
        EXPECT_NE(layout_unclaimed(plugin(minor, ~0u), src).find("built against ABI 1." + std::to_string(minor) +
                                                                 ", which has no memory strides"),
                  std::string::npos);
        EXPECT_NE(layout_unclaimed(plugin(minor, ~0u), oxi).find("which has no OXI filter format"), std::string::npos);
    }
    EXPECT_EQ(layout_unclaimed(plugin(2), oxi), "");  // OXI is claimed through filter_formats, like OIX and XIO
    EXPECT_NE(layout_unclaimed(plugin(2), src).find("does not claim strided src"), std::string::npos);
    EXPECT_NE(layout_unclaimed(plugin(2, CONVCHECK_BIT(CONVCHECK_TENSOR_SRC)), dst).find("does not claim strided dst"),
              std::string::npos);
    EXPECT_EQ(layout_unclaimed(plugin(2, CONVCHECK_BIT(CONVCHECK_TENSOR_DST)), dst), "");
}

TEST(StridedBuffers, GapsHoldTheFillAndAWrittenGapIsFound) {
    // dst [1][3][2][3] with rows pitched 4 and planes 10: one gap per row, two per plane
    const ConvDescriptor d = parse_descriptor("c=2,o=3,in=4x5,k=3x3,ds=40x10x4x1");
    ASSERT_EQ(layout_bytes(d, TensorRole::dst), static_cast<std::size_t>(2 * 10 + 1 * 4 + 2 + 1) * 4);
    std::vector<float> dst(layout_bytes(d, TensorRole::dst) / sizeof(float), 1.0f);
    fill_gaps(d, TensorRole::dst, dst.data());
    EXPECT_EQ(unwritten_dst_elements(d, dst.data()), 0);  // every element holds 1.0
    EXPECT_EQ(written_gaps(d, dst.data()), "");
    std::memset(&dst[3], 0, sizeof(float));  // the gap after the first row
    const std::string why = written_gaps(d, dst.data());
    EXPECT_NE(why.find("wrote 1 of the 9 gap elements"), std::string::npos) << why;
    EXPECT_NE(why.find("first at element offset 3"), std::string::npos) << why;
    std::memset(&dst[4], 0xFF, sizeof(float));  // element (0, 0, 1, 0) back to the fill
    EXPECT_EQ(unwritten_dst_elements(d, dst.data()), 1);
}
