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

// One output outside the chunks (an edge column, or the interior's last few): its row's terms whose
// tap kw is in [taps.first, taps.second), in the same order, each as add_chunk_terms adds it. Returns
// the terms added.
std::int64_t add_column_terms(const std::vector<ChunkTerm>& terms, const std::vector<std::int64_t>& kws,
                              std::pair<std::int64_t, std::int64_t> taps, const double* src, std::int64_t ow,
                              std::int64_t step, const double* weights, double& sum, double& magnitude) {
    double s = sum, m = magnitude;
    std::int64_t added = 0;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        if (kws[t] < taps.first || kws[t] >= taps.second) continue;  // its input column is in the padding
        const double product = src[terms[t].in + ow * step] * weights[terms[t].weights];
        s += product;
        m += std::fabs(product);
        ++added;
    }
    sum = s, magnitude = m;
    return added;
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
        std::vector<ChunkTerm> terms;
        std::vector<std::int64_t> kws;
        for (std::int64_t row = row_begin; row < row_end; ++row) {
            terms.clear(), kws.clear();
            rows_of.for_each_row_term(plane, row, [&](std::int64_t at, std::int64_t w, std::int64_t kw) {
                terms.push_back({at, w});
                kws.push_back(kw);
            });
            const std::int64_t first = (plane * rows + row) * width;
            double* const sum = r.dst.data() + first;
            double* const magnitude = r.magnitude.data() + first;
            std::int64_t* const count = r.terms.data() + first;
            if (d.has_bias)
                for (std::int64_t ow = 0; ow < width; ++ow) sum[ow] = b, magnitude[ow] = std::fabs(b), count[ow] = 1;
            // the interior in chunks held in registers, widest first; every other column on its own
            std::int64_t ow = interior.first;
            for (const std::int64_t chunk : detail::kChunkWidths)
                for (; ow + chunk <= interior.second; ow += chunk) {
                    detail::add_chunk_terms(chunk, terms.data(), static_cast<std::int64_t>(terms.size()), src.data(),
                                            ow * step, step, weights.data(), sum + ow, magnitude + ow, 1);
                    for (std::int64_t j = 0; j < chunk; ++j) count[ow + j] += static_cast<std::int64_t>(terms.size());
                }
            const std::int64_t chunked_end = ow;
            for (std::int64_t column = 0; column < width; ++column) {
                if (column == interior.first) column = chunked_end;
                if (column >= width) break;
                count[column] += add_column_terms(terms, kws, rows_of.column_taps(column), src.data(), column, step,
                                                  weights.data(), sum[column], magnitude[column]);
            }
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
