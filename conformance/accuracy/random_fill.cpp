// Bound mode's data (accuracy.hpp, make_random_fill): src, then weights, then bias, each value one draw of
// std::uniform_real_distribution<double>(-1, 1) on one std::mt19937_64 seeded with the case's seed, rounded to
// its tensor's dtype. A seed names its data: every reproducer printed so far must keep giving the same bits.
//
// The twister is sequential, but turning its words into values is not: each draw takes exactly one 64-bit word
// (generate_canonical needs 53 bits, the engine gives 64), so the words are drawn first, in order, and turned
// into values on threads, each through the same distribution fed the same words (Replay). perf of
// shapes_resnet_50 (conv1: 7.5 M src values): the conversion was about as long as the twister itself.
#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"

namespace convcheck::accuracy {

namespace {

// A uniform random bit generator that gives back words drawn before, with the twister's range, so that a
// distribution makes of them exactly what it makes of the twister's own.
struct Replay {
    using result_type = std::mt19937_64::result_type;
    static constexpr result_type min() { return std::mt19937_64::min(); }
    static constexpr result_type max() { return std::mt19937_64::max(); }
    const result_type* next;
    result_type operator()() { return *next++; }
};

// Values from this many on are converted on threads (a thread costs some tens of microseconds).
constexpr std::size_t kValuesForThreads = std::size_t{1} << 18;

// values[i] = round_to(dtype, u(words[i])), on up to `threads` threads, each a contiguous range.
void convert(const std::vector<std::uint64_t>& words, DataType dtype, std::vector<double>& values) {
    values.resize(words.size());
    auto range = [&](std::size_t begin, std::size_t end) {
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        Replay replay{words.data() + begin};
        for (std::size_t i = begin; i < end; ++i) values[i] = round_to(dtype, u(replay));
    };
    const std::size_t threads =
        words.size() < kValuesForThreads ? 1 : std::max<std::size_t>(1, std::thread::hardware_concurrency());
    const std::size_t per = (words.size() + threads - 1) / threads;
    std::vector<std::jthread> helpers;
    for (std::size_t t = 1; t < threads; ++t)
        helpers.emplace_back(range, std::min(words.size(), t * per), std::min(words.size(), (t + 1) * per));
    range(0, std::min(words.size(), per));
}

// `count` values of `dtype`: the next `count` words of rng, converted.
std::vector<double> draw(std::mt19937_64& rng, std::int64_t count, DataType dtype) {
    std::vector<std::uint64_t> words(static_cast<std::size_t>(count));
    for (auto& w : words) w = rng();
    std::vector<double> values;
    convert(words, dtype, values);
    return values;
}

}  // namespace

RandomFill make_random_fill(const ConvDescriptor& d, std::uint64_t seed) {
    RandomFill f;
    std::mt19937_64 rng(seed);
    // each tensor's values in its own dtype (a mixed descriptor's differ)
    f.src = draw(rng, d.src_elements(), d.src_dtype());
    f.weights = draw(rng, d.weights_elements(), d.weights_dtype());
    if (d.has_bias) f.bias = draw(rng, d.bias_elements(), d.bias_dtype());
    return f;
}

}  // namespace convcheck::accuracy
