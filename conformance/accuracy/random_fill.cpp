// Bound mode's data (accuracy.hpp, make_random_fill): src, then weights, then bias, each value one draw of
// std::uniform_real_distribution<double>(-1, 1) on one std::mt19937_64 seeded with the case's seed, rounded to
// its tensor's dtype. A seed names its data: every reproducer printed so far must keep giving the same bits.
//
// The twister is sequential, but turning its words into values is not: each draw takes exactly one 64-bit word
// (generate_canonical needs 53 bits, the engine gives 64), so the words are drawn first, in order, and turned
// into values on threads, each through the same distribution fed the same words (Replay). perf of
// shapes_resnet_50 (conv1: 7.5 M src values): the conversion was about as long as the twister itself.
// The words come from Twister below: std::mt19937_64's own definition ([rand.eng.mers]: the same seeding, twist
// and tempering), 312 words at a time in loops the compiler vectorizes, written straight into the values' array
// (each value is then made in place from its own word), with no call per word.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"

namespace convcheck::accuracy {

namespace {

// std::mt19937_64 ([rand.eng.mers], w = 64, n = 312, m = 156, r = 31): the same words in the same order, made a
// whole state (312 words) at a time. random_fill_test holds it to std::mt19937_64 bit for bit.
class Twister {
public:
    explicit Twister(std::uint64_t seed) {
        x_[0] = seed;
        for (std::size_t i = 1; i < n; ++i) x_[i] = 6364136223846793005ull * (x_[i - 1] ^ (x_[i - 1] >> 62)) + i;
    }

    // the next `count` words into out[0, count)
    void generate(std::uint64_t* out, std::size_t count) {
        while (count > 0) {
            if (at_ == n) twist();
            const std::size_t k = std::min(n - at_, count);
            for (std::size_t j = 0; j < k; ++j) out[j] = temper(x_[at_ + j]);
            at_ += k, out += k, count -= k;
        }
    }

private:
    static constexpr std::size_t n = 312, m = 156;
    static constexpr std::uint64_t upper = ~std::uint64_t{0} << 31, lower = ~upper, a = 0xb5026f5aa96619e9ull;

    static std::uint64_t step(std::uint64_t xi, std::uint64_t next, std::uint64_t far) {
        const std::uint64_t y = (xi & upper) | (next & lower);
        return far ^ (y >> 1) ^ ((std::uint64_t{0} - (y & 1)) & a);
    }
    static std::uint64_t temper(std::uint64_t z) {
        z ^= (z >> 29) & 0x5555555555555555ull;
        z ^= (z << 17) & 0x71d67fffeda60000ull;
        z ^= (z << 37) & 0xfff7eee000000000ull;
        return z ^ (z >> 43);
    }
    // the state's next 312 words: x[i] from x[i], x[i+1] and x[i+m], in index order, the last from the new x[0]
    void twist() {
        for (std::size_t i = 0; i < n - m; ++i) x_[i] = step(x_[i], x_[i + 1], x_[i + m]);
        for (std::size_t i = n - m; i < n - 1; ++i) x_[i] = step(x_[i], x_[i + 1], x_[i - (n - m)]);
        x_[n - 1] = step(x_[n - 1], x_[0], x_[m - 1]);
        at_ = 0;
    }

    std::uint64_t x_[n];
    std::size_t at_ = n;
};

// A uniform random bit generator that gives back words drawn before (stored in the values' own array), with the
// twister's range, so that a distribution makes of them exactly what it makes of the twister's own.
struct Replay {
    using result_type = std::mt19937_64::result_type;
    static constexpr result_type min() { return std::mt19937_64::min(); }
    static constexpr result_type max() { return std::mt19937_64::max(); }
    const double* next;
    result_type operator()() {
        result_type w;
        std::memcpy(&w, next++, sizeof(w));
        return w;
    }
};

// Values from this many on are converted on threads (a thread costs some tens of microseconds).
constexpr std::size_t kValuesForThreads = std::size_t{1} << 18;

// values[i] = round_to(dtype, u(the word held in values[i])), in place (each value reads its own word before
// it is written), on up to `threads` threads, each a contiguous range.
void convert(DataType dtype, std::span<double> values) {
    const std::size_t size = values.size();
    auto range = [&](std::size_t begin, std::size_t end) {
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        Replay replay{values.data() + begin};
        if (dtype == DataType::f32)  // round_to(f32, v), written out: no call per value
            for (std::size_t i = begin; i < end; ++i) values[i] = static_cast<double>(static_cast<float>(u(replay)));
        else
            for (std::size_t i = begin; i < end; ++i) values[i] = round_to(dtype, u(replay));
    };
    const std::size_t threads = size < kValuesForThreads ? 1 : std::max<std::size_t>(1, std::thread::hardware_concurrency());
    const std::size_t per = (size + threads - 1) / threads;
    std::vector<std::jthread> helpers;
    for (std::size_t t = 1; t < threads; ++t)
        helpers.emplace_back(range, std::min(size, t * per), std::min(size, (t + 1) * per));
    range(0, std::min(size, per));
}

// values.size() values of `dtype`: the next words of rng, converted.
void draw(Twister& rng, DataType dtype, std::span<double> values) {
    static_assert(sizeof(double) == sizeof(std::uint64_t));
    // the words go into the values' own bytes (a double's storage holds any 64 bits; Replay reads them back)
    constexpr std::size_t kChunk = 4096;
    std::uint64_t words[kChunk];
    for (std::size_t i = 0; i < values.size(); i += kChunk) {
        const std::size_t k = std::min(kChunk, values.size() - i);
        rng.generate(words, k);
        std::memcpy(values.data() + i, words, k * sizeof(std::uint64_t));
    }
    convert(dtype, values);
}

}  // namespace

struct RandomFillStream::State {
    explicit State(std::uint64_t seed) : rng(seed) {}
    Twister rng;
};

RandomFillStream::RandomFillStream(std::uint64_t seed) : state_(std::make_unique<State>(seed)) {}

RandomFillStream::~RandomFillStream() = default;

void RandomFillStream::draw(DataType dtype, std::span<double> values) { accuracy::draw(state_->rng, dtype, values); }

RandomFill make_random_fill(const ConvDescriptor& d, std::uint64_t seed) {
    RandomFill f;
    RandomFillStream stream(seed);
    // each tensor's values in its own dtype (a mixed descriptor's differ)
    f.src.resize(static_cast<std::size_t>(d.src_elements()));
    stream.draw(d.src_dtype(), f.src);
    f.weights.resize(static_cast<std::size_t>(d.weights_elements()));
    stream.draw(d.weights_dtype(), f.weights);
    if (d.has_bias) {
        f.bias.resize(static_cast<std::size_t>(d.bias_elements()));
        stream.draw(d.bias_dtype(), f.bias);
    }
    return f;
}

}  // namespace convcheck::accuracy
