// Bound mode's data (accuracy.hpp, make_random_fill): src, then weights, then bias, each value one draw of
// std::uniform_real_distribution<double>(-1, 1) on one std::mt19937_64 seeded with the case's seed, rounded to
// its tensor's dtype. A seed names its data: every reproducer printed so far must keep giving the same bits.
//
// The twister is sequential, but turning its words into values is not: each draw takes exactly one 64-bit word
// (generate_canonical needs 53 bits, the engine gives 64), so the words are drawn first, in order, and turned
// into values on threads, each by the distribution's own arithmetic written out (uniform_of_word). perf of
// shapes_resnet_50 (conv1: 7.5 M src values): the conversion was about as long as the twister itself.
// The words come from Twister below: std::mt19937_64's own definition ([rand.eng.mers]: the same seeding, twist
// and tempering), 312 words at a time in loops the compiler vectorizes, written straight into the values' array
// (each value is then made in place from its own word), with no call per word.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
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

// Values from this many on are converted on threads (a thread costs some tens of microseconds).
constexpr std::size_t kValuesForThreads = std::size_t{1} << 18;

// An unsigned 32-bit integer as a double, exactly, in operations a loop vectorizes: 2^52 + x has x in its low
// bits, and the subtraction of 2^52 is exact.
inline double exact_double(std::uint32_t x) { return std::bit_cast<double>(0x4330000000000000ull | x) - 0x1p52; }

// What std::uniform_real_distribution<double>(-1, 1) makes of the word w of a 64-bit engine, written out (libstdc++,
// bits/random.tcc and random.h): generate_canonical<double, 53> takes one word (53 bits need one of 64) and returns
// double(w) / 2^64, or the double below 1 where that rounds to 1; the distribution returns it times (b - a) plus a.
// double(w) is the sum of its two 32-bit halves, each exact, rounded once; the scalings by 2^-64 and 2 are exact.
// Before the clamp (a loop of these vectorizes; with the clamp's select, g++ leaves it scalar):
inline double unclamped_uniform_of_word(std::uint64_t w) {
    const double word = exact_double(static_cast<std::uint32_t>(w >> 32)) * 0x1p32 + exact_double(static_cast<std::uint32_t>(w));
    return word * 0x1p-63 + -1.0;
}
// With it: double(w) is 2^64 for the top 2^10 words (ties to even), the canonical value then 1 - 2^-53 and the
// value 1 - 2^-52. random_fill_test holds this to the distribution itself on the words where the roundings decide.
inline double uniform_of_word(std::uint64_t w) {
    const double u = unclamped_uniform_of_word(w);
    return u < 1.0 ? u : 0x1.ffffffffffffep-1;
}
// In f32 the clamp changes nothing: the clamped value and 1 round to the same float.
static_assert(static_cast<float>(0x1.ffffffffffffep-1) == 1.0f);

// values[i] = round_to(dtype, u(the word held in values[i])), in place (each value reads its own word before
// it is written), on up to `threads` threads, each a contiguous range.
void convert(DataType dtype, std::span<double> values) {
    const std::size_t size = values.size();
    auto range = [&](std::size_t begin, std::size_t end) {
        double* v = values.data();
        if (dtype == DataType::f32)  // round_to(f32, u), written out, without the clamp (above): a loop that vectorizes
            for (std::size_t i = begin; i < end; ++i)
                v[i] = static_cast<double>(static_cast<float>(unclamped_uniform_of_word(std::bit_cast<std::uint64_t>(v[i]))));
        else
            for (std::size_t i = begin; i < end; ++i) v[i] = round_to(dtype, uniform_of_word(std::bit_cast<std::uint64_t>(v[i])));
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
    // the words go into the values' own bytes (a double's storage holds any 64 bits; convert reads them back)
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

double uniform_value_of_word(std::uint64_t word) { return uniform_of_word(word); }

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
