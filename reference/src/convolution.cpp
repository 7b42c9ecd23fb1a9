#include "convcheck/reference/convolution.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <utility>
#include <vector>

#include "row_terms.hpp"

namespace convcheck::reference {

namespace {

using detail::RowTerm;

// Output rows per parallel block: at least this many outputs (their row's term list is built once).
constexpr std::int64_t kOutputsPerBlock = 512;

// A row's interior goes in chunks of 16, 8, 4 or 2 outputs, each chunk's sums and magnitudes held in
// registers over all of its terms (two or four doubles per vector).
constexpr std::int64_t kChunks[] = {16, 8, 4, 2};

// V outputs of a row's interior, from column ow0: every term of the row, in the forward's order, each
// as the literal sum adds it:  sum += src*w (the product rounded, then added),  magnitude += |src*w|.
// The loop runs across the V outputs, never along one output's terms: no sum is reassociated.
template <std::int64_t V>
[[gnu::always_inline]] inline void chunk_terms(const RowTerm* terms, std::int64_t count, const double* src,
                                               std::int64_t ow0, std::int64_t step, const double* weights,
                                               double* __restrict sum, double* __restrict magnitude) {
    double s[V], m[V];
#pragma GCC unroll 16
    for (std::int64_t j = 0; j < V; ++j) s[j] = sum[j], m[j] = magnitude[j];
    for (std::int64_t t = 0; t < count; ++t) {
        const double w = weights[terms[t].weights];
        const double* x = src + terms[t].src + ow0 * step;
        if (step == 1) {
#pragma GCC unroll 16
            for (std::int64_t j = 0; j < V; ++j) {
                const double product = x[j] * w;
                s[j] += product;
                m[j] += std::fabs(product);
            }
        } else {
#pragma GCC unroll 16
            for (std::int64_t j = 0; j < V; ++j) {
                const double product = x[j * step] * w;
                s[j] += product;
                m[j] += std::fabs(product);
            }
        }
    }
#pragma GCC unroll 16
    for (std::int64_t j = 0; j < V; ++j) sum[j] = s[j], magnitude[j] = m[j];
}

// Built for AVX2 and for the baseline, picked at load time (GCC's target_clones): AVX2 holds four
// doubles per vector. Neither contracts a product into the sum (no FMA in either target, and the
// library is built with -ffp-contract=off).
[[gnu::target_clones("avx2", "default")]] void add_chunk_terms(std::int64_t width, const RowTerm* terms,
                                                                 std::int64_t count, const double* src, std::int64_t ow0,
                                                                 std::int64_t step, const double* weights, double* sum,
                                                                 double* magnitude) {
    if (width == 16) chunk_terms<16>(terms, count, src, ow0, step, weights, sum, magnitude);
    else if (width == 8) chunk_terms<8>(terms, count, src, ow0, step, weights, sum, magnitude);
    else if (width == 4) chunk_terms<4>(terms, count, src, ow0, step, weights, sum, magnitude);
    else chunk_terms<2>(terms, count, src, ow0, step, weights, sum, magnitude);
}

// One output outside the chunks (an edge column, or the interior's last few): its row's terms whose
// tap kw is in [taps.first, taps.second), in the same order, the same way. Returns the terms added.
std::int64_t add_column_terms(const std::vector<RowTerm>& terms, std::pair<std::int64_t, std::int64_t> taps,
                              const double* src, std::int64_t ow, std::int64_t step, const double* weights,
                              double& sum, double& magnitude) {
    double s = sum, m = magnitude;
    std::int64_t added = 0;
    for (const RowTerm& t : terms) {
        if (t.kw < taps.first || t.kw >= taps.second) continue;  // its input column is in the padding
        const double product = src[t.src + ow * step] * weights[t.weights];
        s += product;
        m += std::fabs(product);
        ++added;
    }
    sum = s, magnitude = m;
    return added;
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
    // The index set (index_set.hpp) is shared with the backward sums (backward.cpp); row_terms.hpp
    // walks the same set row by row.
    const detail::ForwardRowTerms rows_of(d);
    ConvResult r;
    const std::int64_t dst_elements = d.dst_elements();
    r.dst.assign(dst_elements, 0.0);
    r.magnitude.assign(dst_elements, 0.0);
    r.terms.assign(dst_elements, 0);

    // The outputs are independent: blocks of output rows go to the threads. Within a block each
    // output still adds its terms one at a time, in the index set's order (ic_g, then kd, kh, kw),
    // to its own sum, so every value, magnitude and count is the same for any thread count.
    const std::int64_t rows = rows_of.rows(), width = rows_of.row_width(), step = rows_of.column_step();
    const std::int64_t rows_per_block = std::max<std::int64_t>(1, kOutputsPerBlock / width);
    const std::int64_t blocks_per_plane = (rows + rows_per_block - 1) / rows_per_block;
    const std::pair<std::int64_t, std::int64_t> interior = rows_of.interior_columns();
    auto sum_block = [&](std::int64_t block) {
        const std::int64_t plane = block / blocks_per_plane;
        const std::int64_t row_begin = block % blocks_per_plane * rows_per_block;
        const std::int64_t row_end = std::min(rows, row_begin + rows_per_block);
        // dst(n, oc, y) = bias(oc) + sum ...: the bias is the first term
        const double b = d.has_bias ? bias[rows_of.out_channel(plane)] : 0.0;
        std::vector<RowTerm> terms;
        for (std::int64_t row = row_begin; row < row_end; ++row) {
            terms.clear();
            rows_of.for_each_row_term(plane, row, [&](const RowTerm& t) { terms.push_back(t); });
            const std::int64_t first = (plane * rows + row) * width;
            double* const sum = r.dst.data() + first;
            double* const magnitude = r.magnitude.data() + first;
            std::int64_t* const count = r.terms.data() + first;
            if (d.has_bias)
                for (std::int64_t ow = 0; ow < width; ++ow) sum[ow] = b, magnitude[ow] = std::fabs(b), count[ow] = 1;
            // the interior in chunks, widest first; every other column on its own
            std::int64_t ow = interior.first;
            for (const std::int64_t chunk : kChunks)
                for (; ow + chunk <= interior.second; ow += chunk) {
                    add_chunk_terms(chunk, terms.data(), static_cast<std::int64_t>(terms.size()), src.data(), ow, step,
                                    weights.data(), sum + ow, magnitude + ow);
                    for (std::int64_t j = 0; j < chunk; ++j) count[ow + j] += static_cast<std::int64_t>(terms.size());
                }
            const std::int64_t chunked_end = ow;
            for (std::int64_t column = 0; column < width; ++column) {
                if (column == interior.first) column = chunked_end;
                if (column >= width) break;
                count[column] += add_column_terms(terms, rows_of.column_taps(column), src.data(), column, step,
                                                  weights.data(), sum[column], magnitude[column]);
            }
        }
    };
    for_each_block(rows_of.planes() * blocks_per_plane, threads, d.dst_elements() * (d.weights_elements() / d.out_channels),
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
