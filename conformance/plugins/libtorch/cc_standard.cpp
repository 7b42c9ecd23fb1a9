// The standard CC method with torch operations (cc_methods.hpp).
#include <ATen/ops/arange.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/index_select.h>

#include <algorithm>

#include "cc_kernel.hpp"
#include "cc_methods.hpp"

namespace convcheck_libtorch::cc {

std::int64_t standard_chunk_rows(const convcheck::CcDescriptor& d) {
    const std::int64_t per_row = d.output_size[1] * d.neighbours() * d.in_channels * d.out_channels;
    return std::clamp<std::int64_t>(kStandardChunkElements / std::max<std::int64_t>(per_row, 1), 1, d.output_size[0]);
}

at::Tensor standard_rows(const convcheck::CcDescriptor& d, const at::Tensor& padded_src, const AxisWindows& h,
                         const AxisWindows& w, const at::Tensor& theta, std::int64_t row0, std::int64_t rows) {
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels, OW = d.output_size[1];
    const std::int64_t KH = d.support[0], KW = d.support[1];
    const auto long_options = at::TensorOptions().dtype(at::kLong);
    // block 2: the neighbours, rows of the padded input, then columns (zeros outside the input)
    const at::Tensor rows_read =
        (h.first.narrow(0, row0, rows).unsqueeze(1) + at::arange(KH, long_options) + h.pad_before).flatten();
    const at::Tensor columns_read = (w.first.unsqueeze(1) + at::arange(KW, long_options) + w.pad_before).flatten();
    const at::Tensor neighbours = padded_src.index_select(2, rows_read)
                                      .index_select(3, columns_read)
                                      .view({N, CI, rows, KH, OW, KW})
                                      .permute({2, 4, 0, 3, 5, 1})
                                      .reshape({rows * OW, N, KH * KW * CI});
    // block 3: K(D) for every output pixel (oh, ow) and neighbour (jh, jw)
    const at::Tensor dy = h.distance.narrow(0, row0, rows).view({rows, 1, KH, 1}).expand({rows, OW, KH, KW}).reshape(-1);
    const at::Tensor dx = w.distance.view({1, OW, 1, KW}).expand({rows, OW, KH, KW}).reshape(-1);
    const at::Tensor weights = kernel_weights(d, dy, dx, theta).reshape({rows * OW, KH * KW * CI, CO});
    // block 4: I'[n, co, o] = sum over cin and k of N[n, cin, k, o] W[co, cin, k, o]
    return at::bmm(neighbours, weights).view({rows, OW, N, CO}).permute({2, 3, 0, 1});
}

}  // namespace convcheck_libtorch::cc
