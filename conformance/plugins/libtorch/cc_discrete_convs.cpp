// The "by discrete convs" CC method with torch operations (cc_methods.hpp; seed 004, Sec. 5, "Efficient
// implementation using discrete convolutions": for a rational scale the grid is periodic, g_{n+p} = g_n + q, so p
// weight sets per axis suffice, applied as p discrete convolutions with stride q whose outputs are interleaved).
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/stack.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "cc_kernel.hpp"
#include "cc_methods.hpp"

namespace convcheck_libtorch::cc {

namespace {

// The phases of an axis that have outputs: min(p, out).
std::int64_t phases(const AxisWindows& a, std::int64_t out) { return std::min(a.period, out); }

}  // namespace

std::int64_t discrete_conv_phases(const convcheck::CcDescriptor& d) {
    if (!d.scale[0].is_rational() || !d.scale[1].is_rational()) return 0;
    std::int64_t count = 1;
    for (int a = 0; a < 2; ++a) {
        const std::int64_t g = std::gcd(d.scale[a].numerator, d.scale[a].denominator);
        count *= std::min(d.scale[a].numerator / g, d.output_size[a]);
    }
    return count;
}

at::Tensor discrete_convs(const convcheck::CcDescriptor& d, const at::Tensor& padded_src, const AxisWindows& h,
                          const AxisWindows& w, const at::Tensor& theta) {
    if (h.period == 0 || w.period == 0) throw std::logic_error("discrete_convs: a real scale has no period");
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels, OH = d.output_size[0],
                       OW = d.output_size[1];
    const std::int64_t KH = d.support[0], KW = d.support[1];
    const std::int64_t PH = phases(h, OH), PW = phases(w, OW);
    // block 3 once per phase: K(D) of phase (rh, rw) as a [Cout, Cin, KH, KW] convolution weight
    const at::Tensor dy = h.distance.narrow(0, 0, PH).view({PH, 1, KH, 1}).expand({PH, PW, KH, KW}).reshape(-1);
    const at::Tensor dx = w.distance.narrow(0, 0, PW).view({1, PW, 1, KW}).expand({PH, PW, KH, KW}).reshape(-1);
    const at::Tensor weights =
        kernel_weights(d, dy, dx, theta).view({PH, PW, KH, KW, CI, CO}).permute({0, 1, 5, 4, 2, 3});
    // blocks 2 and 4 of phase (rh, rw) as a strided convolution: output t reads rows first[rh] + q t + j
    const std::int64_t CH = (OH + PH - 1) / PH, CW = (OW + PW - 1) / PW;  // outputs of the fullest phase
    const auto* first_h = h.first.data_ptr<std::int64_t>();
    const auto* first_w = w.first.data_ptr<std::int64_t>();
    std::vector<at::Tensor> outputs;
    outputs.reserve(static_cast<std::size_t>(PH * PW));
    for (std::int64_t rh = 0; rh < PH; ++rh)
        for (std::int64_t rw = 0; rw < PW; ++rw) {
            const std::int64_t ch = (OH - rh + PH - 1) / PH, cw = (OW - rw + PW - 1) / PW;
            const at::Tensor window = padded_src.narrow(2, first_h[rh] + h.pad_before, (ch - 1) * h.step + KH)
                                          .narrow(3, first_w[rw] + w.pad_before, (cw - 1) * w.step + KW);
            const at::Tensor y = at::conv2d(window, weights[rh][rw], {}, {h.step, w.step});
            outputs.push_back(at::constant_pad_nd(y, {0, CW - cw, 0, CH - ch}, 0.0));
        }
    // interleave: output (r + p t) of an axis is phase r's t-th
    return at::stack(outputs, 0)
        .view({PH, PW, N, CO, CH, CW})
        .permute({2, 3, 4, 0, 5, 1})
        .reshape({N, CO, CH * PH, CW * PW})
        .narrow(2, 0, OH)
        .narrow(3, 0, OW);
}

}  // namespace convcheck_libtorch::cc
