// The reference's edges on strided tensors and OXI weights (ABI 1.2, core/include/convcheck/core/memory_layout.hpp): the same
// problem in any memory layout is the same convolution, and the gaps between elements are neither read
// (they hold NaN) nor written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/core/memory_layout.hpp"

using namespace convcheck;

namespace {

std::vector<double> ramp(std::int64_t n, double step) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7) % 13) * step - 3.0 * step;
    return v;
}

// A buffer of the tensor's span, all bytes 0xFF (NaN in f32) before the elements are stored.
std::vector<float> strided_buffer(const ConvDescriptor& d, TensorRole role) {
    std::vector<float> b(static_cast<std::size_t>(layout_of(d, role).span()));
    std::memset(b.data(), 0xFF, b.size() * sizeof(float));
    return b;
}

void expect_same_convolution(const std::string& dense_text, const std::string& strided_text) {
    const ConvDescriptor dense = parse_descriptor(dense_text), strided = parse_descriptor(strided_text);
    const auto src = ramp(dense.src_elements(), 0.5), weights = ramp(dense.weights_elements(), 0.25);
    const auto bias = ramp(dense.bias_elements(), 1.0);
    const auto want = reference::convolution_summation(dense, src, weights, bias);

    auto s = strided_buffer(strided, TensorRole::src), w = strided_buffer(strided, TensorRole::weights);
    auto dst = strided_buffer(strided, TensorRole::dst);
    reference::ncx_to_src(strided, src, s.data());
    reference::oix_to_weights(strided, weights, w.data());
    std::vector<float> b(bias.begin(), bias.end());
    const auto got = reference::convolution(strided, s.data(), w.data(), b.empty() ? nullptr : b.data());
    ASSERT_EQ(got.dst.size(), want.dst.size()) << strided_text;
    for (std::size_t i = 0; i < want.dst.size(); ++i) ASSERT_EQ(got.dst[i], want.dst[i]) << strided_text << " output " << i;

    reference::round_dst_to_output(strided, got.dst, dst.data());
    EXPECT_EQ(reference::dst_to_ncx(strided, dst.data()), std::vector<double>(want.dst.begin(), want.dst.end()));
    const auto gaps = gap_map(strided, TensorRole::dst);
    std::int64_t gap_count = 0;
    for (std::size_t i = 0; i < gaps.size(); ++i)
        if (gaps[i]) {
            ++gap_count;
            EXPECT_TRUE(std::isnan(dst[i])) << strided_text << ": gap " << i << " written";
        }
    EXPECT_EQ(gap_count, layout_of(strided, TensorRole::dst).span() - strided.dst_elements());
}

}  // namespace

TEST(StridedLayout, PermutedViewsArePermutedReads) {
    // src NCHW dims over NHWC memory; dst NCHW dims over NHWC memory; OIHW weights stored [kw][kh][I][O]
    expect_same_convolution("n=2,c=3,o=4,in=4x5,k=3x3,pb=1x1,pe=1x1,bias=1",
                            "n=2,c=3,o=4,in=4x5,k=3x3,pb=1x1,pe=1x1,bias=1,ss=60x1x15x3,ws=1x4x12x36,ds=80x1x20x4");
}

TEST(StridedLayout, PaddedRowsLeaveTheGapsAlone) {
    // rows of 5 (src) and 3 (dst) with pitches 8 and 4; channel planes padded too
    expect_same_convolution("c=2,o=3,in=4x5,k=2x3,s=1x1",
                            "c=2,o=3,in=4x5,k=2x3,s=1x1,ss=80x40x8x1,ds=60x16x4x1");
    expect_same_convolution("n=2,c=4,o=2,in=7,k=3,s=2,data=nxc",
                            "n=2,c=4,o=2,in=7,k=3,s=2,data=nxc,ss=50x6x1,ds=9x3x1");
}

TEST(StridedLayout, OxiIsOhwi) {
    expect_same_convolution("c=3,o=4,in=5x5,k=3x2,pb=1x0,pe=1x1,bias=1,data=nxc",
                            "c=3,o=4,in=5x5,k=3x2,pb=1x0,pe=1x1,bias=1,data=nxc,wei=oxi");
    expect_same_convolution("c=4,o=6,g=2,in=3x4x5,k=2x2x3,wei=oix", "c=4,o=6,g=2,in=3x4x5,k=2x2x3,wei=oxi,ws=200x40x20x5x1");
}
