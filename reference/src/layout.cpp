// The edges of the reference: dtype widening, layout reorders, and the rounding of the exact
// result to the output type. No arithmetic of the convolution happens here.
#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "layout_index.hpp"

namespace convcheck::reference {

namespace {

using detail::activation_index;
using detail::weights_index;

std::int64_t spatial_elements(const ConvDescriptor& d, const SpatialDims& dims) {
    std::int64_t n = 1;
    for (int a = 0; a < d.rank; ++a) n *= dims[a];
    return n;
}

std::int64_t output_spatial_elements(const ConvDescriptor& d) {
    std::int64_t n = 1;
    for (int a = 0; a < d.rank; ++a) n *= d.output_size(a);
    return n;
}

}  // namespace

std::vector<double> src_to_ncx(const ConvDescriptor& d, const void* src) {
    const std::int64_t C = d.in_channels, X = spatial_elements(d, d.input_size);
    std::vector<double> out(d.batch * C * X);
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t x = 0; x < X; ++x)
                out[(n * C + c) * X + x] = load_as_double(src, d.dtype, activation_index(d.data_format, n, c, x, C, X));
    return out;
}

std::vector<double> dst_to_ncx(const ConvDescriptor& d, const void* dst) {
    const std::int64_t O = d.out_channels, X = output_spatial_elements(d);
    std::vector<double> out(d.batch * O * X);
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t x = 0; x < X; ++x)
                out[(n * O + o) * X + x] = load_as_double(dst, d.dtype, activation_index(d.data_format, n, o, x, O, X));
    return out;
}

void ncx_to_src(const ConvDescriptor& d, std::span<const double> src_ncx, void* src) {
    const std::int64_t C = d.in_channels, X = spatial_elements(d, d.input_size);
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t x = 0; x < X; ++x)
                store_from_double(src, d.dtype, activation_index(d.data_format, n, c, x, C, X), src_ncx[(n * C + c) * X + x]);
}

std::vector<double> weights_to_oix(const ConvDescriptor& d, const void* weights) {
    const std::int64_t O = d.out_channels, I = d.in_channels_per_group(), K = spatial_elements(d, d.kernel_size);
    std::vector<double> out(O * I * K);
    for (std::int64_t o = 0; o < O; ++o)
        for (std::int64_t i = 0; i < I; ++i)
            for (std::int64_t k = 0; k < K; ++k)
                out[(o * I + i) * K + k] = load_as_double(weights, d.dtype, weights_index(d.filter_format, o, i, k, O, I, K));
    return out;
}

void oix_to_weights(const ConvDescriptor& d, std::span<const double> weights_oix, void* weights) {
    const std::int64_t O = d.out_channels, I = d.in_channels_per_group(), K = spatial_elements(d, d.kernel_size);
    for (std::int64_t o = 0; o < O; ++o)
        for (std::int64_t i = 0; i < I; ++i)
            for (std::int64_t k = 0; k < K; ++k)
                store_from_double(weights, d.dtype, weights_index(d.filter_format, o, i, k, O, I, K), weights_oix[(o * I + i) * K + k]);
}

std::vector<double> bias_to_double(const ConvDescriptor& d, const void* bias) {
    std::vector<double> out;
    if (!d.has_bias) return out;
    out.resize(d.out_channels);
    for (std::int64_t o = 0; o < d.out_channels; ++o) out[o] = load_as_double(bias, d.dtype, o);
    return out;
}

void round_dst_to_output(const ConvDescriptor& d, std::span<const double> dst_ncx, void* dst) {
    const std::int64_t O = d.out_channels, X = output_spatial_elements(d);
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t x = 0; x < X; ++x)
                // store_from_double rounds once, to nearest even, straight from double
                store_from_double(dst, d.dtype, activation_index(d.data_format, n, o, x, O, X), dst_ncx[(n * O + o) * X + x]);
}

}  // namespace convcheck::reference
