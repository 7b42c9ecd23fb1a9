// Bound mode's data is named by its seed: make_random_fill (random_fill.cpp, which turns the twister's words into
// values on threads) gives, bit for bit, what the one-thread definition below gives: src, then weights, then
// bias, each value one draw of uniform_real_distribution(-1, 1) on one mt19937_64, rounded to its dtype. Every
// reproducer printed before keeps its data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

RandomFill one_thread_fill(const ConvDescriptor& d, std::uint64_t seed) {
    RandomFill f;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    auto draw = [&](DataType dtype) { return round_to(dtype, u(rng)); };
    std::int64_t spatial = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.input_size[a];
    f.src.resize(d.batch * d.in_channels * spatial);
    for (auto& v : f.src) v = draw(d.src_dtype());
    std::int64_t kernel = 1;
    for (int a = 0; a < d.rank; ++a) kernel *= d.kernel_size[a];
    f.weights.resize(d.out_channels * d.in_channels_per_group() * kernel);
    for (auto& v : f.weights) v = draw(d.weights_dtype());
    if (d.has_bias) {
        f.bias.resize(d.out_channels);
        for (auto& v : f.bias) v = draw(d.bias_dtype());
    }
    return f;
}

// (an empty vector, a case without a bias, has no data pointer to compare: memcmp's must not be null)
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

TEST(RandomFill, TheSameBitsAsOneThreadDrawingInOrder) {
    // small and large tensors (from 2^18 values on threads), every dtype, mixed ones, no bias
    for (const char* text : {"conv:c=2,o=3,in=5,k=3,bias=1", "conv:n=2,c=3,o=8,in=256x256,k=3x3,bias=1",
                             "conv:n=3,c=5,o=600,in=130x140,k=1x1,bias=1,dt=bf16",
                             "conv:n=2,c=4,o=4,in=200x200,k=3x3,bias=1,dt=f16",
                             "conv:c=600,o=600,in=3x3,k=1x1,bias=1,dt=bf16:bf16:f32,bdt=f32",
                             "conv:n=1,c=7,o=4,in=300x301,k=1x1,bias=0"})
        for (std::uint64_t seed : {1ull, 42ull, 0xFFFFFFFFFFFFFFFFull}) {
            const ConvDescriptor d = parse_descriptor(text);
            const RandomFill want = one_thread_fill(d, seed), got = make_random_fill(d, seed);
            EXPECT_TRUE(same_bits(got.src, want.src)) << text << " seed " << seed;
            EXPECT_TRUE(same_bits(got.weights, want.weights)) << text << " seed " << seed;
            EXPECT_TRUE(same_bits(got.bias, want.bias)) << text << " seed " << seed;
        }
}

// RandomFillStream: the same values drawn in runs of any length (a run that ends inside the twister's 312-word
// state, runs past 2^18 values, on threads, runs of one), tensor by tensor in make_random_fill's order.
TEST(RandomFill, AStreamDrawnInRunsGivesTheSameBits) {
    const ConvDescriptor d = parse_descriptor("conv:n=3,c=5,o=600,in=130x140,k=1x1,bias=1,dt=bf16:f32:f32,bdt=f16");
    const RandomFill want = one_thread_fill(d, 7);
    for (const std::size_t run : {std::size_t{1} << 20, std::size_t{100003}, std::size_t{311}}) {
        RandomFillStream stream(7);
        RandomFill got;
        got.src.resize(want.src.size()), got.weights.resize(want.weights.size()), got.bias.resize(want.bias.size());
        for (std::size_t first = 0; first < got.src.size(); first += run)
            stream.draw(d.src_dtype(), std::span<double>(got.src).subspan(first, std::min(run, got.src.size() - first)));
        for (double& w : got.weights) stream.draw(d.weights_dtype(), std::span<double>(&w, 1));
        stream.draw(d.bias_dtype(), got.bias);
        EXPECT_TRUE(same_bits(got.src, want.src)) << "runs of " << run;
        EXPECT_TRUE(same_bits(got.weights, want.weights)) << "runs of " << run;
        EXPECT_TRUE(same_bits(got.bias, want.bias)) << "runs of " << run;
    }
}

// A generator that gives one word, with mt19937_64's range: what the distribution makes of that word.
struct OneWord {
    using result_type = std::mt19937_64::result_type;
    static constexpr result_type min() { return std::mt19937_64::min(); }
    static constexpr result_type max() { return std::mt19937_64::max(); }
    result_type word;
    result_type operator()() { return word; }
};

double distribution_value(std::uint64_t word) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    OneWord one{word};
    return u(one);
}

// uniform_value_of_word (the distribution's arithmetic written out, so that make_random_fill's loops vectorize)
// against the distribution itself: the words where double(w) rounds (ties to even below and above 2^53, at 2^63),
// the words whose double is 2^64 (the canonical value's clamp below 1), the halves' boundaries, and a million
// twister words (seen failing with the clamp dropped, and with the halves truncated instead of rounded once).
TEST(RandomFill, EachWordGivesTheDistributionsOwnValue) {
    std::vector<std::uint64_t> words = {0, 1, 2, 3, (1ull << 11) - 1, 1ull << 11, (1ull << 32) - 1, 1ull << 32,
                                        (1ull << 32) + 1, (1ull << 53) - 1, 1ull << 53, (1ull << 53) + 1,
                                        (1ull << 53) + 2, (1ull << 53) + 3, (1ull << 54) + 2, (1ull << 54) + 6,
                                        (1ull << 63) - 1, 1ull << 63, (1ull << 63) + (1ull << 10),
                                        (1ull << 63) + (3ull << 10), ~0ull, ~0ull - (1ull << 10) + 1,
                                        ~0ull - (1ull << 10), ~0ull - (1ull << 10) - 1, ~0ull - (1ull << 11) + 1,
                                        ~0ull - (3ull << 10) + 1, 0xFFFFFFFF00000000ull, 0x00000000FFFFFFFFull};
    std::mt19937_64 rng(11);
    for (int i = 0; i < 1000000; ++i) words.push_back(rng());
    for (int shift = 0; shift < 64; ++shift)  // every power of two and its neighbours
        for (const std::int64_t d : {-1, 0, 1}) words.push_back((1ull << shift) + static_cast<std::uint64_t>(d));
    int wrong = 0;
    for (const std::uint64_t w : words) {
        const double want = distribution_value(w), got = uniform_value_of_word(w);
        if (std::memcmp(&want, &got, sizeof want) != 0 && ++wrong <= 5)
            ADD_FAILURE() << "word " << w << ": the distribution gives " << want << ", uniform_value_of_word " << got;
    }
    EXPECT_EQ(wrong, 0);
}

}  // namespace
