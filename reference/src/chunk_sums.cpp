#include "chunk_sums.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

namespace convcheck::reference::detail {

namespace {

// Four doubles as one GCC vector (AVX2: one register; the baseline: two SSE2 halves). Each lane is
// rounded as the scalar code rounds it: a product, then a sum, then |product| by clearing the sign bit.
using Lanes4 = double __attribute__((vector_size(32)));
using Bits4 = long long __attribute__((vector_size(32)));

// The in_step == 1 chunk, V a multiple of 4: the same products and sums as chunk_terms' scalar loop,
// four lanes per vector (GCC does not vectorize that loop: its sums are kept in arrays).
template <std::int64_t V>
[[gnu::always_inline]] inline void chunk_terms_contiguous(const ChunkTerm* terms, std::int64_t count,
                                                          const std::int64_t* classes, const unsigned char* taken,
                                                          const double* in, const double* weights, double* sum,
                                                          double* magnitude, std::int64_t out_step) {
    constexpr std::int64_t N = V / 4;
    const Bits4 no_sign = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
    Lanes4 s[N], m[N];
#pragma GCC unroll 4
    for (std::int64_t v = 0; v < N; ++v)
        for (std::int64_t j = 0; j < 4; ++j) s[v][j] = sum[(4 * v + j) * out_step], m[v][j] = magnitude[(4 * v + j) * out_step];
    for (std::int64_t t = 0; t < count; ++t) {
        if (taken != nullptr && !taken[classes[t]]) continue;
        const double w = weights[terms[t].weights];
        const double* x = in + terms[t].in;
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < N; ++v) {
            Lanes4 xv;
            __builtin_memcpy(&xv, x + 4 * v, sizeof xv);
            const Lanes4 product = xv * w;
            s[v] += product;
            m[v] += reinterpret_cast<Lanes4>(reinterpret_cast<Bits4>(product) & no_sign);
        }
    }
#pragma GCC unroll 4
    for (std::int64_t v = 0; v < N; ++v)
        for (std::int64_t j = 0; j < 4; ++j) sum[(4 * v + j) * out_step] = s[v][j], magnitude[(4 * v + j) * out_step] = m[v][j];
}

template <std::int64_t V>
[[gnu::always_inline]] inline void chunk_terms(const ChunkTerm* terms, std::int64_t count, const std::int64_t* classes,
                                               const unsigned char* taken, const double* in, std::int64_t in0,
                                               std::int64_t in_step, const double* weights, double* __restrict sum,
                                               double* __restrict magnitude, std::int64_t out_step) {
    if constexpr (V % 4 == 0)
        if (in_step == 1)
            return chunk_terms_contiguous<V>(terms, count, classes, taken, in + in0, weights, sum, magnitude, out_step);
    double s[V], m[V];
#pragma GCC unroll 16
    for (std::int64_t j = 0; j < V; ++j) s[j] = sum[j * out_step], m[j] = magnitude[j * out_step];
    for (std::int64_t t = 0; t < count; ++t) {
        if (taken != nullptr && !taken[classes[t]]) continue;
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

// Built for AVX2 and for the baseline, picked once at run time (not GCC's target_clones: its ifunc
// resolver runs before ThreadSanitizer's runtime is up, and the TSan build's tests crashed at start).
// AVX2 holds four doubles per vector. Neither contracts a product into the sum (no FMA in either
// target, and the library is built with -ffp-contract=off).
template <class... A>
[[gnu::always_inline]] inline void chunk_terms_of_width(std::int64_t width, A... a) {
    if (width == 16) chunk_terms<16>(a...);
    else if (width == 8) chunk_terms<8>(a...);
    else if (width == 4) chunk_terms<4>(a...);
    else if (width == 2) chunk_terms<2>(a...);
    else chunk_terms<1>(a...);
}

[[gnu::target("avx2")]] void add_chunk_terms_avx2(std::int64_t width, const ChunkTerm* terms, std::int64_t count,
                                                  const std::int64_t* classes, const unsigned char* taken,
                                                  const double* in, std::int64_t in0, std::int64_t in_step,
                                                  const double* weights, double* sum, double* magnitude,
                                                  std::int64_t out_step) {
    chunk_terms_of_width(width, terms, count, classes, taken, in, in0, in_step, weights, sum, magnitude, out_step);
}

void add_chunk_terms_baseline(std::int64_t width, const ChunkTerm* terms, std::int64_t count,
                              const std::int64_t* classes, const unsigned char* taken, const double* in,
                              std::int64_t in0, std::int64_t in_step, const double* weights, double* sum,
                              double* magnitude, std::int64_t out_step) {
    chunk_terms_of_width(width, terms, count, classes, taken, in, in0, in_step, weights, sum, magnitude, out_step);
}

}  // namespace

void add_chunk_terms(std::int64_t width, const ChunkTerm* terms, std::int64_t count, const std::int64_t* classes,
                     const unsigned char* taken, const double* in, std::int64_t in0, std::int64_t in_step,
                     const double* weights, double* sum, double* magnitude, std::int64_t out_step) {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    (avx2 ? add_chunk_terms_avx2 : add_chunk_terms_baseline)(width, terms, count, classes, taken, in, in0, in_step,
                                                             weights, sum, magnitude, out_step);
}

void add_row_terms(const RowTermList& row, const LaneRange* ranges, std::int64_t lanes, const double* in,
                   std::int64_t in_base, std::int64_t in_step, const double* weights, double* sum, double* magnitude,
                   std::int64_t* counts, std::int64_t out_step) {
    // the cuts: 0, lanes and every class's range ends inside (classes are few: the taps along w). This
    // function runs once per output row (a depthwise row has only its 9 taps to add): the three lists below
    // are the calling thread's, kept from row to row, so that a row allocates nothing.
    const std::int64_t classes = static_cast<std::int64_t>(row.class_terms.size());
    thread_local std::vector<std::int64_t> cuts;
    cuts.assign({0, lanes});
    for (std::int64_t c = 0; c < classes; ++c)
        for (const std::int64_t at : {ranges[c].begin, ranges[c].end})
            if (at > 0 && at < lanes) cuts.push_back(at);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    // the pieces [begin, end) between cuts and the classes every lane of one takes (a range holds begin,
    // so all of the piece)
    struct Piece {
        std::int64_t begin, end, count;
        bool all;
    };
    thread_local std::vector<Piece> pieces;
    thread_local std::vector<unsigned char> taken;
    pieces.clear(), taken.clear();
    for (std::size_t cut = 0; cut + 1 < cuts.size(); ++cut) {
        Piece p{cuts[cut], cuts[cut + 1], 0, true};
        for (std::int64_t c = 0; c < classes; ++c) {
            const bool takes = ranges[c].begin <= p.begin && p.begin < ranges[c].end;
            taken.push_back(takes);
            p.count += takes ? row.class_terms[c] : 0;
            p.all = p.all && (takes || row.class_terms[c] == 0);
        }
        pieces.push_back(p);
    }
    // f(width, m) for each chunk [m, m + width) of piece p
    auto for_each_chunk = [](const Piece& p, auto&& f) {
        std::int64_t m = p.begin;
        for (const std::int64_t width : kChunkWidths)
            for (; m + width <= p.end; m += width) f(width, m);
    };
    // The terms go in consecutive segments, each through every chunk of the row before the next: a segment's
    // input rows (about 256 KiB) stay in cache for all the row's chunks. Every lane still adds its terms in
    // the list's order (segment after segment), its sum kept in memory between segments.
    const std::int64_t terms = static_cast<std::int64_t>(row.terms.size());
    const std::int64_t segment = std::max<std::int64_t>(1, (std::int64_t{1} << 18) / (lanes * in_step * 8) + 1);
    for (std::int64_t t0 = 0; t0 < terms; t0 += segment) {
        const std::int64_t t1 = std::min(terms, t0 + segment);
        for (std::size_t piece = 0; piece < pieces.size(); ++piece) {
            if (pieces[piece].count == 0) continue;
            const unsigned char* piece_taken = pieces[piece].all ? nullptr : taken.data() + piece * classes;
            for_each_chunk(pieces[piece], [&](std::int64_t width, std::int64_t m) {
                add_chunk_terms(width, row.terms.data() + t0, t1 - t0, row.classes.data() + t0, piece_taken, in,
                                in_base + m * in_step, in_step, weights, sum + m * out_step, magnitude + m * out_step,
                                out_step);
            });
        }
    }
    for (const Piece& p : pieces)
        for_each_chunk(p, [&](std::int64_t width, std::int64_t m) {
            for (std::int64_t j = 0; j < width; ++j) counts[(m + j) * out_step] += p.count;
        });
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
