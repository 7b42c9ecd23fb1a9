// The bench's convolution buffers (bench/optimized_timer.hpp, ConvData) start on a 64-byte cache line, as the
// buffers oneDNN allocates for its own timing do: on std::vector's storage (16 bytes past a line for large
// buffers) every vector access of a channels-last depthwise layer straddles two lines, and the table compared
// our kernels on split accesses with oneDNN's on aligned ones (bench/results/forward-threads.md).
#include <gtest/gtest.h>

#include <cstdint>

#include "optimized_timer.hpp"

namespace convcheck::bench {
namespace {

bool on_a_line(const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

TEST(ConvData, EveryBufferStartsOnACacheLine) {
    // large (mmap-backed storage, where malloc's header puts the data 16 bytes past a page) and small
    for (const char* text : {"conv:n=8,c=144,o=144,g=144,in=56x56,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio",
                             "conv:n=1,c=3,o=5,in=7x7,k=3x3,bias=1"}) {
        const ConvData data(parse_descriptor(text));
        EXPECT_TRUE(on_a_line(data.src.data())) << text;
        EXPECT_TRUE(on_a_line(data.weights.data())) << text;
        EXPECT_TRUE(on_a_line(data.bias.data())) << text;
        EXPECT_TRUE(on_a_line(data.dst.data())) << text;
    }
}

}  // namespace
}  // namespace convcheck::bench
