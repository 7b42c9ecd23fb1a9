// Reading 1 of the backward passes: each gradient is a sum over the forward's own index set
// (index_set.hpp), walked in the forward's order; only the element that accumulates changes.
//   forward           dst(n, oc, y)        += src(n, ic, x) * weights(oc, ic_g, k)
//   backward data     diff_src(n, ic, x)   += diff_dst(n, oc, y) * weights(oc, ic_g, k)
//   backward weights  diff_weights(oc, ic_g, k) += src(n, ic, x) * diff_dst(n, oc, y)
//   backward bias     diff_bias(oc)        += diff_dst(n, oc, y)        (every output, once)
// for every (n, oc, y ; ic, k, x) with x = y*S - P_L + k*D inside [0, in).
// The walks below are this definition literally, one (output, term) pair at a time; the reference
// computes the same sums faster, element by element in the same order (backward_sums.cpp), and
// reference_backward_sums_test checks them bit for bit against these walks.
#include "convcheck/reference/backward.hpp"

#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "gradient_arrays.hpp"
#include "index_set.hpp"

namespace convcheck::reference {

namespace {

void accumulate(GradientResult& r, std::int64_t at, double term) {
    r.values[at] += term;
    r.magnitude[at] += std::fabs(term);
    ++r.terms[at];
}

}  // namespace

GradientResult backward_data_walk(const ConvDescriptor& d, std::span<const double> diff_dst,
                                  std::span<const double> weights) {
    detail::check_canonical_size("diff_dst", diff_dst.size(), d.dst_elements());
    detail::check_canonical_size("weights", weights.size(), d.weights_elements());
    const detail::ForwardIndexSet index_set(d);
    GradientResult r = detail::zero_gradient(d.src_elements());
    index_set.for_each_output([&](const detail::Output& y) {
        index_set.for_each_term(y, [&](std::int64_t x, std::int64_t k) { accumulate(r, x, diff_dst[y.dst] * weights[k]); });
    });
    return r;
}

GradientResult backward_weights_walk(const ConvDescriptor& d, std::span<const double> src,
                                     std::span<const double> diff_dst) {
    detail::check_canonical_size("src", src.size(), d.src_elements());
    detail::check_canonical_size("diff_dst", diff_dst.size(), d.dst_elements());
    const detail::ForwardIndexSet index_set(d);
    GradientResult r = detail::zero_gradient(d.weights_elements());
    index_set.for_each_output([&](const detail::Output& y) {
        index_set.for_each_term(y, [&](std::int64_t x, std::int64_t k) { accumulate(r, k, src[x] * diff_dst[y.dst]); });
    });
    return r;
}

GradientResult backward_bias_summation(const ConvDescriptor& d, std::span<const double> diff_dst) {
    detail::check_canonical_size("diff_dst", diff_dst.size(), d.dst_elements());
    const detail::ForwardIndexSet index_set(d);
    GradientResult r = detail::zero_gradient(d.out_channels);
    index_set.for_each_output([&](const detail::Output& y) { accumulate(r, y.oc, diff_dst[y.dst]); });
    return r;
}

GradientResult backward_data(const ConvDescriptor& d, const void* diff_dst, const void* weights) {
    validate(d);
    return backward_data_summation(d, dst_to_ncx(d, diff_dst), weights_to_oix(d, weights));
}

GradientResult backward_weights(const ConvDescriptor& d, const void* src, const void* diff_dst,
                                GradientResult* diff_bias) {
    validate(d);
    const std::vector<double> diff_dst_ncx = dst_to_ncx(d, diff_dst);
    if (d.has_bias && diff_bias != nullptr) *diff_bias = backward_bias_summation(d, diff_dst_ncx);
    return backward_weights_summation(d, src_to_ncx(d, src), diff_dst_ncx);
}

void round_bias_to_output(const ConvDescriptor& d, std::span<const double> bias, void* out) {
    detail::check_canonical_size("diff_bias", bias.size(), d.out_channels);
    // store_from_double rounds once, to nearest even, straight from double
    for (std::int64_t o = 0; o < d.out_channels; ++o) store_from_double(out, d.bias_dtype(), o, bias[o]);
}

}  // namespace convcheck::reference
