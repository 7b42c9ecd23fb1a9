#include "convcheck/accuracy/stress_fill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace convcheck::accuracy {

const char* to_string(DataKind kind) {
    switch (kind) {
        case DataKind::uniform: return "uniform";
        case DataKind::zero_mix: return "zero_mix";
        case DataKind::large_exponents: return "large_exponents";
        case DataKind::one_large_term: return "one_large_term";
        case DataKind::wide_range: return "wide_range";
        case DataKind::cancellation: return "cancellation";
    }
    return "?";
}

namespace {

double largest_finite(DataType dtype) {
    return dtype == DataType::f16 ? 65504.0 : double(std::numeric_limits<float>::max());  // bf16: ~f32's
}

// The largest value no sum may reach: the smaller of the output's and the accumulator's largest
// finite values.
double range_of(const Contract& c) {
    double r = largest_finite(c.output_dtype);
    if (!c.accumulation_is_f64) r = std::min(r, largest_finite(c.accumulation_dtype));
    return r;
}

struct Shape {
    std::int64_t spatial = 1, kernel = 1, in_per_group = 1, terms = 1;
};

Shape shape_of(const ConvDescriptor& d) {
    Shape s;
    for (int a = 0; a < d.rank; ++a) s.spatial *= d.input_size[a], s.kernel *= d.kernel_size[a];
    s.in_per_group = d.in_channels_per_group();
    s.terms = s.in_per_group * s.kernel + (d.has_bias ? 1 : 0);
    return s;
}

}  // namespace

RandomFill make_stress_fill(const ConvDescriptor& d, const Contract& c, DataKind kind, std::uint64_t seed) {
    if (kind == DataKind::uniform) return make_random_fill(d, seed);
    const Shape s = shape_of(d);
    const double n = double(s.terms);
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(kind) + 1)));
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    auto U = [&] { return uniform(rng); };
    auto coin = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
    RandomFill f;
    f.src.resize(d.batch * d.in_channels * s.spatial);
    f.weights.resize(d.out_channels * s.in_per_group * s.kernel);
    f.bias.resize(d.has_bias ? d.out_channels : 0);
    // (NCX) src index -> its channel within its group; (OIX) weight index -> (ic, kernel tap)
    auto src_channel = [&](std::size_t i) { return std::int64_t(i) / s.spatial % d.in_channels % s.in_per_group; };
    auto weight_ic = [&](std::size_t i) { return std::int64_t(i) / s.kernel % s.in_per_group; };
    auto weight_tap = [&](std::size_t i) { return std::int64_t(i) % s.kernel; };
    switch (kind) {
        case DataKind::uniform: break;
        case DataKind::zero_mix:
            for (auto* v : {&f.src, &f.weights, &f.bias})
                for (double& x : *v) x = coin() ? 0.0 : U();
            break;
        case DataKind::large_exponents: {
            // sum <= n * (B/sqrt(n))^2 = B^2 = range / 2 (TOSA S1, with its B from our contract)
            const double B = std::sqrt(range_of(c) / 2.0);
            for (auto* v : {&f.src, &f.weights})
                for (double& x : *v) x = B / std::sqrt(n) * (0.75 + 0.25 * U());
            for (double& x : f.bias) x = B * B / n * (0.75 + 0.25 * U());
            break;
        }
        case DataKind::one_large_term: {
            // channel 0 of each group and weight tap (ic 0, tap 0) near +-1, the rest U/sqrt(n) (TOSA S2)
            auto large = [&] { return (coin() ? 1.0 : -1.0) * (0.75 + 0.25 * U()); };
            for (std::size_t i = 0; i < f.src.size(); ++i) f.src[i] = src_channel(i) == 0 ? large() : U() / std::sqrt(n);
            for (std::size_t i = 0; i < f.weights.size(); ++i)
                f.weights[i] = weight_ic(i) == 0 && weight_tap(i) == 0 ? large() : U() / std::sqrt(n);
            for (double& x : f.bias) x = U() / std::sqrt(n);
            break;
        }
        case DataKind::wide_range: {
            // |x|, |w| < 1.5 * 2^E: n * (1.5 * 2^E)^2 <= range / 2; and 2^-E stays a normal value
            const int by_range = static_cast<int>(std::floor(std::log2(range_of(c) / (2.0 * n * 2.25)) / 2.0));
            const int by_dtype = d.dtype == DataType::f16 ? 12 : 60;
            const int E = std::max(1, std::min(by_range, by_dtype));
            std::uniform_int_distribution<int> exponent(-E, E);
            for (auto* v : {&f.src, &f.weights, &f.bias})
                for (double& x : *v) x = (coin() ? 1.0 : -1.0) * std::ldexp(1.0 + 0.5 * (U() + 1.0) / 2.0, exponent(rng));
            break;
        }
        case DataKind::cancellation: {
            // src channel 2j+1 repeats channel 2j and its weights are the negated ones: x*w + x*(-w) = 0
            // exactly, whatever the order; an odd last channel gets zero weights. With one channel per
            // group the pairs are taps (2j, 2j+1) instead: w and -w on neighbouring src values.
            for (double& x : f.src) x = U();
            for (double& x : f.weights) x = U();
            if (s.in_per_group >= 2) {
                for (std::size_t i = 0; i < f.src.size(); ++i)
                    if (src_channel(i) % 2 == 1) f.src[i] = f.src[i - std::size_t(s.spatial)];
                for (std::size_t i = 0; i < f.weights.size(); ++i) {
                    const std::int64_t ic = weight_ic(i);
                    if (ic % 2 == 1) f.weights[i] = -f.weights[i - std::size_t(s.kernel)];
                    else if (ic == s.in_per_group - 1) f.weights[i] = 0.0;
                }
            } else {
                for (std::size_t i = 0; i < f.weights.size(); ++i) {
                    const std::int64_t tap = weight_tap(i);
                    if (tap % 2 == 1) f.weights[i] = -f.weights[i - 1];
                    else if (tap == s.kernel - 1) f.weights[i] = 0.0;
                }
            }
            std::fill(f.bias.begin(), f.bias.end(), 0.0);
            break;
        }
    }
    for (auto* v : {&f.src, &f.weights, &f.bias})
        for (double& x : *v) x = round_to(d.dtype, x);
    return f;
}

}  // namespace convcheck::accuracy
