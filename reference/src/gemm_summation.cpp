// The GEMM evaluator (gemm_summation.hpp): for each image n, group g and block of output positions, the
// input's patches laid out as a matrix (im2col: one row per term position (ic_g, kd, kh, kw), in the
// definition's order, one column per output position, zero where the tap lands in the padding), then
//     dst(g's out channels, block)       = W_g   * A      (+ bias)
//     magnitude(g's out channels, block) = |W_g| * |A|    (+ |bias|)
// with W_g the group's OC_G x (IC_G * taps) slice of OIX weights, as Eigen's f64 matrix products.
// Built with -mavx2 -mfma (reference/CMakeLists.txt); every Eigen instantiation of the reference lives
// in this file and gemm_backward_sums.cpp, and they run only where gemm_summation_available() says so.
#include "convcheck/reference/gemm_summation.hpp"

// Always Eigen's blocked product (gebp), never its coefficient-wise one for small sizes, whose vector loop
// peels by the operands' run-time alignment: a block's order of additions then depends only on the sizes
// (and on Eigen's cache blocking, from this CPU's cache sizes), never on where a buffer happened to land.
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 1
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "chunk_sums.hpp"
#include "geometry.hpp"
#include "im2col.hpp"

namespace convcheck::reference {

namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrix = Eigen::Map<const RowMajor>;
using OutBlock = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using WeightsBlock = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

// Along axis a: for output index o, the taps k whose input index o*S - P_L + k*D lies in [0, in).
std::vector<std::int64_t> taps_inside(const detail::Geometry3& g, int a) {
    std::vector<std::int64_t> count(static_cast<std::size_t>(g.out[a]), 0);
    const std::vector<std::int64_t> x = detail::input_index(g, a);
    for (std::size_t at = 0; at < x.size(); ++at)
        if (x[at] >= 0) ++count[at / static_cast<std::size_t>(g.kernel[a])];
    return count;
}

// Each block's taps from the first to the last that read inside the input (im2col.hpp, live_taps), for the blocks of
// `columns` output positions of a plane of P.
std::vector<detail::TapRange> block_tap_ranges(const detail::Geometry3& g, std::int64_t columns, std::int64_t P) {
    std::vector<detail::TapRange> ranges(static_cast<std::size_t>((P + columns - 1) / columns));
    for (std::size_t block = 0; block < ranges.size(); ++block) {
        const std::int64_t p0 = static_cast<std::int64_t>(block) * columns;
        ranges[block] = detail::live_taps(g, p0, std::min(columns, P - p0));
    }
    return ranges;
}

// Whether a block leaves taps out (its product then reads the weights taps first).
bool some_block_leaves_taps_out(const std::vector<detail::TapRange>& ranges, std::int64_t taps) {
    return std::any_of(ranges.begin(), ranges.end(), [&](const detail::TapRange& r) { return r.end - r.first < taps; });
}

}  // namespace

double gemm_summation_work_bytes(const ConvDescriptor& d, int threads) {
    const detail::Geometry3 g = detail::lift(d);
    const double K = static_cast<double>(d.in_channels_per_group() * g.kernel[0] * g.kernel[1] * g.kernel[2]);
    const std::int64_t P = g.out[0] * g.out[1] * g.out[2];
    const double C = static_cast<double>(detail::block_columns(static_cast<std::int64_t>(K), P));
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
    const bool taps_first = some_block_leaves_taps_out(block_tap_ranges(g, static_cast<std::int64_t>(C), P), taps);
    return (taps_first ? 24.0 : 8.0) * static_cast<double>(d.weights_elements()) +
           threads * (24.0 * K * C + 8.0 * static_cast<double>(d.out_channels_per_group()) * K);
}

std::vector<std::int64_t> plane_term_counts(const ConvDescriptor& d) {
    const detail::Geometry3 g = detail::lift(d);
    const std::int64_t ICg = d.in_channels_per_group(), P = g.out[0] * g.out[1] * g.out[2];
    // IC_G * (taps inside along d) * (along h) * (along w), + 1 for a bias
    std::array<std::vector<std::int64_t>, 3> inside;
    for (int a = 0; a < 3; ++a)
        inside[a] = taps_inside(g, a);
    std::vector<std::int64_t> plane_terms(static_cast<std::size_t>(P));
    for (std::int64_t od = 0, p = 0; od < g.out[0]; ++od)
        for (std::int64_t oh = 0; oh < g.out[1]; ++oh)
            for (std::int64_t ow = 0; ow < g.out[2]; ++ow, ++p)
                plane_terms[p] = ICg * inside[0][od] * inside[1][oh] * inside[2][ow] + (d.has_bias ? 1 : 0);
    return plane_terms;
}

ConvResult gemm_convolution_summation(const ConvDescriptor& d, std::span<const double> src,
                                      std::span<const double> weights, std::span<const double> bias, int threads) {
    ConvResult r = gemm_convolution_sums(d, src, weights, bias, threads);
    // The term counts, from the geometry: one plane's, for every (n, oc)
    const std::vector<std::int64_t> plane_terms = plane_term_counts(d);
    r.terms.resize(r.dst.size());
    for (std::size_t at = 0; at < r.terms.size(); at += plane_terms.size())
        std::copy(plane_terms.begin(), plane_terms.end(), r.terms.begin() + static_cast<std::ptrdiff_t>(at));
    return r;
}

ConvResult gemm_convolution_sums(const ConvDescriptor& d, std::span<const double> src,
                                 std::span<const double> weights, std::span<const double> bias, int threads) {
    const detail::Geometry3 g = detail::lift(d);
    const std::int64_t N = d.batch, G = d.groups, ICg = d.in_channels_per_group(), OCg = d.out_channels_per_group();
    const std::int64_t OC = d.out_channels;
    const std::int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2], K = ICg * taps;
    const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2], P = g.out[0] * g.out[1] * g.out[2];
    ConvResult r;
    r.dst.resize(static_cast<std::size_t>(d.dst_elements()));
    r.magnitude.resize(r.dst.size());

    std::vector<double> weights_magnitude(weights.size());
    for (std::size_t i = 0; i < weights.size(); ++i) weights_magnitude[i] = std::fabs(weights[i]);

    // blocks of output positions: columns of one block share the im2col rows of every term position
    const std::int64_t columns = detail::block_columns(K, P);
    const std::int64_t blocks_per_plane = (P + columns - 1) / columns;
    // Each block's taps from the first to the last that read inside the input (im2col.hpp, live_taps): where a
    // block has taps outside that range (their rows all zero: dilated layers with their pads, a third of the taps
    // of DeepLab's rate-18 ASPP layer in most blocks), its product takes the range's rows only, taps first: the
    // weights' columns (tap, ic_g) of the range are then one run of weights_taps_first, [G * OC_G][taps][IC_G].
    const std::vector<detail::TapRange> live = block_tap_ranges(g, columns, P);
    std::vector<double> weights_taps_first, weights_taps_first_magnitude;
    if (some_block_leaves_taps_out(live, taps)) {
        weights_taps_first.resize(weights.size());
        weights_taps_first_magnitude.resize(weights.size());
        for (std::int64_t o = 0; o < G * OCg; ++o)
            for (std::int64_t ic = 0; ic < ICg; ++ic)
                for (std::int64_t t = 0; t < taps; ++t) {
                    weights_taps_first[(o * taps + t) * ICg + ic] = weights[(o * ICg + ic) * taps + t];
                    weights_taps_first_magnitude[(o * taps + t) * ICg + ic] = weights_magnitude[(o * ICg + ic) * taps + t];
                }
    }
    auto sum_block = [&](std::int64_t task) {
        const std::int64_t block = task % blocks_per_plane, group = (task / blocks_per_plane) % G;
        const std::int64_t n = task / (blocks_per_plane * G);
        const std::int64_t p0 = block * columns, width = std::min(columns, P - p0);
        const detail::TapRange range = live[block];
        const bool all_taps = range.end - range.first == taps;
        const std::int64_t rows = ICg * (range.end - range.first);
        // im2col of this block (im2col.hpp): row (ic_g, kd, kh, kw), or (tap, ic_g) for the range's taps, column p0 + j;
        // zero where the tap is in the padding. Every element is written (a value or a zero), so the reused buffers
        // need no clearing first.
        thread_local std::vector<double> patches, patches_magnitude;
        patches.resize(static_cast<std::size_t>(rows * width));
        patches_magnitude.resize(patches.size());
        detail::im2col_block(g, src.data() + (n * d.in_channels + group * ICg) * in_plane, ICg, p0, width,
                             patches.data(), patches_magnitude.data(), all_taps ? nullptr : &range);
        const ConstMatrix a(patches.data(), rows, width), a_magnitude(patches_magnitude.data(), rows, width);
        const std::int64_t w0 = group * OCg * K + (all_taps ? 0 : range.first * ICg);
        const WeightsBlock w(all_taps ? weights.data() + w0 : weights_taps_first.data() + w0, OCg, rows,
                             Eigen::OuterStride<>(K));
        const WeightsBlock w_magnitude(all_taps ? weights_magnitude.data() + w0 : weights_taps_first_magnitude.data() + w0,
                                       OCg, rows, Eigen::OuterStride<>(K));
        const std::int64_t first = (n * OC + group * OCg) * P + p0;
        OutBlock sum(r.dst.data() + first, OCg, width, Eigen::OuterStride<>(P));
        OutBlock magnitude(r.magnitude.data() + first, OCg, width, Eigen::OuterStride<>(P));
        if (rows == 0) {  // every output of the block reads only padding: no term
            sum.setZero();
            magnitude.setZero();
        } else {
            sum.noalias() = w * a;
            magnitude.noalias() = w_magnitude * a_magnitude;
        }
        // the definition's sum begins at the bias, or at +0: adding +0 turns a product's -0 (an output whose
        // every term is 0 * a negative weight) into the definition's +0, and changes no other value
        for (std::int64_t oc = 0; oc < OCg; ++oc) {
            const double b = d.has_bias ? bias[group * OCg + oc] : 0.0;
            sum.row(oc).array() += b;
            if (d.has_bias) magnitude.row(oc).array() += std::fabs(b);
        }
    };
    detail::for_each_block(N * G * blocks_per_plane, threads, d.dst_elements() * K, sum_block);
    return r;
}

}  // namespace convcheck::reference
