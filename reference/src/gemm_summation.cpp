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
#include <stdexcept>
#include <string>
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
    ConvResult r;
    r.dst.resize(static_cast<std::size_t>(d.dst_elements()));
    r.magnitude.resize(r.dst.size());
    GemmSums(d, weights, bias).sum_images(src, d.batch, r.dst, r.magnitude, threads);
    return r;
}

// What sum_images reads besides the images: the weights, their magnitudes and taps-first copies, the blocks.
struct GemmSums::Prepared {
    ConvDescriptor d;
    detail::Geometry3 g;
    std::int64_t G = 0, ICg = 0, OCg = 0, OC = 0, taps = 0, K = 0, in_plane = 0, P = 0;
    std::span<const double> weights, bias;
    std::vector<double> weights_magnitude;
    // blocks of output positions: columns of one block share the im2col rows of every term position
    std::int64_t columns = 0, blocks_per_plane = 0;
    // Each block's taps from the first to the last that read inside the input (im2col.hpp, live_taps): where a
    // block has taps outside that range (their rows all zero: dilated layers with their pads, a third of the taps
    // of DeepLab's rate-18 ASPP layer in most blocks), its product takes the range's rows only, taps first: the
    // weights' columns (tap, ic_g) of the range are then one run of weights_taps_first, [G * OC_G][taps][IC_G].
    std::vector<detail::TapRange> live;
    std::vector<double> weights_taps_first, weights_taps_first_magnitude;
};

GemmSums::GemmSums(const ConvDescriptor& d, std::span<const double> weights, std::span<const double> bias)
    : p_(std::make_unique<Prepared>()) {
    Prepared& p = *p_;
    p.d = d;
    p.g = detail::lift(d);
    p.G = d.groups, p.ICg = d.in_channels_per_group(), p.OCg = d.out_channels_per_group(), p.OC = d.out_channels;
    p.taps = p.g.kernel[0] * p.g.kernel[1] * p.g.kernel[2], p.K = p.ICg * p.taps;
    p.in_plane = p.g.in[0] * p.g.in[1] * p.g.in[2], p.P = p.g.out[0] * p.g.out[1] * p.g.out[2];
    p.weights = weights, p.bias = bias;
    p.weights_magnitude.resize(weights.size());
    for (std::size_t i = 0; i < weights.size(); ++i) p.weights_magnitude[i] = std::fabs(weights[i]);
    p.columns = detail::block_columns(p.K, p.P);
    p.blocks_per_plane = (p.P + p.columns - 1) / p.columns;
    p.live = block_tap_ranges(p.g, p.columns, p.P);
    if (some_block_leaves_taps_out(p.live, p.taps)) {
        p.weights_taps_first.resize(weights.size());
        p.weights_taps_first_magnitude.resize(weights.size());
        for (std::int64_t o = 0; o < p.G * p.OCg; ++o)
            for (std::int64_t ic = 0; ic < p.ICg; ++ic)
                for (std::int64_t t = 0; t < p.taps; ++t) {
                    const std::int64_t from = (o * p.ICg + ic) * p.taps + t, to = (o * p.taps + t) * p.ICg + ic;
                    p.weights_taps_first[to] = weights[from];
                    p.weights_taps_first_magnitude[to] = p.weights_magnitude[from];
                }
    }
}

GemmSums::~GemmSums() = default;

void GemmSums::sum_images(std::span<const double> src, std::int64_t images, std::span<double> dst,
                          std::span<double> magnitude, int threads) const {
    const Prepared& p = *p_;
    const std::int64_t outputs = images * p.OC * p.P;
    if (images < 0 || static_cast<std::int64_t>(src.size()) != images * p.d.in_channels * p.in_plane ||
        static_cast<std::int64_t>(dst.size()) != outputs || static_cast<std::int64_t>(magnitude.size()) != outputs)
        throw std::invalid_argument("GemmSums::sum_images: " + std::to_string(images) + " images take " +
                                    std::to_string(images * p.d.in_channels * p.in_plane) + " src elements and " +
                                    std::to_string(outputs) + " outputs, not " + std::to_string(src.size()) + ", " +
                                    std::to_string(dst.size()) + " and " + std::to_string(magnitude.size()));
    const std::int64_t G = p.G, ICg = p.ICg, OCg = p.OCg, OC = p.OC, K = p.K, P = p.P, taps = p.taps;
    const std::int64_t columns = p.columns, blocks_per_plane = p.blocks_per_plane;
    auto sum_block = [&](std::int64_t task) {
        const std::int64_t block = task % blocks_per_plane, group = (task / blocks_per_plane) % G;
        const std::int64_t n = task / (blocks_per_plane * G);
        const std::int64_t p0 = block * columns, width = std::min(columns, P - p0);
        const detail::TapRange range = p.live[static_cast<std::size_t>(block)];
        const bool all_taps = range.end - range.first == taps;
        const std::int64_t rows = ICg * (range.end - range.first);
        // im2col of this block (im2col.hpp): row (ic_g, kd, kh, kw), or (tap, ic_g) for the range's taps, column p0 + j;
        // zero where the tap is in the padding. Every element is written (a value or a zero), so the reused buffers
        // need no clearing first.
        thread_local detail::BlockArrays patches;
        patches.reserve(static_cast<std::size_t>(rows * width));
        detail::im2col_block(p.g, src.data() + (n * p.d.in_channels + group * ICg) * p.in_plane, ICg, p0, width,
                             patches.values.get(), patches.magnitude.get(), all_taps ? nullptr : &range);
        const ConstMatrix a(patches.values.get(), rows, width), a_magnitude(patches.magnitude.get(), rows, width);
        const std::int64_t w0 = group * OCg * K + (all_taps ? 0 : range.first * ICg);
        const WeightsBlock w(all_taps ? p.weights.data() + w0 : p.weights_taps_first.data() + w0, OCg, rows,
                             Eigen::OuterStride<>(K));
        const WeightsBlock w_magnitude(
            all_taps ? p.weights_magnitude.data() + w0 : p.weights_taps_first_magnitude.data() + w0, OCg, rows,
            Eigen::OuterStride<>(K));
        const std::int64_t first = (n * OC + group * OCg) * P + p0;
        OutBlock sum(dst.data() + first, OCg, width, Eigen::OuterStride<>(P));
        OutBlock block_magnitude(magnitude.data() + first, OCg, width, Eigen::OuterStride<>(P));
        if (rows == 0) {  // every output of the block reads only padding: no term
            sum.setZero();
            block_magnitude.setZero();
        } else {
            sum.noalias() = w * a;
            block_magnitude.noalias() = w_magnitude * a_magnitude;
        }
        // the definition's sum begins at the bias, or at +0: adding +0 turns a product's -0 (an output whose
        // every term is 0 * a negative weight) into the definition's +0, and changes no other value
        for (std::int64_t oc = 0; oc < OCg; ++oc) {
            const double b = p.d.has_bias ? p.bias[static_cast<std::size_t>(group * OCg + oc)] : 0.0;
            sum.row(oc).array() += b;
            if (p.d.has_bias) block_magnitude.row(oc).array() += std::fabs(b);
        }
    };
    detail::for_each_block(images * G * blocks_per_plane, threads, images * OC * P * K, sum_block);
}

}  // namespace convcheck::reference
