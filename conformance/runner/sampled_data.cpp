#include "convcheck/runner/sampled_data.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>

namespace convcheck::runner {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// The bits of a value with sign bit s, exponent (bias - 1 - b) for b < 8, significand m.
template <class Bits>
void fill_bits(void* data, std::int64_t elements, std::uint64_t seed, int exponent_bits, int significand_bits) {
    const int bias = (1 << (exponent_bits - 1)) - 1;
    Bits* out = static_cast<Bits*>(data);
    for (std::int64_t i = 0; i < elements; ++i) {
        const std::uint64_t r = splitmix64(seed ^ (static_cast<std::uint64_t>(i) * 0xd1342543de82ef95ull));
        const std::uint64_t sign = r & 1, binade = (r >> 1) & 7, significand = (r >> 4) & ((1ull << significand_bits) - 1);
        const std::uint64_t exponent = static_cast<std::uint64_t>(bias - 1) - binade;
        out[i] = static_cast<Bits>(sign << (exponent_bits + significand_bits) | exponent << significand_bits | significand);
    }
}

constexpr std::int64_t k2G = std::int64_t{1} << 31;

std::int64_t spatial(const ConvDescriptor& d, const SpatialDims& dims) {
    std::int64_t n = 1;
    for (int a = 0; a < d.rank; ++a) n *= dims[a];
    return n;
}

std::int64_t spatial_out(const ConvDescriptor& d) {
    std::int64_t n = 1;
    for (int a = 0; a < d.rank; ++a) n *= d.output_size(a);
    return n;
}

// Splits a flat spatial index into per-axis coordinates (outermost first).
std::vector<std::int64_t> split(const ConvDescriptor& d, std::int64_t flat, const SpatialDims& dims) {
    std::vector<std::int64_t> c(d.rank);
    for (int a = d.rank; a-- > 0;) c[a] = flat % dims[a], flat /= dims[a];
    return c;
}

// The element counts past which a tensor of `elements` elements of `bytes` bytes each crosses a limit:
// 2^31 elements, 2^31 bytes, 2^32 bytes. With the limit's name.
std::vector<std::pair<std::int64_t, std::string>> limits_crossed(std::int64_t elements, int bytes) {
    std::vector<std::pair<std::int64_t, std::string>> limits;
    auto add = [&](std::int64_t at, const std::string& name) {
        if (at < elements &&
            std::none_of(limits.begin(), limits.end(), [&](const auto& l) { return l.first == at; }))
            limits.emplace_back(at, name);
    };
    add(k2G / bytes, "byte 2^31");
    add(2 * k2G / bytes, "byte 2^32");
    add(k2G, "element 2^31");
    return limits;
}

// An output whose sum reads the src element at buffer offset `at`, if any (a stride may skip it).
std::optional<std::int64_t> output_reading_src(const ConvDescriptor& d, std::int64_t at) {
    const std::int64_t X = spatial(d, d.input_size), C = d.in_channels;
    const bool ncx = d.data_format == DataFormat::ncx;
    const std::int64_t n = at / (C * X), c = ncx ? (at / X) % C : at % C, x = ncx ? at % X : (at / C) % X;
    const std::vector<std::int64_t> coords = split(d, x, d.input_size);
    std::int64_t out_flat = 0;
    for (int a = 0; a < d.rank; ++a) {
        std::optional<std::int64_t> o;
        for (std::int64_t k = 0; k < d.kernel_size[a] && !o; ++k) {
            const std::int64_t num = coords[a] + d.pads_begin[a] - k * d.dilations[a];
            if (num >= 0 && num % d.strides[a] == 0 && num / d.strides[a] < d.output_size(a)) o = num / d.strides[a];
        }
        if (!o) return std::nullopt;
        out_flat = out_flat * d.output_size(a) + *o;
    }
    // the first output channel of c's group
    const std::int64_t oc = c / d.in_channels_per_group() * d.out_channels_per_group();
    return (n * d.out_channels + oc) * spatial_out(d) + out_flat;
}


// An output whose sum reads the weights element at buffer offset `at`, if any (image 0, the first
// output position where that tap lies inside the input on every axis).
std::optional<std::int64_t> output_reading_weights(const ConvDescriptor& d, std::int64_t at) {
    const std::int64_t K = spatial(d, d.kernel_size), I = d.in_channels_per_group(), O = d.out_channels;
    const bool oix = d.filter_format == FilterFormat::oix;
    const std::int64_t o = oix ? at / (I * K) : at % O, k = oix ? at % K : at / (I * O);
    const std::vector<std::int64_t> taps = split(d, k, d.kernel_size);
    std::int64_t out_flat = 0;
    for (int a = 0; a < d.rank; ++a) {
        const std::int64_t first = d.pads_begin[a] - taps[a] * d.dilations[a];  // o*s must reach this
        const std::int64_t y = first <= 0 ? 0 : (first + d.strides[a] - 1) / d.strides[a];
        const std::int64_t x = y * d.strides[a] - d.pads_begin[a] + taps[a] * d.dilations[a];
        if (y >= d.output_size(a) || x < 0 || x >= d.input_size[a]) return std::nullopt;
        out_flat = out_flat * d.output_size(a) + y;
    }
    return o * spatial_out(d) + out_flat;
}

}  // namespace

void fill_sampled(const GuardedBuffer& buffer, DataType dtype, std::int64_t elements, std::uint64_t seed) {
    switch (dtype) {
        case DataType::f32: return fill_bits<std::uint32_t>(buffer.data(), elements, seed, 8, 23);
        case DataType::f16: return fill_bits<std::uint16_t>(buffer.data(), elements, seed, 5, 10);
        case DataType::bf16: return fill_bits<std::uint16_t>(buffer.data(), elements, seed, 8, 7);
        case DataType::f64: return fill_bits<std::uint64_t>(buffer.data(), elements, seed, 11, 52);
        case DataType::f8_e4m3:  // sampled mode declines fp8 (conv/check.cpp)
        case DataType::f8_e5m2: return;
    }
}

std::int64_t dst_ncx_of_buffer_offset(const ConvDescriptor& d, std::int64_t at) {
    if (d.data_format == DataFormat::ncx) return at;
    const std::int64_t X = spatial_out(d), O = d.out_channels;
    const std::int64_t n = at / (X * O), x = (at / O) % X, o = at % O;
    return (n * O + o) * X + x;
}

std::int64_t dst_buffer_offset(const ConvDescriptor& d, std::int64_t ncx) {
    if (d.data_format == DataFormat::ncx) return ncx;
    const std::int64_t X = spatial_out(d), O = d.out_channels;
    const std::int64_t n = ncx / (X * O), o = (ncx / X) % O, x = ncx % X;
    return (n * X + x) * O + o;
}

std::vector<SampledOutput> sample_outputs(const ConvDescriptor& d, std::uint64_t seed, int random_count) {
    const std::int64_t D = d.dst_elements();
    const int e = size_of(d.dtype);
    std::vector<SampledOutput> picks{{0, "the first output"}, {D - 1, "the last output"}};
    for (const auto& [at, name] : limits_crossed(D, e)) {
        picks.push_back({dst_ncx_of_buffer_offset(d, at - 1), "dst " + name + " - 1"});
        picks.push_back({dst_ncx_of_buffer_offset(d, at), "dst " + name});
    }
    // src and weights: the nearest element on each side of the limit that some output reads
    constexpr std::int64_t kSearch = std::int64_t{1} << 20;
    auto readers = [&](const char* tensor, std::int64_t elements, auto reader) {
        for (const auto& [at, name] : limits_crossed(elements, e)) {
            for (std::int64_t j = 1; j <= kSearch && at - j >= 0; ++j)
                if (const auto y = reader(at - j)) {
                    picks.push_back({*y, "reads " + std::string(tensor) + " " + name + " - " + std::to_string(j)});
                    break;
                }
            for (std::int64_t j = 0; j < kSearch && at + j < elements; ++j)
                if (const auto y = reader(at + j)) {
                    picks.push_back({*y, "reads " + std::string(tensor) + " " + name + (j ? " + " + std::to_string(j) : "")});
                    break;
                }
        }
    };
    readers("src", d.src_elements(), [&](std::int64_t at) { return output_reading_src(d, at); });
    readers("weights", d.weights_elements(), [&](std::int64_t at) { return output_reading_weights(d, at); });
    std::mt19937_64 rng(seed ^ 0x1a7e5a3b1ed0c0deull);
    std::uniform_int_distribution<std::int64_t> any(0, D - 1);
    for (int i = 0; i < random_count; ++i) picks.push_back({any(rng), ""});
    // sorted, one of each output: a designed pick keeps its reason over a random draw of the same output
    std::stable_sort(picks.begin(), picks.end(), [](const auto& a, const auto& b) { return a.ncx < b.ncx; });
    std::vector<SampledOutput> unique;
    for (auto& p : picks)
        if (unique.empty() || unique.back().ncx != p.ncx) unique.push_back(std::move(p));
        else if (unique.back().why.empty()) unique.back().why = std::move(p.why);
    return unique;
}

}  // namespace convcheck::runner
