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

}  // namespace

InvalidCaseElements invalid_case_elements(const TransposedDescriptor& t) {
    const std::int64_t n = at_least_one(t.batch), c = at_least_one(t.in_channels), o = at_least_one(t.out_channels);
    const std::int64_t g = at_least_one(t.groups), o_per_group = (o + g - 1) / g;
    InvalidCaseElements e;
    e.src = capped_product(n, c);
    e.weights = capped_product(c, o_per_group);
    e.dst = capped_product(n, o);
    const int rank = std::clamp(t.rank, 1, kMaxSpatialRank);
    for (int a = 0; a < rank; ++a) {
        e.src = capped_product(e.src, at_least_one(t.input_size[a]));
        e.weights = capped_product(e.weights, at_least_one(t.kernel_size[a]));
        e.dst = capped_product(e.dst, transposed_output_extent(t, a));
    }
    e.bias = t.has_bias ? o : 0;
    return e;
}

InvalidCaseElements invalid_case_elements(const ConvDescriptor& d) {
    const std::int64_t n = at_least_one(d.batch), c = at_least_one(d.in_channels), o = at_least_one(d.out_channels);
    const std::int64_t g = at_least_one(d.groups), c_per_group = (c + g - 1) / g;
    InvalidCaseElements e;
    e.src = capped_product(n, c);
    e.weights = capped_product(o, c_per_group);
    e.dst = capped_product(n, o);
    const int rank = std::clamp(d.rank, 1, kMaxSpatialRank);
    for (int a = 0; a < rank; ++a) {
        e.src = capped_product(e.src, at_least_one(d.input_size[a]));
        e.weights = capped_product(e.weights, at_least_one(d.kernel_size[a]));
        e.dst = capped_product(e.dst, output_extent(d, a));
    }
    e.bias = d.has_bias ? o : 0;
    return e;
}

}  // namespace convcheck::runner
