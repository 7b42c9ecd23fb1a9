// gemm_1x1 on the user's f32 NCX buffers splits a small layer's GEMM into blocks of output channels
// (detail::ncx_problem) so that 2 threads have work at batch 1. Every split (several blocks, a short
// last block, groups, bias) must agree exactly with the reference, and 1 and 2 threads bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// gemm_1x1 on `text` with random (not exact) data at 1 and 2 threads: the rounding of each sum shows, so equal
// bits mean the same order
::testing::AssertionResult same_bits_on_one_and_two_threads(const char* text, std::uint64_t seed) {
    const ConvDescriptor d = parse_descriptor(text);
    const accuracy::Contract contract{d.dtype, DataType::f32};
    const accuracy::ExactFill fill = accuracy::make_exact_fill(d, contract, seed);
    Buffers one = make_buffers(d, fill.src, fill.weights, fill.bias), two = one;
    for (std::int64_t i = 0; i < d.src_elements(); ++i) one.src.set(i, 0.1 + 0.37 * std::sin(double(i)));
    two.src = one.src;
    run_optimized(d, one, Options{1, Path::gemm_1x1});
    run_optimized(d, two, Options{2, Path::gemm_1x1});
    if (std::memcmp(one.dst.data(), two.dst.data(), d.dst_elements() * sizeof(float)) == 0)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << text << " seed=" << seed << ": 1 and 2 threads differ";
}

}  // namespace

TEST(GemmNcx, OutputChannelBlocksAgreeExactlyAndAreThreadCountIndependent) {
    for (const char* text : {"conv:c=40,o=96,in=7x7,k=1x1,bias=1,data=ncx,wei=oix",       // 2 blocks of 48
                             "conv:c=24,o=200,in=5x3,k=1x1,data=ncx,wei=oix",              // 4 blocks, the last short
                             "conv:n=1,c=32,o=192,g=2,in=6x6,k=1x1,bias=1,data=ncx,wei=oix",  // per group
                             "conv:n=3,c=8,o=144,in=4x4,k=1x1,data=ncx,wei=oix",          // 3 images: 2 blocks each
                             "conv:c=16,o=100,in=9,k=1,bias=1,data=ncx,wei=oix"}) {       // 1-D
        ASSERT_TRUE(why_unavailable(parse_descriptor(text), Path::gemm_1x1).empty()) << text;
        EXPECT_TRUE(paths_agree_exactly(text, 7, {Path::gemm_1x1}));
        EXPECT_TRUE(same_bits_on_one_and_two_threads(text, 8));
    }
}

// With AVX-512, gemm_1x1 on the user's NCX buffers runs the blocked kernel's register tiles with the image's
// pixels as lanes (ncx_pointwise.hpp): super blocks of 4 (64 pixels: two input-channel blocks with and
// without bias, two blocks of output channels), 3 (48) and 2 vectors (196 pixels: a partial last super
// block, read from a copy in the last image only), one vector for images of 16 pixels or fewer (every
// group's rows near the end of src: the copy), 3-D. Without AVX-512 (CONVCHECK_NO_AVX512=1) the same cases run Eigen's GEMM.
TEST(GemmNcx, RegisterTilesOverPixelsAgreeExactlyAndAreThreadCountIndependent) {
    for (const char* text : {"conv:n=2,c=200,o=300,in=8x8,k=1x1,bias=1,data=ncx,wei=oix",
                             "conv:n=2,c=16,o=20,in=6x8,k=1x1,bias=1,data=ncx,wei=oix",
                             "conv:n=3,c=24,o=40,in=14x14,k=1x1,data=ncx,wei=oix",
                             "conv:n=1,c=4,o=6,g=2,in=5,k=1,bias=1,data=ncx,wei=oix",
                             "conv:n=2,c=10,o=17,in=3x4x5,k=1x1x1,data=ncx,wei=oix",
                             "conv:n=1,c=150,o=12,in=4x16,k=1x1,data=ncx,wei=oix"}) {
        EXPECT_TRUE(paths_agree_exactly(text, 9, {Path::gemm_1x1}));
        EXPECT_TRUE(paths_agree_exactly(text, 9, {Path::gemm_1x1}, 2));
        EXPECT_TRUE(same_bits_on_one_and_two_threads(text, 10));
    }
}
