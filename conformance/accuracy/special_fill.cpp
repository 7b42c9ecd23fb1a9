#include "convcheck/accuracy/special_fill.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace convcheck::accuracy {

const char* to_string(Fill fill) {
    switch (fill) {
        case Fill::standard: return "standard";
        case Fill::ties: return "ties";
        case Fill::overflow: return "overflow";
        case Fill::subnormal: return "subnormal";
    }
    return "?";
}

bool parse_fill(const std::string& text, Fill* fill) {
    for (Fill f : kAllFills)
        if (text == to_string(f)) {
            *fill = f;
            return true;
        }
    return false;
}

namespace {

// The binary format of a dtype: significand bits p (hidden bit included) and the exponents of the
// largest and the smallest normal powers of two.
struct Format {
    int p, emax, emin;
};
Format format_of(DataType dtype) {
    switch (dtype) {
        case DataType::f16: return {11, 15, -14};
        case DataType::bf16: return {8, 127, -126};
        case DataType::f32: return {24, 127, -126};
        case DataType::f64: return {53, 1023, -1022};  // the special fills decline f64 (fill_not_applicable)
        case DataType::f8_e4m3:  // the special fills decline fp8 (fill_not_applicable)
        case DataType::f8_e5m2: break;
    }
    return {24, 127, -126};
}

// Per axis, the kernel index that lands inside the input for the most outputs; flattened.
std::int64_t busiest_tap(const ConvDescriptor& d) {
    std::int64_t tap = 0;
    for (int a = 0; a < d.rank; ++a) {
        std::int64_t best = 0, best_count = -1;
        for (std::int64_t k = 0; k < d.kernel_size[a]; ++k) {
            std::int64_t count = 0;
            for (std::int64_t o = 0; o < d.output_size(a); ++o) {
                const std::int64_t x = o * d.strides[a] - d.pads_begin[a] + k * d.dilations[a];
                count += x >= 0 && x < d.input_size[a];
            }
            if (count > best_count) best = k, best_count = count;
        }
        tap = tap * d.kernel_size[a] + best;
    }
    return tap;
}

// Two integers a, b < 2^p with a * b = t for the first t in (lo, hi) that has them; false if none.
bool factor_between(std::int64_t lo, std::int64_t hi, int p, std::int64_t* a, std::int64_t* b) {
    const std::int64_t limit = std::int64_t(1) << p;
    for (std::int64_t t = lo + 1; t < hi; ++t)
        for (std::int64_t f = std::max<std::int64_t>(2, t / (limit - 1)); f * f <= t; ++f)
            if (t % f == 0 && t / f < limit) {
                *a = t / f, *b = f;
                return true;
            }
    return false;
}

}  // namespace

std::string fill_not_applicable(Fill fill, const ConvDescriptor& d, const Contract& c) {
    if (fill != Fill::standard && d.has_fp8())
        return "the special fills are designed for f32, f16 and bf16 (" + dtypes_text(d) +
               " has an fp8 tensor): an fp8 descriptor takes the standard fill";
    if (fill != Fill::standard && d.dtype == DataType::f64)
        return "the special fills are designed for f32, f16 and bf16: their one right answer (a tie, a value past the "
               "range, a subnormal product) is exact only in the reference's f64, which " + dtypes_text(d) +
               " has no wider type to hold; an f64 descriptor takes the standard fill";
    if (fill != Fill::standard && d.mixed())
        return "the special fills are designed for one dtype (" + dtypes_text(d) +
               " mixes them): a mixed descriptor takes the standard fill";
    if (fill != Fill::ties) return "";
    const int p = significand_bits(d.dtype), acc = accumulation_significand_bits(c);
    if (acc >= p + 3) return "";
    return "the ties fill needs an accumulation type of at least " + std::to_string(p + 3) +
           " significand bits for " + std::string(convcheck::to_string(d.dtype)) +
           " outputs (products up to 2^" + std::to_string(p + 1) + " summed exactly), and the backend declares " +
           std::to_string(acc);
}

ExactFill make_fill(const ConvDescriptor& d, const Contract& c, Fill fill, std::uint64_t seed) {
    if (fill == Fill::standard) return make_exact_fill(d, c, seed);
    const Format f = format_of(d.dtype);
    std::mt19937_64 rng(seed);
    auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    auto sign = [&] { return pick(0, 1) ? 1.0 : -1.0; };

    ExactFill out;
    std::int64_t spatial = 1, kernel = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.input_size[a], kernel *= d.kernel_size[a];
    const std::int64_t ICg = d.in_channels_per_group(), OCg = d.out_channels_per_group();
    out.src.resize(d.batch * d.in_channels * spatial);
    out.weights.assign(d.out_channels * ICg * kernel, 0.0);
    if (d.has_bias) out.bias.assign(d.out_channels, 0.0);
    out.max_nonzero_taps = 1;

    // Values by class. Ties: one src class, the weight by o's parity. Overflow and subnormal: the
    // class of input channel ch is ch % 2, its src values and the weights reading it follow it, and
    // output o reads a channel of o's parity where its group has one.
    const double sub = std::ldexp(1.0, f.emin - f.p + 1);  // the smallest subnormal
    const double max_finite = std::ldexp(std::ldexp(1.0, f.p) - 1.0, f.emax - f.p + 1);
    // overflow, odd class: a * 2^e times b strictly between M and M + ulp/2 (in units of ulp/8);
    // without such a pair, M times 1
    std::int64_t near_a = std::int64_t(1) << f.p, near_b = 1;
    const std::int64_t eighth = std::int64_t(8) << f.p;
    if (!factor_between(eighth - 8, eighth - 4, f.p, &near_a, &near_b)) near_a = (std::int64_t(8) << f.p) - 8, near_b = 1;
    const std::int64_t half = std::int64_t(1) << (f.p - 1);
    auto src_value = [&](std::int64_t channel) -> double {
        const bool even = channel % 2 == 0;
        switch (fill) {
            case Fill::ties: {  // x = 3 (mod 4) with 3x and 5x in (2^p + 8, 2^(p+1) - 8)
                const std::int64_t lo = ((std::int64_t(1) << f.p) + 8 + 2) / 3, hi = ((std::int64_t(2) << f.p) - 8) / 5;
                std::int64_t x = pick(lo, hi);
                x -= (x % 4 + 1) % 4;  // down to the nearest x = 3 (mod 4)
                if (x < lo) x += 4;
                return sign() * double(x);
            }
            case Fill::overflow:
                return sign() * (even ? max_finite : std::ldexp(double(near_a), f.emax - f.p + 1 - 3));
            case Fill::subnormal:
                return sign() * double(even ? pick(1, (half - 1) / 3) : half + pick(0, half - 1)) * sub;
            case Fill::standard: break;
        }
        return 0.0;
    };
    auto weight_value = [&](std::int64_t o, std::int64_t channel) -> double {
        const bool even = channel % 2 == 0;
        switch (fill) {
            case Fill::ties: return sign() * (o % 2 == 0 ? 3.0 : 5.0);
            case Fill::overflow: return sign() * (even ? 2.0 : double(near_b));
            case Fill::subnormal: return sign() * double(pick(1, 3)) * (even ? 1.0 : 1.0 / 16.0);
            case Fill::standard: break;
        }
        return 0.0;
    };

    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t ch = 0; ch < d.in_channels; ++ch)
            for (std::int64_t x = 0; x < spatial; ++x) out.src[(n * d.in_channels + ch) * spatial + x] = src_value(ch);
    const std::int64_t tap = busiest_tap(d);
    for (std::int64_t o = 0; o < d.out_channels; ++o) {
        const std::int64_t g = o / OCg;
        std::int64_t ic = pick(0, ICg - 1);
        if (fill != Fill::ties && ICg > 1 && (g * ICg + ic) % 2 != o % 2) ic = ic == ICg - 1 ? ic - 1 : ic + 1;
        out.weights[(o * ICg + ic) * kernel + tap] = weight_value(o, g * ICg + ic);
    }
    return out;
}

}  // namespace convcheck::accuracy
