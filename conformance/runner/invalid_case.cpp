#include "convcheck/runner/invalid_case.hpp"

#include <algorithm>

namespace convcheck::runner {

namespace {

template <class Descriptor>
std::string rule_of(const Descriptor& d) {
    try {
        validate(d);
    } catch (const ConvError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

std::string broken_rule(const ConvDescriptor& d) { return rule_of(d); }
std::string broken_rule(const TransposedDescriptor& t) { return rule_of(t); }

namespace {

constexpr std::int64_t kCap = InvalidCaseElements::kMaxElements;

// a * b, saturated at the cap (the operands are >= 1).
std::int64_t capped_product(std::int64_t a, std::int64_t b) {
    return a > kCap / b ? kCap : std::min(kCap, a * b);
}

// A count clamped to [1, cap].
std::int64_t at_least_one(std::int64_t v) { return std::clamp<std::int64_t>(v, 1, kCap); }

// The outputs a backend may write on one axis (see the header); every term stays far from int64's
// limits because each is capped before it is added.
std::int64_t output_extent(const ConvDescriptor& d, int a) {
    auto clamp = [](std::int64_t v) { return std::clamp<std::int64_t>(v, -kCap, kCap); };
    const std::int64_t padded = clamp(d.input_size[a]) + clamp(d.pads_begin[a]) + clamp(d.pads_end[a]);
    if (d.strides[a] < 1 || d.dilations[a] < 1) return std::clamp<std::int64_t>(padded, 1, kCap);
    const std::int64_t k = std::clamp<std::int64_t>(d.kernel_size[a], 1, kCap);
    const std::int64_t extent = std::min(kCap, (k - 1) * std::min(d.dilations[a], kCap) + 1);
    const std::int64_t span = padded - extent;
    return span < 0 ? 1 : std::min(kCap, span / d.strides[a] + 1);
}

// The transposed op's outputs on one axis: (in-1)*s - pb - pe + K + op with every term capped, at least 1.
std::int64_t transposed_output_extent(const TransposedDescriptor& t, int a) {
    auto clamp = [](std::int64_t v) { return std::clamp<std::int64_t>(v, -kCap, kCap); };
    const std::int64_t in = std::clamp<std::int64_t>(t.input_size[a], 1, kCap);
    const std::int64_t s = std::clamp<std::int64_t>(t.strides[a], 1, kCap);
    const std::int64_t k = std::clamp<std::int64_t>(t.kernel_size[a], 1, kCap);
    const std::int64_t extent = std::min(kCap, (k - 1) * std::clamp<std::int64_t>(t.dilations[a], 1, kCap) + 1);
    const std::int64_t out = std::min(kCap, (in - 1) * s) - clamp(t.pads_begin[a]) - clamp(t.pads_end[a]) + extent +
                             clamp(t.output_padding[a]);
    return std::clamp<std::int64_t>(out, 1, kCap);
}

// Both operations' counts: src [N][C][in...], weights whole * ceil(per_group / G) * k..., dst [N][O][extent...],
// bias O; (whole, per_group) is (O, C) for a convolution's weights, (C, O) for a transposed one's.
template <class Descriptor>
InvalidCaseElements elements(const Descriptor& d, std::int64_t whole, std::int64_t per_group,
                             std::int64_t (*extent)(const Descriptor&, int)) {
    const std::int64_t n = at_least_one(d.batch), c = at_least_one(d.in_channels), o = at_least_one(d.out_channels);
    const std::int64_t g = at_least_one(d.groups);
    per_group = at_least_one(per_group);
    InvalidCaseElements e;
    e.src = capped_product(n, c);
    e.weights = capped_product(at_least_one(whole), (per_group + g - 1) / g);
    e.dst = capped_product(n, o);
    const int rank = std::clamp(d.rank, 1, kMaxSpatialRank);
    for (int a = 0; a < rank; ++a) {
        e.src = capped_product(e.src, at_least_one(d.input_size[a]));
        e.weights = capped_product(e.weights, at_least_one(d.kernel_size[a]));
        e.dst = capped_product(e.dst, extent(d, a));
    }
    e.bias = d.has_bias ? o : 0;
    return e;
}

}  // namespace

InvalidCaseElements invalid_case_elements(const TransposedDescriptor& t) {
    return elements(t, t.in_channels, t.out_channels, transposed_output_extent);
}

InvalidCaseElements invalid_case_elements(const ConvDescriptor& d) {
    return elements(d, d.out_channels, d.in_channels, output_extent);
}

}  // namespace convcheck::runner
