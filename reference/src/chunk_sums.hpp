// Internal: the pieces the fast sums share (fast_summation.cpp, backward_sums.cpp): a chunk of outputs
// summed in registers over a list of terms, and blocks of work on joined threads. Neither changes an
// order: every element adds its own terms one at a time, in the list's order, to its own sum.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

namespace convcheck::reference::detail {

// One term of a list: lane j of a chunk adds in[in_at + j*in_step] * weights[weights].
struct ChunkTerm {
    std::int64_t in = 0, weights = 0;
};

// The widths a chunk may have, widest first (1: one element on its own).
inline constexpr std::int64_t kChunkWidths[] = {16, 8, 4, 2, 1};

// The lanes [begin, end) of a row that take the terms of one class.
struct LaneRange {
    std::int64_t begin = 0, end = 0;
};

// A row's terms, in the order every lane adds them: term t belongs to class classes[t] and lane m
// takes it when m lies in ranges[classes[t]] (the forward's classes are the taps kw: a lane is an
// output column, which takes the taps whose input column exists).
struct RowTermList {
    std::vector<ChunkTerm> terms;
    std::vector<std::int64_t> classes, class_terms;  // per term its class; per class its terms
    void clear() { terms.clear(), classes.clear(), class_terms.clear(); }
    void add(std::int64_t in, std::int64_t weights, std::int64_t term_class) {
        terms.push_back({in, weights});
        classes.push_back(term_class);
        if (static_cast<std::int64_t>(class_terms.size()) <= term_class) class_terms.resize(term_class + 1, 0);
        ++class_terms[term_class];
    }
};

// Lanes [0, lanes) of a row, lane m being element sum[m*out_step] (magnitude, counts alike), each add
// the row's terms it takes, in the list's order, reading in[in_base + term.in + m*in_step]: the row is cut
// where a class's range begins or ends, and each piece, whose lanes all take the same terms, is summed
// in chunks (add_chunk_terms).
void add_row_terms(const RowTermList& row, const LaneRange* ranges, std::int64_t lanes, const double* in,
                   std::int64_t in_base, std::int64_t in_step, const double* weights, double* sum, double* magnitude, std::int64_t* counts,
                   std::int64_t out_step);

// `width` (one of kChunkWidths) elements at sum[j*out_step], magnitude[j*out_step] (holding their
// sums so far) each add every term of the list (with `taken`: only the terms t whose class
// taken[classes[t]] is set), in order:  sum += in*w (the product rounded, then added),  magnitude +=
// |in*w|, with in = in[term.in + in0 + j*in_step]. The loop runs across the chunk's elements, never
// along one element's terms: no sum is reassociated.
void add_chunk_terms(std::int64_t width, const ChunkTerm* terms, std::int64_t count, const std::int64_t* classes,
                     const unsigned char* taken, const double* in, std::int64_t in0, std::int64_t in_step,
                     const double* weights, double* sum, double* magnitude, std::int64_t out_step);

// Calls body(block) for every block in [0, blocks) on `threads` threads (0: one per core; one when
// `work` (multiply-adds) is small), which claim blocks one at a time and are all joined before this
// returns.
void for_each_block(std::int64_t blocks, int threads, std::int64_t work, void (*body)(void*, std::int64_t), void* context);

template <class Body>
void for_each_block(std::int64_t blocks, int threads, std::int64_t work, Body&& body) {
    using B = std::remove_reference_t<Body>;
    for_each_block(blocks, threads, work, [](void* b, std::int64_t block) { (*static_cast<B*>(b))(block); },
                   const_cast<void*>(static_cast<const void*>(&body)));
}

}  // namespace convcheck::reference::detail
