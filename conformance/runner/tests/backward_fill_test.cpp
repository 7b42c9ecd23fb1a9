// A backward pass's bound-mode data is named by its seed: src, then weights, then diff_dst, each value one draw of
// uniform_real_distribution(-1, 1) on one mt19937_64 seeded with the case's seed xor "bwdpass", rounded to the
// dtype; backward/data.cpp draws them with the forward fill's fast stream, and every reproducer keeps its data.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "../backward/operation.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

std::vector<double> one_value_at_a_time(std::mt19937_64& rng, std::int64_t n, DataType dtype) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = round_to(dtype, u(rng));
    return v;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

TEST(BackwardFill, BoundModesDataIsOneDrawAtATimeOnTheSeedsStream) {
    // small and large tensors (from 2^18 values the stream converts on threads), f32 and bf16
    for (const char* text : {"n=2,c=3,o=4,in=9x9,k=3x3,bias=1,dir=bwd_d", "n=2,c=8,o=16,in=130x130,k=3x3,dir=bwd_w,dt=bf16"})
        for (const std::uint64_t seed : {1ull, 0xFFFFFFFFFFFFFFFFull}) {
            const ConvDescriptor d = parse_descriptor(text);
            std::mt19937_64 rng(seed ^ 0x62776470617373ULL);
            const std::vector<double> src = one_value_at_a_time(rng, d.src_elements(), d.dtype);
            const std::vector<double> weights = one_value_at_a_time(rng, d.weights_elements(), d.dtype);
            const std::vector<double> diff_dst = one_value_at_a_time(rng, d.dst_elements(), d.dtype);
            const detail::BackwardInputs in = detail::backward_inputs(d, accuracy::Contract{}, accuracy::Mode::bound, seed);
            EXPECT_TRUE(same_bits(in.src, src)) << text << " seed " << seed;
            EXPECT_TRUE(same_bits(in.weights, weights)) << text << " seed " << seed;
            EXPECT_TRUE(same_bits(in.diff_dst, diff_dst)) << text << " seed " << seed;
        }
}
