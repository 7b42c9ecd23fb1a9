// Strides and dilations as large as the spec allows (up to 2^63-1) on an axis where they are never
// used: one output (a stride then never moves) or one tap (a dilation then never spreads). Every
// path must give the reference's exact result, with no step such as stride x channels overflowing
// (UBSan found that in the depthwise kernel through the ABI fuzzer: fuzz/corpus/abi/crash-ff8d7199...).
#include <gtest/gtest.h>

#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// Every path this CPU has for `text` (and the automatic choice) agrees exactly with the reference.
::testing::AssertionResult every_path_agrees(const std::string& text, std::uint64_t seed) {
    const ConvDescriptor d = parse_descriptor(text);
    if (!why_too_large(d).empty()) return ::testing::AssertionFailure() << text << ": " << why_too_large(d);
    std::vector<Path> paths = available_paths(d);
    paths.push_back(Path::automatic);
    return paths_agree_exactly(text, seed, paths);
}

constexpr const char* kHuge = "648518346341351424";  // 9 * 2^56: times 16 channels it overflows int64

}  // namespace

TEST(HugeSteps, StrideOnAnAxisWithOneOutput) {
    const std::string h = kHuge;
    for (const char* layout : {"data=ncx,wei=oix", "data=nxc,wei=xio"}) {
        const std::string l = layout;
        EXPECT_TRUE(every_path_agrees("conv:c=16,o=16,g=16,in=5x5,k=3x3,s=1x" + h + ",bias=1," + l, 1));  // depthwise
        EXPECT_TRUE(every_path_agrees("conv:c=16,o=16,g=16,in=5,k=3,s=" + h + ",pb=1,pe=1," + l, 2));      // depthwise 1-D
        EXPECT_TRUE(every_path_agrees("conv:c=5,o=7,in=6x5,k=3x2,s=" + h + "x2,pb=1x0," + l, 3));          // dense
        EXPECT_TRUE(every_path_agrees("conv:c=4,o=6,g=2,in=4x4x4,k=1x1x1,s=" + h + "x1x" + h + "," + l, 4));  // 1x1, 3-D
    }
}

TEST(HugeSteps, DilationOnAnAxisWithOneTap) {
    const std::string h = kHuge;
    for (const char* layout : {"data=ncx,wei=oix", "data=nxc,wei=xio"}) {
        const std::string l = layout;
        EXPECT_TRUE(every_path_agrees("conv:c=16,o=16,g=16,in=5x5,k=3x1,d=1x" + h + ",pb=1x0,pe=1x0," + l, 5));
        EXPECT_TRUE(every_path_agrees("conv:c=3,o=5,in=5x6,k=1x3,d=" + h + "x2,bias=1," + l, 6));
    }
}

// End padding past the last window's reach is never read: the plan runs without it (src/unread_padding.hpp), so a
// case of one output with pads_end = 196608 (the ABI fuzzer's, which took seconds under ASan copying 200 MB of zeros)
// holds what the same case without that padding holds, on every path, and gives the reference's result.
TEST(HugeSteps, EndPaddingNoWindowReadsIsNotCopied) {
    const std::string text = "conv:c=261,o=5,in=43,k=1,s=290271069732864,d=360287970189639680,pb=1,pe=196608";
    const ConvDescriptor d = parse_descriptor(text);
    ConvDescriptor unpadded = d;
    unpadded.pads_end[0] = 0;
    ASSERT_EQ(d.output_size(0), unpadded.output_size(0)) << text;
    for (const Path p : available_paths(d))
        EXPECT_EQ(path_memory_bytes(d, p), path_memory_bytes(unpadded, p)) << text << " on " << to_string(p);
    EXPECT_TRUE(every_path_agrees(text, 7));
}
