// The backward pass of the CC layer: the paper's four blocks in reverse (backward.hpp).
#include <algorithm>
#include <cmath>

#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/internal_net_backward.hpp"

namespace convcheck::reference::cc {

namespace {

// Block 4 in reverse for one chunk (chunk rows [row0, row0 + OH) of the layer's output):
// dN [N,Cin,K,OH,OW] = sum_co dY W, dW [Cout,Cin,K,OH,OW] = sum_n dY N, and the bias gradient.
struct ApplyAdjoint {
    std::vector<double> dN, dN_abs, dW, dW_abs;
};

ApplyAdjoint apply_weights_backward(const CcDescriptor& chunk, const Neighbours& nb, std::span<const double> weights,
                                    std::span<const double> diff_dst, std::int64_t full_OH, std::int64_t row0,
                                    CcBackward& r) {
    const std::int64_t N = chunk.batch, K = chunk.neighbours(), OH = chunk.output_size[0], OW = chunk.output_size[1];
    const std::int64_t CI = chunk.in_channels, CO = chunk.out_channels;
    ApplyAdjoint a;
    a.dN.assign(static_cast<std::size_t>(N * CI * K * OH * OW), 0.0);
    a.dN_abs.assign(a.dN.size(), 0.0);
    a.dW.assign(static_cast<std::size_t>(CO * CI * K * OH * OW), 0.0);
    a.dW_abs.assign(a.dW.size(), 0.0);
    // dY of this chunk's rows, from the layer's [N, Cout, H', W']
    auto dY = [&](std::int64_t n, std::int64_t co, std::int64_t oh, std::int64_t ow) {
        return diff_dst[static_cast<std::size_t>(((n * CO + co) * full_OH + row0 + oh) * OW + ow)];
    };
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow)
    for (std::int64_t k = 0; k < K; ++k) {
        const std::size_t at = static_cast<std::size_t>((k * OH + oh) * OW + ow);
        if (!nb.inside[at]) continue;  // a zero-padding neighbour: N is the constant 0, no input pixel
        for (std::int64_t ci = 0; ci < CI; ++ci) {
            // I' = sum_{ci,k} N (x) W: dN = sum over Cout of dY W, dW = sum over the batch of dY N
            for (std::int64_t n = 0; n < N; ++n) {
                const std::size_t i = static_cast<std::size_t>(((n * CI + ci) * K + k) * OH * OW) + (at - k * OH * OW);
                for (std::int64_t co = 0; co < CO; ++co) {
                    const std::size_t w = static_cast<std::size_t>(((co * CI + ci) * K + k) * OH * OW) + (at - k * OH * OW);
                    const double y = dY(n, co, oh, ow);
                    a.dN[i] += y * weights[w];
                    a.dN_abs[i] += std::fabs(y * weights[w]);
                    a.dW[w] += y * nb.values[i];
                    a.dW_abs[w] += std::fabs(y * nb.values[i]);
                }
            }
        }
    }
    if (chunk.has_bias)  // I' = ... + bias[co]: dbias[co] = sum over n and o of dY, row by row
        for (std::int64_t oh = 0; oh < OH; ++oh)
            for (std::int64_t n = 0; n < N; ++n)
                for (std::int64_t co = 0; co < CO; ++co)
                    for (std::int64_t ow = 0; ow < OW; ++ow) {
                        r.diff_bias[co] += dY(n, co, oh, ow);
                        r.diff_bias_magnitude[co] += std::fabs(dY(n, co, oh, ow));
                    }
    return a;
}

// Block 3 in reverse: dtheta += J_theta(D)^T dW for every distance pair, row by row.
void calculate_weights_backward(const CcDescriptor& chunk, const InternalNet& net, const Neighbours& nb,
                                const ApplyAdjoint& a, CcBackward& r) {
    const std::int64_t K = chunk.neighbours(), OH = chunk.output_size[0], OW = chunk.output_size[1];
    const std::int64_t C = chunk.in_channels * chunk.out_channels;
    std::vector<double> g(static_cast<std::size_t>(C)), g_abs(static_cast<std::size_t>(C));
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow)
    for (std::int64_t k = 0; k < K; ++k) {
        // "[K, Cout x Cin, H', W'] -> [1, Cout, Cin, K, H', W']" in reverse: channel cout*Cin + cin
        for (std::int64_t c = 0; c < C; ++c) {
            const std::size_t w = static_cast<std::size_t>(((c * K + k) * OH + oh) * OW + ow);
            g[c] = a.dW[w];
            g_abs[c] = a.dW_abs[w];
        }
        const double dy = nb.distances[static_cast<std::size_t>(((k * 2 + 0) * OH + oh) * OW + ow)];
        const double dx = nb.distances[static_cast<std::size_t>(((k * 2 + 1) * OH + oh) * OW + ow)];
        const InternalNetTrace trace = trace_internal_net(net, dy, dx);
        r.leaky_relu_margin = std::min(r.leaky_relu_margin, leaky_relu_margin(net, trace));
        backward_internal_net(net, trace, g, g_abs, r.diff_theta, r.diff_theta_magnitude);
    }
}

// Block 2 in reverse: each neighbour is a copy of an input pixel, so its gradient adds to that pixel's.
void extract_neighbours_backward(const CcDescriptor& d, const CcDescriptor& chunk, const Neighbours& nb,
                                 const ApplyAdjoint& a, CcBackward& r) {
    const std::int64_t N = chunk.batch, CI = chunk.in_channels, K = chunk.neighbours();
    const std::int64_t OH = chunk.output_size[0], OW = chunk.output_size[1], KW = chunk.support[1];
    const std::int64_t H = d.input_size[0], W = d.input_size[1], CO = d.out_channels;
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow)
    for (std::int64_t k = 0; k < K; ++k) {
        if (!nb.inside[static_cast<std::size_t>((k * OH + oh) * OW + ow)]) continue;
        const std::int64_t mh = nb.windows[0].first[oh] + k / KW, mw = nb.windows[1].first[ow] + k % KW;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t ci = 0; ci < CI; ++ci) {
                const std::size_t from = static_cast<std::size_t>((((n * CI + ci) * K + k) * OH + oh) * OW + ow);
                const std::size_t to = static_cast<std::size_t>(((n * CI + ci) * H + mh) * W + mw);
                r.diff_src[to] += a.dN[from];
                r.diff_src_magnitude[to] += a.dN_abs[from];
                r.diff_src_terms[to] += CO;
            }
    }
}

}  // namespace

CcBackward cc_backward(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                       std::span<const double> diff_dst, std::int64_t rows_per_chunk) {
    if (static_cast<std::int64_t>(src.size()) != d.src_elements() ||
        static_cast<std::int64_t>(diff_dst.size()) != d.dst_elements())
        throw ConvError("src/diff_dst", std::to_string(src.size()) + "/" + std::to_string(diff_dst.size()) + " values",
                        "must hold " + std::to_string(d.src_elements()) + "/" + std::to_string(d.dst_elements()) +
                            " values ([N, Cin, H, W] and [N, Cout, H', W'])");
    const InternalNet* net = kernel.internal_net();
    CcBackward r;
    r.diff_src.assign(static_cast<std::size_t>(d.src_elements()), 0.0);
    r.diff_src_magnitude.assign(r.diff_src.size(), 0.0);
    r.diff_src_terms.assign(r.diff_src.size(), 0);
    if (net) {
        r.diff_theta.assign(static_cast<std::size_t>(d.theta_elements()), 0.0);
        r.diff_theta_magnitude.assign(r.diff_theta.size(), 0.0);
        // dW: a product and N additions; the net's chain; the sum over every distance pair
        r.diff_theta_roundings = d.batch + 1 + internal_net_backward_roundings(*net) +
                                 d.neighbours() * d.output_size[0] * d.output_size[1];
    }
    if (d.has_bias) {
        r.diff_bias.assign(static_cast<std::size_t>(d.out_channels), 0.0);
        r.diff_bias_magnitude.assign(r.diff_bias.size(), 0.0);
        r.diff_bias_terms = d.batch * d.output_size[0] * d.output_size[1];
    }
    const ProjectedGrid grid = projected_grid(d);  // block 1: no gradient flows through it
    const std::int64_t OH = d.output_size[0], rows_per = chunk_rows(d, rows_per_chunk);
    for (std::int64_t row0 = 0; row0 < OH; row0 += rows_per) {
        const RowChunk chunk = row_chunk(d, grid, row0, std::min(rows_per, OH - row0));
        const Neighbours nb = extract_neighbours(chunk.d, chunk.grid, src);                   // block 2
        const std::vector<double> weights = calculate_weights(chunk.d, kernel, nb.distances);  // block 3
        const ApplyAdjoint a = apply_weights_backward(chunk.d, nb, weights, diff_dst, OH, row0, r);  // block 4 reversed
        if (net) calculate_weights_backward(chunk.d, *net, nb, a, r);                          // block 3 reversed
        extract_neighbours_backward(d, chunk.d, nb, a, r);                                    // block 2 reversed
    }
    return r;
}

CcBackward cc_backward(const CcDescriptor& d, const float* src, const float* theta, const float* diff_dst) {
    validate(d);
    if (src == nullptr) throw ConvError("src", "NULL", "the input buffer is required");
    if (diff_dst == nullptr) throw ConvError("diff_dst", "NULL", "the upstream gradient buffer is required");
    const ContinuousKernel kernel = ContinuousKernel::for_buffer(d, theta);
    const std::vector<double> src64(src, src + d.src_elements()), diff_dst64(diff_dst, diff_dst + d.dst_elements());
    return cc_backward(d, src64, kernel, diff_dst64);
}

}  // namespace convcheck::reference::cc
