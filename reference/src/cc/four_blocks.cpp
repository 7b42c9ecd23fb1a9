// Reading 1 of the CC layer: the paper's four blocks (seed 004, Sec. 3.1).
#include <algorithm>
#include <cmath>

#include "convcheck/reference/cc/continuous_convolution.hpp"

namespace convcheck::reference::cc {

std::vector<double> calculate_weights(const CcDescriptor& d, const ContinuousKernel& kernel,
                                      std::span<const double> distances) {
    // "W = K_theta{D}": the K axis of D is the batch of the 1x1 convolutions, and the Internal-Net's
    // output [K, Cout x Cin, H', W'] is reshaped to [1, Cout, Cin, K, H', W'].
    const std::int64_t K = d.neighbours(), OH = d.output_size[0], OW = d.output_size[1];
    const std::int64_t CI = d.in_channels, CO = d.out_channels;
    std::vector<double> weights(static_cast<std::size_t>(CO * CI * K * OH * OW));
    std::vector<double> w(static_cast<std::size_t>(CO * CI));
    for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow) {
        const double dy = distances[((k * 2 + 0) * OH + oh) * OW + ow];
        const double dx = distances[((k * 2 + 1) * OH + oh) * OW + ow];
        kernel.evaluate(dy, dx, w);
        for (std::int64_t co = 0; co < CO; ++co)
            for (std::int64_t ci = 0; ci < CI; ++ci)
                weights[(((co * CI + ci) * K + k) * OH + oh) * OW + ow] = w[co * CI + ci];  // channel cout*Cin + cin
    }
    return weights;
}

ConvResult apply_weights(const CcDescriptor& d, const Neighbours& nb, std::span<const double> weights,
                         std::span<const double> bias) {
    // I' = sum_{c_in, k} N (x) W   (Eq. 3), N [N,1,Cin,K,H',W'] broadcast against W [1,Cout,Cin,K,H',W']
    const std::int64_t N = d.batch, K = d.neighbours(), OH = d.output_size[0], OW = d.output_size[1];
    const std::int64_t CI = d.in_channels, CO = d.out_channels;
    ConvResult r;
    const std::size_t dst_elements = static_cast<std::size_t>(N * CO * OH * OW);
    r.dst.assign(dst_elements, 0.0);
    r.magnitude.assign(dst_elements, 0.0);
    r.terms.assign(dst_elements, 0);
    for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t co = 0; co < CO; ++co)
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow) {
        double sum = 0.0, magnitude = 0.0;
        std::int64_t terms = 0;
        if (d.has_bias) {
            sum = bias[co];
            magnitude = std::fabs(bias[co]);
            terms = 1;
        }
        for (std::int64_t ci = 0; ci < CI; ++ci)
        for (std::int64_t k = 0; k < K; ++k) {
            if (!nb.inside[(k * OH + oh) * OW + ow]) continue;  // zero padding: N is 0 there
            const double product = nb.values[(((n * CI + ci) * K + k) * OH + oh) * OW + ow] *
                                   weights[(((co * CI + ci) * K + k) * OH + oh) * OW + ow];
            sum += product;
            magnitude += std::fabs(product);
            ++terms;
        }
        const std::size_t o = static_cast<std::size_t>(((n * CO + co) * OH + oh) * OW + ow);
        r.dst[o] = sum;
        r.magnitude[o] = magnitude;
        r.terms[o] = terms;
    }
    return r;
}

std::int64_t chunk_rows(const CcDescriptor& d, std::int64_t rows_per_chunk) {
    if (rows_per_chunk > 0) return rows_per_chunk;
    const std::int64_t row_weights = d.out_channels * d.in_channels * d.neighbours() * d.output_size[1];
    return std::max<std::int64_t>(1, kWeightsChunkElements / std::max<std::int64_t>(1, row_weights));
}

RowChunk row_chunk(const CcDescriptor& d, const ProjectedGrid& grid, std::int64_t row0, std::int64_t rows) {
    RowChunk chunk{d, grid};
    chunk.d.output_size[0] = rows;
    GridAxis& h = chunk.grid.axes[0];
    h.output_size = rows;
    h.points.assign(grid.axes[0].points.begin() + row0, grid.axes[0].points.begin() + row0 + rows);
    if (h.exact)
        h.exact_points.assign(grid.axes[0].exact_points.begin() + row0, grid.axes[0].exact_points.begin() + row0 + rows);
    return chunk;
}

ConvResult cc_four_blocks(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                          std::span<const double> bias, std::int64_t rows_per_chunk) {
    const ProjectedGrid grid = projected_grid(d);  // block 1, for the whole output
    const std::int64_t OH = d.output_size[0], OW = d.output_size[1], N = d.batch, CO = d.out_channels;
    rows_per_chunk = chunk_rows(d, rows_per_chunk);
    if (rows_per_chunk >= OH) {
        const Neighbours neighbours = extract_neighbours(d, grid, src);                          // block 2
        const std::vector<double> weights = calculate_weights(d, kernel, neighbours.distances);  // block 3
        return apply_weights(d, neighbours, weights, bias);                                       // block 4
    }
    ConvResult r;
    r.dst.assign(static_cast<std::size_t>(N * CO * OH * OW), 0.0);
    r.magnitude.assign(r.dst.size(), 0.0);
    r.terms.assign(r.dst.size(), 0);
    for (std::int64_t row0 = 0; row0 < OH; row0 += rows_per_chunk) {
        // the chunk: output rows [row0, row0 + rows) with their grid points, as a layer of its own
        const std::int64_t rows = std::min(rows_per_chunk, OH - row0);
        const RowChunk chunk = row_chunk(d, grid, row0, rows);
        const Neighbours neighbours = extract_neighbours(chunk.d, chunk.grid, src);                   // block 2
        const std::vector<double> weights = calculate_weights(chunk.d, kernel, neighbours.distances);  // block 3
        const ConvResult part = apply_weights(chunk.d, neighbours, weights, bias);                     // block 4
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t co = 0; co < CO; ++co)
                for (std::int64_t i = 0; i < rows; ++i)
                    for (std::int64_t ow = 0; ow < OW; ++ow) {
                        const std::size_t from = static_cast<std::size_t>(((n * CO + co) * rows + i) * OW + ow);
                        const std::size_t to = static_cast<std::size_t>(((n * CO + co) * OH + row0 + i) * OW + ow);
                        r.dst[to] = part.dst[from];
                        r.magnitude[to] = part.magnitude[from];
                        r.terms[to] = part.terms[from];
                    }
    }
    return r;
}

ConvResult continuous_convolution(const CcDescriptor& d, const float* src, const float* theta, const float* bias) {
    validate(d);
    if (src == nullptr) throw ConvError("src", "NULL", "the input buffer is required");
    if (d.has_bias && bias == nullptr) throw ConvError("bias", "NULL", "bias=1 needs a bias buffer of Cout values");
    const ContinuousKernel kernel = ContinuousKernel::for_buffer(d, theta);
    // the edges: widen f32 to double (exact)
    const std::vector<double> src64(src, src + d.src_elements());
    const std::vector<double> bias64 = d.has_bias ? std::vector<double>(bias, bias + d.out_channels) : std::vector<double>{};
    return cc_four_blocks(d, src64, kernel, bias64);
}

}  // namespace convcheck::reference::cc
