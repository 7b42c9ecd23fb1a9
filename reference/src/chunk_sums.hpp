// Internal: the pieces the fast sums share (convolution.cpp, backward_sums.cpp): a chunk of outputs
// summed in registers over a list of terms, and blocks of work on joined threads. Neither changes an
// order: every element adds its own terms one at a time, in the list's order, to its own sum.
#pragma once

#include <cstdint>
#include <type_traits>

namespace convcheck::reference::detail {

// One term of a list: lane j of a chunk adds in[in_at + j*in_step] * weights[weights].
struct ChunkTerm {
    std::int64_t in = 0, weights = 0;
};

// The widths a chunk may have, widest first.
inline constexpr std::int64_t kChunkWidths[] = {16, 8, 4, 2};

// `width` (one of kChunkWidths) elements at sum[j*out_step], magnitude[j*out_step] (holding their
// sums so far) each add every term of the list, in order:  sum += in*w (the product rounded, then
// added),  magnitude += |in*w|, with in = in[term.in + in0 + j*in_step]. The loop runs across the
// chunk's elements, never along one element's terms: no sum is reassociated.
void add_chunk_terms(std::int64_t width, const ChunkTerm* terms, std::int64_t count, const double* in, std::int64_t in0,
                     std::int64_t in_step, const double* weights, double* sum, double* magnitude, std::int64_t out_step);

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
