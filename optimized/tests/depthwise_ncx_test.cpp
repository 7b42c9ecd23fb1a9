// depthwise_avx2 on f32 NCX buffers as they are (depthwise_ncx_avx2.cpp): rows cut into vectors of
// 8 outputs, inner tiles of up to 8 vectors of one row or 2-3 vectors of 4 rows, edge vectors that
// skip the taps in the padding lane by lane. A sweep of row widths (one vector, overlapping last
// vectors, one and several tiles), heights (groups of 4 rows and single rows), pads from -1 to 2 and
// both strides must agree exactly with the reference on integer data; on real data (and a weight of
// inf, which turns a multiplied padding tap into NaN) it must give the bits of the converted path
// (the same kernel family on a channels-last copy).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

bool has_avx2_depthwise(const std::string& text) {
    return why_unavailable(parse_descriptor(text), Path::depthwise_avx2).empty();
}

std::string dw(int c, const std::string& rest) {
    const std::string cs = std::to_string(c);
    return "conv:c=" + cs + ",o=" + cs + ",g=" + cs + "," + rest;
}

// The NCX output of `text` (data=ncx) and of the same layer on NXC buffers, as raw f32 bits.
::testing::AssertionResult same_bits_as_nxc(const std::string& text, std::uint64_t seed) {
    const ConvDescriptor ncx = parse_descriptor(text + ",data=ncx");
    const ConvDescriptor nxc = parse_descriptor(text + ",data=nxc");
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    std::vector<double> src(static_cast<std::size_t>(ncx.src_elements())), w(static_cast<std::size_t>(ncx.weights_elements())),
        b(static_cast<std::size_t>(ncx.bias_elements()));
    for (double& v : src) v = static_cast<float>(u(rng));
    for (double& v : w) v = static_cast<float>(u(rng));
    for (double& v : b) v = static_cast<float>(u(rng));
    w[0] = INFINITY;  // channel 0, tap (0, 0, 0): a padding tap multiplied instead of skipped gives NaN
    Buffers a = make_buffers(ncx, src, w, b), c = make_buffers(nxc, src, w, b);
    const std::vector<double> got = run_optimized(ncx, a, Options{1, Path::depthwise_avx2});
    const std::vector<double> want = run_optimized(nxc, c, Options{1, Path::depthwise_avx2});
    for (std::size_t i = 0; i < got.size(); ++i) {
        const float g = static_cast<float>(got[i]), e = static_cast<float>(want[i]);
        if (std::memcmp(&g, &e, sizeof g) != 0)
            return ::testing::AssertionFailure() << reproducer(ncx, Path::depthwise_avx2, seed) << ": output " << i << " is "
                                                 << g << ", the NXC path gives " << e;
    }
    return ::testing::AssertionSuccess();
}

}  // namespace

TEST(DepthwiseNcx, EveryWidthHeightPadAndStrideAgreesWithTheReference) {
    if (!has_avx2_depthwise(dw(8, "in=8x8,k=3x3,data=ncx"))) GTEST_SKIP() << "no AVX2 + FMA";
    int cases = 0;
    for (int stride : {1, 2})
        for (int width = 6; width <= 44; width += (width < 20 ? 1 : 3))
            for (int pb : {-1, 0, 1, 2})
                for (int pe : {-1, 0, 1, 2}) {
                    const int height = 1 + (width + pb + 2 * pe) % 9;
                    if (width + pb + pe < 3 || height + 2 < 3) continue;
                    const int channels = 1 + (width * 5 + pb * 3 + pe) % 11;
                    const std::string text =
                        "conv:n=2," + dw(channels, "").substr(5) + "in=" + std::to_string(height) + "x" + std::to_string(width) +
                        ",k=3x3,s=" + std::to_string(3 - stride) + "x" + std::to_string(stride) + ",pb=1x" + std::to_string(pb) +
                        ",pe=1x" + std::to_string(pe) + ",bias=" + std::to_string(width % 2) + ",data=ncx";
                    EXPECT_TRUE(paths_agree_exactly(text, static_cast<std::uint64_t>(width), {Path::depthwise_avx2}));
                    ++cases;
                }
    EXPECT_GT(cases, 500);
}

TEST(DepthwiseNcx, RanksDilationsAndCropsAgreeWithTheReference) {
    if (!has_avx2_depthwise(dw(8, "in=8x8,k=3x3,data=ncx"))) GTEST_SKIP() << "no AVX2 + FMA";
    const char* cases[] = {
        "in=4x6x19,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1",
        "in=3x9x24,k=2x3x3,s=2x1x2,pb=0x1x0,pe=1x0x1",
        "in=11x30,k=5x3,d=2x1,pb=4x1,pe=4x1,bias=1",
        "in=9x20,k=1x3,s=3x1,pb=0x0,pe=0x0",
        "in=3x17,k=3x3,pb=4x1,pe=5x1,bias=1",  // rows with no tap at all
        "in=40,k=3,s=2,pb=1,pe=1,bias=1",
        "in=2x9,k=3x3,pb=-1x2,pe=3x-1",
    };
    for (const char* rest : cases)
        for (int threads : {1, 2}) {
            const std::string text = "conv:n=2," + dw(13, "").substr(5) + rest + ",data=ncx";
            EXPECT_TRUE(paths_agree_exactly(text, 5, {Path::depthwise_avx2}, threads)) << text;
        }
}

TEST(DepthwiseNcx, SameBitsAsTheConvertedPath) {
    if (!has_avx2_depthwise(dw(8, "in=8x8,k=3x3,data=ncx"))) GTEST_SKIP() << "no AVX2 + FMA";
    // both strides, pads 0 to 2 at either end, rows of one tile, several tiles and an overlapping last vector
    for (int stride : {1, 2})
        for (int pad : {0, 1, 2}) {
            const std::string s = std::to_string(stride), p = std::to_string(pad);
            const std::string rest = "in=" + std::to_string(7 + 2 * pad) + "x" + std::to_string(13 + 12 * pad + 4 * stride) +
                                     ",k=3x3,s=" + s + "x" + s + ",pb=" + p + "x" + p + ",pe=1x1,bias=" + std::to_string(pad % 2);
            EXPECT_TRUE(same_bits_as_nxc(dw(12, rest), 3)) << rest;
        }
}
