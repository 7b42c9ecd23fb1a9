// Blocks 1 and 2 of the torch CC layer per axis (cc_grid.hpp), with torch operations on int64 and double.
#include "cc_grid.hpp"

#include <ATen/ops/abs.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/ceil.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/div.h>
#include <ATen/ops/round.h>
#include <ATen/ops/where.h>

#include <algorithm>
#include <numeric>

namespace convcheck_libtorch::cc {

namespace {

constexpr double kTwoPow53 = 9007199254740992.0;

const at::TensorOptions kLong = at::TensorOptions().dtype(at::kLong);
const at::TensorOptions kDouble = at::TensorOptions().dtype(at::kDouble);

// The zeros the windows reach outside [0, in): before 0 and after in - 1.
void set_pads(AxisWindows& w, std::int64_t in, std::int64_t k) {
    if (w.first.numel() == 0) return;
    w.pad_before = std::max<std::int64_t>(0, -w.first.min().item<std::int64_t>());
    w.pad_after = std::max<std::int64_t>(0, w.first.max().item<std::int64_t>() + k - in);
}

}  // namespace

at::Tensor zero_padded(const at::Tensor& src, const AxisWindows& h, const AxisWindows& w) {
    if (h.pad_before == 0 && h.pad_after == 0 && w.pad_before == 0 && w.pad_after == 0) return src;
    return at::constant_pad_nd(src, {w.pad_before, w.pad_after, h.pad_before, h.pad_after}, 0.0);
}

bool exact_grid_fits(const CcDescriptor& d) {
    for (int a = 0; a < 2; ++a) {
        if (!d.scale[a].is_rational()) continue;
        const double p = static_cast<double>(d.scale[a].numerator), q = static_cast<double>(d.scale[a].denominator);
        const double bound = 8.0 * (static_cast<double>(d.output_size[a]) * q +
                                    static_cast<double>(d.input_size[a] + d.support[a]) * p);
        if (!(bound < kTwoPow53)) return false;
    }
    return true;
}

AxisWindows axis_windows(const CcDescriptor& d, int axis) {
    const std::int64_t in = d.input_size[axis], out = d.output_size[axis], k = d.support[axis];
    const at::Tensor n = at::arange(out, kLong);
    const at::Tensor j = at::arange(k, kLong);
    AxisWindows w;
    if (d.scale[axis].is_rational()) {
        const std::int64_t g = std::gcd(d.scale[axis].numerator, d.scale[axis].denominator);
        const std::int64_t p = d.scale[axis].numerator / g, q = d.scale[axis].denominator / g;
        w.period = p;
        w.step = q;
        // 2p g_n = 2nq + (in-1)p - (out-1)q, exactly
        const at::Tensor twice_p_g = n * (2 * q) + ((in - 1) * p - (out - 1) * q);
        // m_0 = ceil(g - k/2) = ceil((2p g - kp) / 2p) = -floor((kp - 2p g) / 2p)
        w.first = -at::div(k * p - twice_p_g, 2 * p, "floor");
        const at::Tensor m = w.first.unsqueeze(1) + j.unsqueeze(0);
        // D = (2p g - 2p m) / 2p: both integers below 2^53 (exact_grid_fits), one correctly rounded division
        w.distance = (twice_p_g.unsqueeze(1) - m * (2 * p)).to(at::kDouble) / static_cast<double>(2 * p);
    } else {
        const double s = d.scale[axis].value;
        const at::Tensor grid = at::arange(out, kDouble).div(s).add(0.5 * static_cast<double>(in - 1)).sub(
            static_cast<double>(out - 1) / (2.0 * s));
        // cc_ceil(g - k/2): within 1e-9 max(1, |x|) of an integer, that integer; else the ceiling
        const at::Tensor x = grid - 0.5 * static_cast<double>(k);
        const at::Tensor nearest = at::round(x);
        const at::Tensor snap = (x - nearest).abs() <= at::clamp_min(x.abs(), 1.0) * convcheck::kCcRealTolerance;
        w.first = at::where(snap, nearest, at::ceil(x)).to(at::kLong);
        const at::Tensor m = w.first.unsqueeze(1) + j.unsqueeze(0);
        w.distance = grid.unsqueeze(1) - m.to(at::kDouble);
    }
    set_pads(w, in, k);
    return w;
}

}  // namespace convcheck_libtorch::cc
