// Test helper: random integer-valued data for a descriptor, from a seed, and the one-line reproducer.
// Small integers make every product and partial sum exact in double, so readings can be compared
// with ==.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::testdata {

inline std::vector<double> integers(std::int64_t count, std::mt19937_64& rng, int range = 4) {
    std::uniform_int_distribution<int> value(-range, range);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (auto& x : v) x = value(rng);
    return v;
}

// Canonical double arrays: src NCX, weights OIX, bias [O] (empty without bias).
struct Problem {
    ConvDescriptor d;
    std::uint64_t seed = 0;
    std::vector<double> src, weights, bias;
};

inline Problem make_problem(const ConvDescriptor& d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Problem p{d, seed, {}, {}, {}};
    p.src = integers(d.src_elements(), rng);
    p.weights = integers(d.weights_elements(), rng);
    p.bias = integers(d.bias_elements(), rng, 16);
    return p;
}

// Calls f(index) for every multi-index of `shape`, last axis fastest (one loop for every rank).
template <class F>
void for_each_index(const std::vector<std::int64_t>& shape, F&& f) {
    for (auto e : shape)
        if (e <= 0) return;
    std::vector<std::int64_t> index(shape.size(), 0);
    while (true) {
        f(index);
        int a = static_cast<int>(shape.size()) - 1;
        while (a >= 0 && ++index[a] == shape[a]) index[a--] = 0;
        if (a < 0) return;
    }
}

// Row-major offset of `index` in an array of `shape`.
inline std::int64_t offset(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& index) {
    std::int64_t o = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) o = o * shape[a] + index[a];
    return o;
}

// Canonical shapes: src [N][C][in...], weights [O][I/G][k...], dst [N][O][out...].
inline std::vector<std::int64_t> src_shape_ncx(const ConvDescriptor& d) {
    std::vector<std::int64_t> s{d.batch, d.in_channels};
    for (int a = 0; a < d.rank; ++a) s.push_back(d.input_size[a]);
    return s;
}
inline std::vector<std::int64_t> weights_shape_oix(const ConvDescriptor& d) {
    std::vector<std::int64_t> s{d.out_channels, d.in_channels_per_group()};
    for (int a = 0; a < d.rank; ++a) s.push_back(d.kernel_size[a]);
    return s;
}
inline std::vector<std::int64_t> dst_shape_ncx(const ConvDescriptor& d) {
    std::vector<std::int64_t> s{d.batch, d.out_channels};
    for (int a = 0; a < d.rank; ++a) s.push_back(d.output_size(a));
    return s;
}

// "descriptor <canonical string> seed <n>": enough to rebuild the failing case.
inline std::string repro(const ConvDescriptor& d, std::uint64_t seed) {
    return "reproduce with: descriptor " + to_string(d) + " seed " + std::to_string(seed);
}

}  // namespace convcheck::testdata
