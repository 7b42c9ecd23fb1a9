#include "convcheck/reference/convolution.hpp"

#include <algorithm>
#include <cmath>
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
    // per tap kw: the output columns whose input column exists (the same in every row)
    std::vector<detail::LaneRange> column_ranges;
    for (std::int64_t kw = 0; kw < rows_of.kernel_width(); ++kw) column_ranges.push_back(rows_of.tap_columns(kw));
    auto sum_block = [&](std::int64_t block) {
        const std::int64_t plane = block / blocks_per_plane;
        const std::int64_t row_begin = block % blocks_per_plane * rows_per_block;
        const std::int64_t row_end = std::min(rows, row_begin + rows_per_block);
        // dst(n, oc, y) = bias(oc) + sum ...: the bias is the first term
        const double b = d.has_bias ? bias[rows_of.out_channel(plane)] : 0.0;
        detail::RowTermList row_terms;
        for (std::int64_t row = row_begin; row < row_end; ++row) {
            row_terms.clear();
            rows_of.for_each_row_term(plane, row, [&](std::int64_t at, std::int64_t w, std::int64_t kw) { row_terms.add(at, w, kw); });
            const std::int64_t first = (plane * rows + row) * width;
            double* const sum = r.dst.data() + first;
            double* const magnitude = r.magnitude.data() + first;
            std::int64_t* const count = r.terms.data() + first;
            if (d.has_bias)
                for (std::int64_t ow = 0; ow < width; ++ow) sum[ow] = b, magnitude[ow] = std::fabs(b), count[ow] = 1;
            // column ow takes the taps kw whose input column exists (column_ranges)
            detail::add_row_terms(row_terms, column_ranges.data(), width, src.data(), step, weights.data(), sum, magnitude,
                                  count, 1);
        }
    };
    detail::for_each_block(rows_of.planes() * blocks_per_plane, threads, d.dst_elements() * (d.weights_elements() / d.out_channels),
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
