// Every buffer a plan's WorkspacePool hands out starts on a cache line (64 bytes): the kernels load and
// store 64-byte vectors of packed panels and outputs there, and a std::vector's own storage of a large
// buffer starts 16 bytes past a line, so each such access would touch two lines.
#include <gtest/gtest.h>

#include <cstdint>

#include "workspace_pool.hpp"

using convcheck::optimized::detail::Workspace;
using convcheck::optimized::detail::WorkspacePool;

TEST(WorkspacePool, EveryBufferStartsOnACacheLine) {
    const WorkspacePool<float> floats;
    const WorkspacePool<std::int64_t> integers;
    for (const std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{1000}, std::size_t{1} << 20}) {
        Workspace<float> a = floats.take(n), b = floats.take(n + 3);
        Workspace<std::int64_t> c = integers.take(n);
        EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(a.data()) % 64) << n;
        EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(b.data()) % 64) << n;
        EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(c.data()) % 64) << n;
    }
    // a buffer given back and taken again, grown
    { Workspace<float> small = floats.take(5); }
    Workspace<float> grown = floats.take(std::size_t{3} << 20);
    EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(grown.data()) % 64);
}
