// The VPDPBUSD tiles' steps in the padding skipped (quantized_vnni.hpp, StepClasses). The copy pads the src with the
// moved zero point zx', so a step (a tap, or a kernel row of taps with row runs) whose taps all land in the padding
// adds (zx' - zx') * w = 0 to the true sum; a border pixel's tile need not compute it. Pixels with the same steps
// make a class; a run's pixels are sorted by class (segment by segment), and each class goes through the
// kernel with its own steps and its own compensation:
//   acc = sum over the class's steps of x' * w + bias - zx' * (sum of the class's steps' weights).
// Any order of the pixels gives the same sums (each pixel's sum is exact modulo 2^32, and stored at its own place).
#include <algorithm>
#include <map>
#include <utility>

#include "quantized_vnni.hpp"

namespace convcheck::optimized::detail {
namespace {

using i64 = std::int64_t;

}  // namespace

StepClasses vnni_step_classes(const QuantizedGeometry& g, bool row_runs) {
    const i64 steps = row_runs ? g.taps / g.kernel[2] : g.taps;
    // along axis a, whether output index y's tap k reads the input: x = y * s - pb + k * d inside [0, in)
    const auto inside = [&](int a, i64 y, i64 k) {
        const i64 x = y * g.stride[a] + g.crop[a] - g.lead[a] + k * g.dilation[a];
        return x >= 0 && x < g.in[a];
    };
    StepClasses c;
    c.class_of.resize(static_cast<std::size_t>(g.out_spatial));
    std::map<std::vector<i64>, std::size_t> class_of_steps;
    std::vector<i64> mine;
    bool skips = false;
    for (i64 y0 = 0, p = 0; y0 < g.out[0]; ++y0)
        for (i64 y1 = 0; y1 < g.out[1]; ++y1)
            for (i64 y2 = 0; y2 < g.out[2]; ++y2, ++p) {
                mine.clear();
                for (i64 s = 0; s < steps; ++s) {
                    // the step's first tap; a kernel row of a row run reads the input where any of its taps does
                    const i64 t = row_runs ? s * g.kernel[2] : s;
                    const i64 k0 = t / (g.kernel[1] * g.kernel[2]), k1 = t / g.kernel[2] % g.kernel[1], k2 = t % g.kernel[2];
                    if (inside(0, y0, k0) && inside(1, y1, k1) && (row_runs || inside(2, y2, k2))) mine.push_back(s);
                }
                skips = skips || static_cast<i64>(mine.size()) < steps;
                const auto [at, added] = class_of_steps.try_emplace(mine, c.steps.size());
                if (added) c.steps.push_back(mine);
                if (c.steps.size() > 65536) return {};
                c.class_of[static_cast<std::size_t>(p)] = static_cast<std::uint16_t>(at->second);
            }
    if (!skips) return {};
    return c;
}

// Classes where the VPDPBUSD tiles requantize in registers (a fused rule: each pixel's outputs go to its own dst_of,
// in any order) and read windows through their offsets
void VnniPath::dense_classes(const std::vector<std::int16_t>& weights, const std::vector<std::int32_t>& bias) {
    if (amx_ || even_ || !rule_) return;
    classes_ = vnni_step_classes(g_, row_runs_);
    if (classes_.steps.empty()) return;
    // a u8 channels-last src, each group's channels a multiple of 4: read where it lies, each window's taps and
    // origin in its geometry (x = y * s - pb along each axis; a border window's origin may lie before the src)
    classes_in_place_ = shift_ == 0 && g_.src_nxc && pitch_ == g_.C && !row_runs_ && !phased_;
    if (classes_in_place_) window_offsets(g_.in);
    for (i64 p = 0; p < g_.out_spatial; ++p)
        if (p == 0 || classes_.class_of[static_cast<std::size_t>(p)] != classes_.class_of[static_cast<std::size_t>(p - 1)])
            class_segments_.push_back(p);
    class_segments_.push_back(g_.out_spatial);
    // each output channel's weights summed per step
    const i64 kw = g_.kernel[2];
    std::vector<i64> step_sum(static_cast<std::size_t>(g_.O * steps_), 0);
    for (i64 oc = 0; oc < g_.O; ++oc)
        for (i64 t = 0; t < g_.taps; ++t)
            for (i64 i = 0; i < g_.ICg; ++i)
                step_sum[static_cast<std::size_t>(oc * steps_ + (row_runs_ ? t / kw : t))] +=
                    weights[static_cast<std::size_t>((oc * g_.taps + t) * g_.ICg + i)];
    const i64 padding = i64{q_.src_zero_point} + shift_;
    for (const std::vector<i64>& steps : classes_.steps) {
        std::vector<std::int32_t> compensation(static_cast<std::size_t>(g_.G * blocks_ * 16), 0);
        for (i64 gr = 0; gr < g_.G; ++gr)
            for (i64 o = 0; o < g_.OCg; ++o) {
                const i64 oc = gr * g_.OCg + o;
                i64 sum = 0;
                for (const i64 s : steps) sum += step_sum[static_cast<std::size_t>(oc * steps_ + s)];
                compensation[static_cast<std::size_t>((gr * blocks_ + o / 16) * 16 + o % 16)] =
                    wrapped_s32(bias[static_cast<std::size_t>(oc)] - padding * sum);
            }
        class_compensation_.push_back(std::move(compensation));
    }
}

// The src pixel (in src pixels from the image's first, possibly negative) of the window origin of output (y0, 0, 0)
i64 VnniPath::src_origin(i64 y0) const {
    const auto x = [&](int a, i64 y) { return y * g_.stride[a] + g_.crop[a] - g_.lead[a]; };  // y * s - pb
    return (x(0, y0) * g_.in[1] + x(1, 0)) * g_.in[2] + x(2, 0);
}

// Pixels [v0, v0 + count) of the sequence whose first pixel is the image's sequence_first, in r (every field but the
// pixels', the steps' and the compensation's; pixel v0 + p's outputs at r.dst + p * r.dst_pitch), sorted by class into
// offsets (origin + each window's offset from the sequence's origin, in bytes from r.src) and pixel_dst (starts: each
// class's first) a segment of pixels of one class at a time (class_segments_), each class through the kernel
void VnniPath::classified_row(DenseRow r, i64 origin, i64 sequence_first, i64 v0, i64 count, i64 block,
                              std::vector<i64>& offsets, std::vector<std::uint8_t*>& pixel_dst, std::vector<i64>& starts) const {
    const std::uint16_t* class_of = classes_.class_of.data();
    const std::size_t classes = classes_.steps.size();
    const i64 begin = sequence_first + v0, end = begin + count;
    offsets.resize(static_cast<std::size_t>(count)), pixel_dst.resize(static_cast<std::size_t>(count));
    starts.assign(classes + 1, 0);
    // the segments that meet [begin, end): from the last that starts at begin or before (the list ends in out_spatial)
    const auto first = std::upper_bound(class_segments_.begin(), class_segments_.end() - 1, begin) - 1;
    const auto clipped = [&](auto s) { return std::pair{std::max(*s, begin), std::min(*(s + 1), end)}; };
    for (auto s = first; *s < end; ++s) {
        const auto [a, b] = clipped(s);
        starts[class_of[*s] + 1u] += b - a;
    }
    for (std::size_t c = 0; c < classes; ++c) starts[c + 1] += starts[c];
    for (auto s = first; *s < end; ++s) {  // starts[c]: class c's next free place, then its end
        const auto [a, b] = clipped(s);
        const i64 at = starts[class_of[*s]];
        for (i64 p = a; p < b; ++p) {
            offsets[static_cast<std::size_t>(at + p - a)] = origin + pixel_offset_[static_cast<std::size_t>(p - sequence_first)];
            pixel_dst[static_cast<std::size_t>(at + p - a)] = r.dst + (p - begin) * r.dst_pitch;
        }
        starts[class_of[*s]] += b - a;
    }
    for (std::size_t c = 0, from = 0; c < classes; from = static_cast<std::size_t>(starts[c]), ++c) {
        const i64 width = starts[c] - static_cast<i64>(from);
        if (width == 0) continue;
        r.pixel_offset = offsets.data() + from, r.dst_of = pixel_dst.data() + from, r.width = width;
        r.taps = static_cast<i64>(classes_.steps[c].size()), r.step_index = classes_.steps[c].data();
        r.compensation = class_compensation_[c].data() + block * 16;
        dense_row_avx512_vnni(r);
    }
}

}  // namespace convcheck::optimized::detail
