// The fast evaluator of reading 1 (fast_summation.hpp): rows of outputs over term lists built once,
// in register chunks, on joined threads; the same bits as convolution_summation (convolution.cpp).
#include "convcheck/reference/fast_summation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "chunk_sums.hpp"
#include "row_terms.hpp"

namespace convcheck::reference {

namespace {

using detail::ChunkTerm;

// Output rows per parallel block: at least this many outputs (their row's term list is built once).
constexpr std::int64_t kOutputsPerBlock = 512;

}  // namespace

ConvResult fast_convolution_summation(const ConvDescriptor& d, std::span<const double> src,
                                      std::span<const double> weights, std::span<const double> bias, int threads) {
    // row_terms.hpp walks the definition's index set (index_set.hpp) row by row.
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
    const std::int64_t run = rows_of.rows_per_run(), planes = rows_of.planes();
    // per tap kw: the output columns whose input column exists (the same in every row)
    std::vector<detail::LaneRange> column_ranges;
    for (std::int64_t kw = 0; kw < rows_of.kernel_width(); ++kw) column_ranges.push_back(rows_of.tap_columns(kw));
    // The rows' term lists, each built once on plane 0 (n = 0, oc = 0) at the first row of its key (row_terms.hpp
    // row_key): every other (plane, row) of that key adds the same terms, shifted (row_shift, weights_shift).
    std::vector<detail::RowTermList> lists;
    std::vector<std::int64_t> list_row, list_of_row(static_cast<std::size_t>(rows));
    std::map<std::array<std::int64_t, 4>, std::int64_t> list_of_key;
    for (std::int64_t row = 0; row < rows; ++row) {
        const auto [at, added] = list_of_key.try_emplace(rows_of.row_key(row), static_cast<std::int64_t>(lists.size()));
        if (added) {
            lists.emplace_back();
            rows_of.for_each_row_term(0, row, [&](std::int64_t in, std::int64_t w, std::int64_t kw) { lists.back().add(in, w, kw); });
            list_row.push_back(row);
        }
        list_of_row[row] = at->second;
    }
    auto sum_block = [&](std::int64_t block) {
        // blocks go over the planes first: neighbouring blocks read the same input rows (kept in cache)
        const std::int64_t plane = block % planes;
        const std::int64_t row_begin = block / planes * rows_per_block;
        const std::int64_t row_end = std::min(rows, row_begin + rows_per_block);
        // dst(n, oc, y) = bias(oc) + sum ...: the bias is the first term
        const double b = d.has_bias ? bias[rows_of.out_channel(plane)] : 0.0;
        // a run: rows [row, run_end) summed as one row of lanes (rows_per_run: a pointwise convolution's rows
        // of one od continue each other; otherwise one row). Each lane still adds its own terms in order.
        for (std::int64_t row = row_begin, run_end; row < row_end; row = run_end) {
            run_end = std::min(row_end, (row / run + 1) * run);
            const std::int64_t lanes = (run_end - row) * width, list = list_of_row[row];
            const std::int64_t first = (plane * rows + row) * width;
            double* const sum = r.dst.data() + first;
            double* const magnitude = r.magnitude.data() + first;
            std::int64_t* const count = r.terms.data() + first;
            if (d.has_bias)
                for (std::int64_t m = 0; m < lanes; ++m) sum[m] = b, magnitude[m] = std::fabs(b), count[m] = 1;
            // column ow takes the taps kw whose input column exists (column_ranges; a run: every lane)
            const detail::LaneRange whole_run{0, lanes};
            detail::add_row_terms(lists[list], run > 1 ? &whole_run : column_ranges.data(), lanes, src.data(),
                                  rows_of.row_shift(plane, row, list_row[list]), step,
                                  weights.data() + rows_of.weights_shift(plane), sum, magnitude, count, 1);
        }
    };
    detail::for_each_block(planes * blocks_per_plane, threads, d.dst_elements() * (d.weights_elements() / d.out_channels),
                   sum_block);
    return r;
}

}  // namespace convcheck::reference
