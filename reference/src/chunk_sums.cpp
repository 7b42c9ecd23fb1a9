#include "chunk_sums.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

namespace convcheck::reference::detail {

namespace {

template <std::int64_t V>
[[gnu::always_inline]] inline void chunk_terms(const ChunkTerm* terms, std::int64_t count, const double* in,
                                               std::int64_t in0, std::int64_t in_step, const double* weights,
                                               double* __restrict sum, double* __restrict magnitude,
                                               std::int64_t out_step) {
    double s[V], m[V];
#pragma GCC unroll 16
    for (std::int64_t j = 0; j < V; ++j) s[j] = sum[j * out_step], m[j] = magnitude[j * out_step];
    for (std::int64_t t = 0; t < count; ++t) {
        const double w = weights[terms[t].weights];
        const double* x = in + terms[t].in + in0;
        if (in_step == 1) {
#pragma GCC unroll 16
            for (std::int64_t j = 0; j < V; ++j) {
                const double product = x[j] * w;
                s[j] += product;
                m[j] += std::fabs(product);
            }
        } else {
#pragma GCC unroll 16
            for (std::int64_t j = 0; j < V; ++j) {
                const double product = x[j * in_step] * w;
                s[j] += product;
                m[j] += std::fabs(product);
            }
        }
    }
#pragma GCC unroll 16
    for (std::int64_t j = 0; j < V; ++j) sum[j * out_step] = s[j], magnitude[j * out_step] = m[j];
}

}  // namespace

// Built for AVX2 and for the baseline, picked at load time (GCC's target_clones): AVX2 holds four
// doubles per vector. Neither contracts a product into the sum (no FMA in either target, and the
// library is built with -ffp-contract=off).
[[gnu::target_clones("avx2", "default")]] void add_chunk_terms(std::int64_t width, const ChunkTerm* terms,
                                                                 std::int64_t count, const double* in, std::int64_t in0,
                                                                 std::int64_t in_step, const double* weights,
                                                                 double* sum, double* magnitude, std::int64_t out_step) {
    if (width == 16) chunk_terms<16>(terms, count, in, in0, in_step, weights, sum, magnitude, out_step);
    else if (width == 8) chunk_terms<8>(terms, count, in, in0, in_step, weights, sum, magnitude, out_step);
    else if (width == 4) chunk_terms<4>(terms, count, in, in0, in_step, weights, sum, magnitude, out_step);
    else chunk_terms<2>(terms, count, in, in0, in_step, weights, sum, magnitude, out_step);
}

// Plain std::threads, not TBB: the runner forks a child for every plugin call, and a TBB worker pool
// alive in the parent at fork time hangs the child's own TBB (seen: an optimized execute that never
// returned); these threads are gone before anything can fork.
void for_each_block(std::int64_t blocks, int threads, std::int64_t work, void (*body)(void*, std::int64_t), void* context) {
    if (threads <= 0) threads = work < 1'000'000 ? 1 : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<std::int64_t>(threads, blocks));
    std::atomic<std::int64_t> next{0};
    auto run = [&] {
        for (std::int64_t block; (block = next.fetch_add(1, std::memory_order_relaxed)) < blocks;) body(context, block);
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back(run);
    run();
    for (std::thread& h : helpers) h.join();
}

}  // namespace convcheck::reference::detail
