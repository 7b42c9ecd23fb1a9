#include "convcheck/accuracy/precision_fill.hpp"

#include <cmath>
#include <random>

namespace convcheck::accuracy {

double round_significand(double value, int bits) {
    if (value == 0.0 || !std::isfinite(value)) return value;
    const int e = std::ilogb(value);  // value = m * 2^e, 1 <= |m| < 2
    const double scaled = std::ldexp(value, bits - 1 - e);  // the kept bits as an integer part
    return std::ldexp(std::nearbyint(scaled), e - (bits - 1));  // nearbyint: ties to even (default mode)
}

RandomFill make_precision_fill(const ConvDescriptor& d, std::uint64_t seed) {
    const int p = significand_bits(d.dtype);
    std::mt19937_64 rng(seed ^ 0xA5A5F00Dull);
    auto sign = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) ? 1.0 : -1.0; };
    auto scale = [&] { return std::uniform_int_distribution<int>(-2, 2)(rng); };
    auto every_bit = [&] {  // +-(1 + m 2^(1-p)) 2^k, m odd: the last significand bit is set
        const std::int64_t m = 2 * std::uniform_int_distribution<std::int64_t>(0, (std::int64_t(1) << (p - 2)) - 1)(rng) + 1;
        return sign() * std::ldexp(1.0 + std::ldexp(double(m), 1 - p), scale());
    };
    auto power_of_two = [&] { return sign() * std::ldexp(1.0, scale()); };
    std::int64_t spatial = 1, kernel = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.input_size[a], kernel *= d.kernel_size[a];
    const std::int64_t icg = d.in_channels_per_group();
    RandomFill f;
    f.src.resize(d.batch * d.in_channels * spatial);
    for (std::size_t i = 0; i < f.src.size(); ++i) {
        const std::int64_t ic = std::int64_t(i) / spatial % d.in_channels % icg;
        f.src[i] = ic == 1 ? power_of_two() : every_bit();
    }
    f.weights.assign(d.out_channels * icg * kernel, 0.0);
    for (std::int64_t o = 0; o < d.out_channels; ++o) {
        const bool weight_bits = o % 2 == 1 && icg >= 2;  // this channel tests the weights' bits
        const std::int64_t ic = weight_bits ? 1 : 0;
        const std::int64_t tap = std::uniform_int_distribution<std::int64_t>(0, kernel - 1)(rng);
        f.weights[(o * icg + ic) * kernel + tap] = weight_bits ? every_bit() : power_of_two();
    }
    f.bias.assign(d.has_bias ? d.out_channels : 0, 0.0);
    return f;
}

}  // namespace convcheck::accuracy
