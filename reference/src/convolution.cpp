#include "convcheck/reference/convolution.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "term_runs.hpp"

namespace convcheck::reference {

namespace {

// Outputs per parallel block: their sums, magnitudes and term counts (~12 KiB) stay in L1 while
// every term position visits them.
constexpr std::int64_t kOutputsPerBlock = 512;

// One term for each of a run's outputs:  sum += src*w,  magnitude += |src*w|,  ++terms.
// The loop runs across outputs, never along one output's terms, so it vectorizes without
// reassociating any sum.
void add_products(const detail::TermRun& t, const double* src, double w, double* __restrict sum,
                  double* __restrict magnitude, std::int64_t* __restrict terms) {
    const std::int64_t count = t.count, step = t.src_step;
    if (step == 1) {
        for (std::int64_t j = 0; j < count; ++j) {
            const double product = src[j] * w;
            sum[j] += product;
            magnitude[j] += std::fabs(product);
            ++terms[j];
        }
    } else {
        for (std::int64_t j = 0; j < count; ++j) {
            const double product = src[j * step] * w;
            sum[j] += product;
            magnitude[j] += std::fabs(product);
            ++terms[j];
        }
    }
}

// Calls body(block) for every block in [0, blocks) on `threads` threads (0: one per core; one for
// small problems), which claim blocks one at a time and are all joined before this returns. Plain
// std::threads, not TBB: the runner forks a child for every plugin call, and a TBB worker pool
// alive in the parent at fork time hangs the child's own TBB (seen: an optimized execute that never
// returned); these threads are gone before anything can fork.
template <class Body>
void for_each_block(std::int64_t blocks, int threads, std::int64_t macs, Body&& body) {
    if (threads <= 0) threads = macs < 1'000'000 ? 1 : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<std::int64_t>(threads, blocks));
    std::atomic<std::int64_t> next{0};
    auto work = [&] {
        for (std::int64_t block; (block = next.fetch_add(1, std::memory_order_relaxed)) < blocks;) body(block);
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back(work);
    work();
    for (std::thread& h : helpers) h.join();
}

}  // namespace

ConvResult convolution_summation(const ConvDescriptor& d, std::span<const double> src,
                                 std::span<const double> weights, std::span<const double> bias, int threads) {
    // The index set (index_set.hpp) is shared with the backward sums (backward.cpp); term_runs.hpp
    // walks the same set in runs of outputs.
    const detail::ForwardTermRuns runs(d);
    ConvResult r;
    const std::int64_t dst_elements = d.dst_elements();
    r.dst.assign(dst_elements, 0.0);
    r.magnitude.assign(dst_elements, 0.0);
    r.terms.assign(dst_elements, 0);

    // The outputs are independent: blocks of output rows go to the threads. Within a block each
    // output still adds its terms one at a time, in the index set's order (ic_g, then kd, kh, kw),
    // to its own sum, so every value, magnitude and count is the same for any thread count.
    const std::int64_t rows = runs.rows(), width = runs.row_width();
    const std::int64_t rows_per_block = std::max<std::int64_t>(1, kOutputsPerBlock / width);
    const std::int64_t blocks_per_plane = (rows + rows_per_block - 1) / rows_per_block;
    auto sum_block = [&](std::int64_t block) {
        const std::int64_t plane = block / blocks_per_plane;
        const std::int64_t row_begin = block % blocks_per_plane * rows_per_block;
        const std::int64_t row_end = std::min(rows, row_begin + rows_per_block);
        const std::int64_t first = (plane * rows + row_begin) * width, last = (plane * rows + row_end) * width;
        if (d.has_bias) {
            // dst(n, oc, y) = bias(oc) + sum ...: the bias is the first term
            const double b = bias[runs.out_channel(plane)];
            std::fill(r.dst.begin() + first, r.dst.begin() + last, b);
            std::fill(r.magnitude.begin() + first, r.magnitude.begin() + last, std::fabs(b));
            std::fill(r.terms.begin() + first, r.terms.begin() + last, 1);
        }
        runs.for_each_run(plane, row_begin, row_end, [&](const detail::TermRun& t) {
            add_products(t, src.data() + t.src, weights[t.weights], r.dst.data() + t.dst, r.magnitude.data() + t.dst,
                         r.terms.data() + t.dst);
        });
    };
    for_each_block(runs.planes() * blocks_per_plane, threads, d.dst_elements() * (d.weights_elements() / d.out_channels),
                   sum_block);
    return r;
}

ConvResult convolution(const ConvDescriptor& d, const void* src, const void* weights, const void* bias, int threads) {
    validate(d);
    const std::vector<double> src_ncx = src_to_ncx(d, src);
    const std::vector<double> weights_oix = weights_to_oix(d, weights);
    const std::vector<double> bias_values = bias_to_double(d, bias);
    return convolution_summation(d, src_ncx, weights_oix, bias_values, threads);
}

}  // namespace convcheck::reference
