// Reading 2 of backward data: a stride-1 convolution of the zero-stuffed diff_dst with the flipped,
// channel-transposed kernel. Written without the forward's index set (index_set.hpp): the stuffing,
// the flip and the transpose are materialised here, and the convolution is the forward's reading 2
// (as_if.hpp, seed 001's narrative), so that reading 1 and reading 2 share no index arithmetic.
//
// Per axis, with E = D*(K-1)+1 the dilated extent and Y the forward's output size:
//   diff_src[x] = sum_{y, k : y*S - P_L + k*D = x} diff_dst[y] * W[k]
//               = sum_k z[x + P_L - k*D] * W[k]           z = diff_dst with S-1 zeros between neighbours,
//                                                         length (Y-1)*S + 1, zero outside
//               = sum_k' z[x - (E-1-P_L) + k'*D] * W[K-1-k']   (k' = K-1-k: the flipped kernel)
// which is a stride-1 convolution of z, dilation D, pads_begin E-1-P_L, pads_end chosen so that the
// output has the input's size: (Y-1)*S+1 + pads_begin + pads_end - E + 1 = in.
// Channels: the forward pairs oc = g*OC_G + oc_g with ic = g*IC_G + ic_g; the stuffed convolution
// reads O channels and writes C, with weights'(ic, oc_g, k') = weights(oc, ic_g, K-1-k').
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/reference/as_if.hpp"
#include "convcheck/reference/backward.hpp"

namespace convcheck::reference {

namespace {

// Calls f(index) for every multi-index below `extent` (first `rank` axes), last axis fastest.
template <class F>
void for_each_position(int rank, const SpatialDims& extent, F&& f) {
    SpatialDims index{0, 0, 0};
    std::int64_t count = 1;
    for (int a = 0; a < rank; ++a) count *= extent[a];
    for (std::int64_t i = 0; i < count; ++i) {
        f(static_cast<const SpatialDims&>(index));
        for (int a = rank - 1; a >= 0 && ++index[a] == extent[a]; --a) index[a] = 0;
    }
}

std::int64_t row_major(int rank, const SpatialDims& extent, const SpatialDims& index) {
    std::int64_t o = 0;
    for (int a = 0; a < rank; ++a) o = o * extent[a] + index[a];
    return o;
}

std::int64_t product(int rank, const SpatialDims& extent) {
    std::int64_t p = 1;
    for (int a = 0; a < rank; ++a) p *= extent[a];
    return p;
}

}  // namespace

ConvDescriptor stuffed_convolution_descriptor(const ConvDescriptor& d) {
    ConvDescriptor s = d;
    s.in_channels = d.out_channels;
    s.out_channels = d.in_channels;
    s.has_bias = false;
    // its input is diff_dst and its output diff_src: they keep their tensors' data types
    s.dtype = d.dst_dtype();
    s.dtype_overrides = {d.weights_dtype(), std::nullopt, d.src_dtype()};
    for (int a = 0; a < d.rank; ++a) {
        const std::int64_t extent = d.dilated_kernel(a);
        const std::int64_t stuffed = (d.output_size(a) - 1) * d.strides[a] + 1;
        s.input_size[a] = stuffed;
        s.strides[a] = 1;
        s.pads_begin[a] = extent - 1 - d.pads_begin[a];
        // stuffed + pads_begin + pads_end - extent + 1 = in
        s.pads_end[a] = d.input_size[a] - stuffed + d.pads_begin[a];
    }
    return s;
}

std::vector<double> backward_data_as_stuffed_convolution(const ConvDescriptor& d, std::span<const double> diff_dst,
                                                         std::span<const double> weights) {
    validate(d);
    const ConvDescriptor s = stuffed_convolution_descriptor(d);
    const int rank = d.rank;
    SpatialDims out{1, 1, 1};
    for (int a = 0; a < rank; ++a) out[a] = d.output_size(a);
    const std::int64_t Y = product(rank, out), Z = product(rank, s.input_size), K = product(rank, d.kernel_size);

    // z: diff_dst with S-1 zeros between neighbours; position y lands on y*S.
    std::vector<double> stuffed(d.batch * d.out_channels * Z, 0.0);
    for (std::int64_t image = 0; image < d.batch * d.out_channels; ++image)
        for_each_position(rank, out, [&](const SpatialDims& y) {
            SpatialDims j = y;
            for (int a = 0; a < rank; ++a) j[a] = y[a] * d.strides[a];
            stuffed[image * Z + row_major(rank, s.input_size, j)] = diff_dst[image * Y + row_major(rank, out, y)];
        });

    // weights'(ic, oc_g, k') = weights(oc, ic_g, K-1-k'), oc = g*OC_G + oc_g, ic = g*IC_G + ic_g.
    const std::int64_t IC_G = d.in_channels_per_group(), OC_G = d.out_channels_per_group();
    std::vector<double> transposed(d.in_channels * OC_G * K);
    for (std::int64_t oc = 0; oc < d.out_channels; ++oc)
        for (std::int64_t ic_g = 0; ic_g < IC_G; ++ic_g)
            for_each_position(rank, d.kernel_size, [&](const SpatialDims& k) {
                SpatialDims flipped = k;
                for (int a = 0; a < rank; ++a) flipped[a] = d.kernel_size[a] - 1 - k[a];
                const std::int64_t g = oc / OC_G, ic = g * IC_G + ic_g;
                transposed[(ic * OC_G + oc % OC_G) * K + row_major(rank, d.kernel_size, flipped)] =
                    weights[(oc * IC_G + ic_g) * K + row_major(rank, d.kernel_size, k)];
            });

    AsIfResult r = convolution_as_if(s, stuffed, transposed, {});
    if (static_cast<std::int64_t>(r.dst.size()) != d.src_elements())  // the pads above are wrong, not the data
        throw std::logic_error("stuffed convolution of " + to_string(d) + " produced " + std::to_string(r.dst.size()) +
                               " elements, not the input's " + std::to_string(d.src_elements()));
    return std::move(r.dst);
}

}  // namespace convcheck::reference
