#include "convcheck/runner/suite_design.hpp"

#include <algorithm>
#include <stdexcept>

namespace convcheck::runner {

namespace {
enum { kRank, kGroups, kDilation, kStride, kPads, kKernel, kLayout, kDtype, kBias };
}  // namespace

const std::array<Factor, kFactors>& design_factors() {
    static const std::array<Factor, kFactors> factors = {{
        {"rank", {"1", "2", "3"}},
        {"groups", {"plain", "grouped", "depthwise", "depthwise_multiplier"}},
        {"dilation", {"dense", "dilated"}},
        {"stride", {"unit", "strided", "beyond_kernel"}},
        {"pads", {"none", "symmetric", "asymmetric", "negative"}},
        {"kernel", {"inside", "beyond_input"}},
        {"layout", {"ncx/oix", "ncx/xio", "nxc/oix", "nxc/xio"}},
        {"dtype", {"f32", "f16", "bf16"}},
        {"bias", {"0", "1"}},
    }};
    return factors;
}

Attributes classify(const ConvDescriptor& d) {
    Attributes a{};
    a[kRank] = d.rank - 1;
    a[kGroups] = d.groups == 1                                            ? 0
                 : d.groups < d.in_channels                                ? 1
                 : d.out_channels == d.in_channels                         ? 2
                                                                           : 3;
    bool dilated = false, strided = false, beyond_kernel = false, negative = false, asymmetric = false, padded = false,
         beyond_input = false;
    for (int x = 0; x < d.rank; ++x) {
        dilated |= d.dilations[x] > 1;
        strided |= d.strides[x] > 1;
        beyond_kernel |= d.strides[x] > d.dilated_kernel(x);
        negative |= d.pads_begin[x] < 0 || d.pads_end[x] < 0;
        asymmetric |= d.pads_begin[x] != d.pads_end[x];
        padded |= d.pads_begin[x] != 0 || d.pads_end[x] != 0;
        beyond_input |= d.dilated_kernel(x) > d.input_size[x];
    }
    a[kDilation] = dilated;
    a[kStride] = beyond_kernel ? 2 : strided ? 1 : 0;
    a[kPads] = negative ? 3 : asymmetric ? 2 : padded ? 1 : 0;
    a[kKernel] = beyond_input;
    a[kLayout] = 2 * static_cast<int>(d.data_format) + static_cast<int>(d.filter_format);
    a[kDtype] = static_cast<int>(d.dtype);
    a[kBias] = d.has_bias;
    return a;
}

bool feasible(const Attributes& a) { return !(a[kPads] == 0 && a[kKernel] == 1); }

namespace {

// One attempt at realize(); the caller checks the result with classify().
ConvDescriptor draw(const Attributes& a, std::mt19937_64& rng) {
    auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    ConvDescriptor d;
    d.rank = a[kRank] + 1;
    d.batch = pick(1, 2);
    switch (a[kGroups]) {
        case 0: d.groups = 1, d.in_channels = pick(1, 6), d.out_channels = pick(1, 6); break;
        case 1: d.groups = pick(2, 3), d.in_channels = d.groups * pick(2, 3), d.out_channels = d.groups * pick(1, 3); break;
        case 2: d.groups = d.in_channels = d.out_channels = pick(2, 6); break;
        default: d.groups = d.in_channels = pick(2, 4), d.out_channels = d.groups * pick(2, 3); break;
    }
    const int first = static_cast<int>(pick(0, d.rank - 1));  // the axis that carries the rare value
    for (int x = 0; x < d.rank; ++x) {
        const bool main = x == first;
        // kernels and dilations differ per axis: symmetric test values hide swapped axes
        d.kernel_size[x] = pick(1, 4);
        d.dilations[x] = a[kDilation] && (main || pick(0, 1)) ? pick(2, 3) : 1;
        if (a[kStride] > 0 || a[kKernel] == 1) d.kernel_size[x] = std::max<std::int64_t>(d.kernel_size[x], 2);
        const std::int64_t extent = d.dilated_kernel(x);
        if (a[kStride] == 0) d.strides[x] = 1;
        else if (a[kStride] == 2 && main) d.strides[x] = extent + pick(1, 3);
        else d.strides[x] = main ? pick(2, extent) : pick(1, std::min<std::int64_t>(2, extent));
        // pads: the main axis carries the kind, the others are non-negative and symmetric or zero
        std::int64_t pb = 0, pe = 0;
        if (a[kPads] == 1) pb = pe = main || pick(0, 1) ? pick(1, 2) : 0;
        if (a[kPads] == 2) pb = main ? pick(0, 2) : pick(0, 1), pe = main ? (pb + pick(1, 2)) % 3 : pb;
        if (a[kPads] == 3) pb = main ? -pick(1, 2) : pick(0, 1), pe = main ? pick(-1, 2) : pb;
        if (a[kPads] == 2 && main && pb == pe) pe = pb + 1;
        std::int64_t in;
        if (a[kKernel] == 1 && main) {
            in = pick(1, extent - 1);
            const std::int64_t needed = extent - in;  // padding must make up for it
            if (a[kPads] == 1) pb = pe = (needed + 1) / 2 + pick(0, 1);
            if (a[kPads] == 2) pb = needed, pe = needed + 1 + pick(0, 1);
            if (a[kPads] == 3) pb = -1, pe = needed + 1 + pick(0, 1);
        } else {
            in = std::max(extent, extent - pb - pe) + pick(0, d.rank == 3 ? 3 : 6);
        }
        d.input_size[x] = in, d.pads_begin[x] = pb, d.pads_end[x] = pe;
    }
    d.data_format = static_cast<DataFormat>(a[kLayout] / 2);
    d.filter_format = static_cast<FilterFormat>(a[kLayout] % 2);
    d.dtype = static_cast<DataType>(a[kDtype]);
    d.has_bias = a[kBias] == 1;
    return d;
}

}  // namespace

ConvDescriptor realize(const Attributes& a, std::mt19937_64& rng) {
    if (!feasible(a)) throw std::invalid_argument("no descriptor has pads=none and kernel=beyond_input");
    for (int attempt = 0; attempt < 1000; ++attempt) {
        ConvDescriptor d = draw(a, rng);
        try {
            validate(d);
        } catch (const ConvError&) {
            continue;
        }
        if (classify(d) == a) return d;
    }
    throw std::invalid_argument("suite design: no descriptor found for the attribute values asked");
}

bool in_design(const ConvDescriptor& d) {
    return static_cast<std::size_t>(d.dtype) < design_factors()[kDtype].values.size();
}

PairCoverage pair_coverage(const std::vector<ConvDescriptor>& descriptors) {
    const auto& factors = design_factors();
    std::vector<Attributes> seen;
    for (const auto& d : descriptors)
        if (in_design(d)) seen.push_back(classify(d));
    PairCoverage c;
    for (int f = 0; f < kFactors; ++f)
        for (int g = f + 1; g < kFactors; ++g) {
            PairCoverage::OfFactors of{f, g, 0, 0};
            for (int u = 0; u < static_cast<int>(factors[f].values.size()); ++u)
                for (int v = 0; v < static_cast<int>(factors[g].values.size()); ++v) {
                    if ((f == kPads && u == 0 && g == kKernel && v == 1)) continue;  // infeasible
                    ++of.total;
                    const bool hit = std::any_of(seen.begin(), seen.end(), [&](const Attributes& a) { return a[f] == u && a[g] == v; });
                    if (hit) ++of.covered;
                    else c.missing.push_back(std::string(factors[f].name) + "=" + factors[f].values[u] + " & " +
                                             factors[g].name + "=" + factors[g].values[v]);
                }
            c.covered += of.covered, c.total += of.total;
            c.by_factors.push_back(of);
        }
    return c;
}

std::vector<std::vector<std::int64_t>> distribution(const std::vector<ConvDescriptor>& descriptors) {
    const auto& factors = design_factors();
    std::vector<std::vector<std::int64_t>> counts;
    for (const auto& f : factors) counts.emplace_back(f.values.size(), 0);
    for (const auto& d : descriptors) {
        if (!in_design(d)) continue;
        const Attributes a = classify(d);
        for (int f = 0; f < kFactors; ++f) ++counts[f][a[f]];
    }
    return counts;
}

}  // namespace convcheck::runner
