// The VNNI path of the quantized plan (quantized_vnni.hpp): the lifted geometry, the packing of weights and
// compensation, the src copy, and the rows handed to the AVX-512 kernels in parallel.
#include "quantized_vnni.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <tbb/blocked_range.h>

#include "convcheck/optimized/conv_plan.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized::detail {
namespace {

using i64 = std::int64_t;

i64 round_up(i64 v, i64 to) { return (v + to - 1) / to * to; }

bool cpu_has_avx512_vnni() {
    static const bool has = cpu_has_avx512() && __builtin_cpu_supports("avx512vnni");
    return has;
}

bool is_depthwise(const QuantizedGeometry& g) { return g.ICg == 1 && g.OCg == 1; }

}  // namespace

QuantizedGeometry::QuantizedGeometry(const QuantizedDescriptor& q) {
    const ConvDescriptor& d = q.conv;
    N = d.batch, C = d.in_channels, O = d.out_channels, G = d.groups, ICg = d.in_channels_per_group();
    OCg = d.out_channels_per_group();
    src_nxc = dst_nxc = d.data_format == DataFormat::nxc;
    for (int a = 0; a < d.rank; ++a) {
        const int at = 3 - d.rank + a;
        in[at] = d.input_size[a], out[at] = d.output_size(a), stride[at] = d.strides[a];
        kernel[at] = d.kernel_size[a], dilation[at] = d.dilations[a];
        lead[at] = std::max<i64>(d.pads_begin[a], 0);
        crop[at] = std::max<i64>(-d.pads_begin[a], 0);
        padded[at] = lead[at] + d.input_size[a] + std::max<i64>(d.pads_end[a], 0);
    }
    for (int a = 0; a < 3; ++a) in_spatial *= in[a], out_spatial *= out[a], padded_spatial *= padded[a], taps *= kernel[a];
    for (i64 k0 = 0; k0 < kernel[0]; ++k0)
        for (i64 k1 = 0; k1 < kernel[1]; ++k1)
            for (i64 k2 = 0; k2 < kernel[2]; ++k2)
                tap_pixel.push_back(((k0 * dilation[0]) * padded[1] + k1 * dilation[1]) * padded[2] + k2 * dilation[2]);
}

std::string why_not_vnni(const QuantizedDescriptor& q) {
    if (q.src == IntegerType::s32) return "an s32 src";
    if (q.weights != IntegerType::s8) return "u8 weights (VPDPBUSD multiplies u8 by s8)";
    if (q.weights_zero_point != 0 || q.per_channel_weights_zero_points) return "a weights zero point";
    if (q.s32_zero_points) return "a zero point outside its tensor's type (the byte paths fill the padding with it)";
    if (q.per_channel_src_zero_points || q.per_channel_dst_zero_points)
        return "per-channel zero points (the int16 path subtracts each input channel's)";
    if (!cpu_has_avx512_vnni())
        return cpu_has_avx512() || !__builtin_cpu_supports("avx512vnni") ? "needs AVX-512 VNNI, which this CPU lacks"
                                                                          : "needs AVX-512, switched off by CONVCHECK_NO_AVX512=1";
    return "";
}

VnniPath::VnniPath(const QuantizedDescriptor& q, const QuantizedGeometry& g, const std::vector<std::int16_t>& weights,
                   const std::vector<std::int32_t>& bias)
    : q_(q), g_(g), depthwise_(is_depthwise(g)), shift_(q.src == IntegerType::s8 ? 128 : 0) {
    // the value every padding tap reads: the src zero point, moved to u8 like the src
    const i64 padding = i64{q.src_zero_point} + shift_;
    const auto wrapped = [](i64 v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); };  // mod 2^32
    if (depthwise_) {
        pack_depthwise(weights, bias);
        return;
    }
    // AMX where a group's channels rounded up to 64 are at most twice those rounded up to 4
    amx_ = amx_usable() && round_up(g.ICg, 64) <= 2 * round_up(g.ICg, 4);
    group_pitch_ = round_up(g.ICg, amx_ ? 64 : 4), pitch_ = g.G * group_pitch_, blocks_ = (g.OCg + 15) / 16;
    // Row runs: one group whose channels are not a multiple of 4 (conv1's 3), taps adjacent along the row: the copy
    // keeps the channels as they are, so that a kernel row's taps x channels are one run of bytes, summed in
    // ceil(kw * I / 4) quads instead of kw * ceil(I / 4) (the bytes past the run meet zero weights)
    const i64 kw = g.kernel[2];
    row_runs_ = !amx_ && g.G == 1 && g.ICg % 4 != 0 && g.dilation[2] == 1 && round_up(kw * g.ICg, 4) < kw * group_pitch_;
    if (row_runs_) group_pitch_ = g.ICg, pitch_ = g.C;
    steps_ = row_runs_ ? g.taps / kw : g.taps, quads_ = row_runs_ ? round_up(kw * g.ICg, 4) / 4 : group_pitch_ / 4;
    const i64 quads = quads_, steps = steps_;
    packed_.assign(static_cast<std::size_t>(g.G * blocks_ * steps * quads * 64), 0);
    compensation_.assign(static_cast<std::size_t>(g.G * blocks_ * 16), 0);
    for (i64 gr = 0; gr < g.G; ++gr)
        for (i64 o = 0; o < g.OCg; ++o) {
            const i64 oc = gr * g.OCg + o, block = gr * blocks_ + o / 16, lane = o % 16;
            i64 sum = 0;
            for (i64 t = 0; t < g.taps; ++t)
                for (i64 i = 0; i < g.ICg; ++i) {
                    const std::int16_t w = weights[static_cast<std::size_t>((oc * g.taps + t) * g.ICg + i)];
                    // the step (tap, or kernel row) and the byte of its run
                    const i64 step = row_runs_ ? t / kw : t, b = row_runs_ ? (t % kw) * g.ICg + i : i;
                    packed_[static_cast<std::size_t>(((block * steps + step) * quads + b / 4) * 64 + lane * 4 + b % 4)] =
                        static_cast<std::int8_t>(w);
                    sum += w;
                }
            compensation_[static_cast<std::size_t>(block * 16 + lane)] = wrapped(bias[static_cast<std::size_t>(oc)] - padding * sum);
        }
    if (amx_)
        for (i64 block = 0; block < g.G * blocks_; ++block)
            for (i64 row = 0; row < 16; ++row)
                compensation_rows_.insert(compensation_rows_.end(), compensation_.begin() + block * 16,
                                          compensation_.begin() + block * 16 + 16);
}

// The image's src, moved to u8, in a channels-last copy padded with the moved zero point. Channels last, each
// pixel's channels (or each group's) are one run of bytes, copied as such.
void VnniPath::copy_image(const void* src, i64 n, std::uint8_t* copy) const {
    const auto fill = static_cast<std::uint8_t>(i64{q_.src_zero_point} + shift_);
    if (pitch_ != g_.C) {  // channels between the groups' runs: every byte
        std::memset(copy, fill, static_cast<std::size_t>(g_.padded_spatial * pitch_));
    } else if (g_.padded_spatial != g_.in_spatial) {  // the padding only: rows outside the input, then each row's ends
        for (i64 r0 = 0; r0 < g_.padded[0]; ++r0)
            for (i64 r1 = 0; r1 < g_.padded[1]; ++r1) {
                std::uint8_t* row = copy + (r0 * g_.padded[1] + r1) * g_.padded[2] * pitch_;
                const bool inside = r0 >= g_.lead[0] && r0 < g_.lead[0] + g_.in[0] && r1 >= g_.lead[1] && r1 < g_.lead[1] + g_.in[1];
                if (!inside) {
                    std::memset(row, fill, static_cast<std::size_t>(g_.padded[2] * pitch_));
                    continue;
                }
                const i64 after = g_.lead[2] + g_.in[2];
                std::memset(row, fill, static_cast<std::size_t>(g_.lead[2] * pitch_));
                std::memset(row + after * pitch_, fill, static_cast<std::size_t>((g_.padded[2] - after) * pitch_));
            }
    }
    const auto* bytes = static_cast<const std::uint8_t*>(src);
    const bool runs = g_.src_nxc && group_pitch_ == g_.ICg;  // a pixel's channels: one run
    const auto put = [&](std::uint8_t* to, const std::uint8_t* from, i64 count) {
        if (shift_ == 0) std::memcpy(to, from, static_cast<std::size_t>(count));
        else
            for (i64 i = 0; i < count; ++i) to[i] = static_cast<std::uint8_t>(from[i] ^ shift_);
    };
    parallel_for_joined(tbb::blocked_range<i64>(0, g_.in[0] * g_.in[1]), [&](const tbb::blocked_range<i64>& rows) {
        for (i64 row = rows.begin(); row < rows.end(); ++row) {
            const i64 x0 = row / g_.in[1], x1 = row % g_.in[1], x = row * g_.in[2];
            std::uint8_t* to = copy + g_.copy_pixel(x0, x1, 0) * pitch_;
            if (runs && pitch_ == g_.C) {  // the row's pixels are one run
                put(to, bytes + (n * g_.in_spatial + x) * g_.C, g_.in[2] * g_.C);
                continue;
            }
            for (i64 x2 = 0; x2 < g_.in[2]; ++x2, to += pitch_) {
                if (runs) {
                    put(to, bytes + (n * g_.in_spatial + x + x2) * g_.C, g_.C);
                } else if (g_.src_nxc) {
                    for (i64 gr = 0; gr < g_.G; ++gr)
                        put(to + gr * group_pitch_, bytes + (n * g_.in_spatial + x + x2) * g_.C + gr * g_.ICg, g_.ICg);
                } else {
                    for (i64 gr = 0, c = 0; gr < g_.G; ++gr)
                        for (i64 i = 0; i < g_.ICg; ++i, ++c)
                            to[gr * group_pitch_ + i] =
                                static_cast<std::uint8_t>(bytes[(n * g_.C + c) * g_.in_spatial + x + x2] ^ shift_);
                }
            }
        }
    });
}

// The src read where it lies: a u8 channels-last src without padding, whose pixels are the copy's.
bool VnniPath::direct() const {
    return shift_ == 0 && g_.src_nxc && g_.padded_spatial == g_.in_spatial && pitch_ == g_.C && !row_runs_;
}

void VnniPath::run(const void* src, void* dst, const Requantizer& requantize) const {
    if (depthwise_) return depthwise_run(src, dst, requantize);
    const bool in_place = direct();
    // uninitialised: copy_image writes every byte a tap can read
    // row runs read up to 3 bytes past the last window: zeros, times zero weights
    const i64 slack = row_runs_ ? 64 : 0;
    const Workspace<std::uint8_t> copy(in_place ? 0 : g_.padded_spatial * pitch_ + slack);
    if (slack) std::memset(copy.get() + g_.padded_spatial * pitch_, 0, static_cast<std::size_t>(slack));
    for (i64 n = 0; n < g_.N; ++n) {
        const std::uint8_t* image = static_cast<const std::uint8_t*>(src) + n * g_.in_spatial * g_.C;
        if (!in_place) copy_image(src, n, copy.get()), image = copy.get();
        dense_rows(image, n, dst, requantize);
    }
}

// The rule the kernels apply in registers (an f32 rule into a channels-last u8/s8 dst), or none: then they store
// the accumulators and store_row requantizes them.
std::optional<RowRequantization> VnniPath::fused_rule(const Requantizer& requantize) const {
    const bool f32_rule = requantize.rounding == QuantizedRounding::nearest_even_f32 ||
                          requantize.rounding == QuantizedRounding::nearest_even_f32_with_zero_point;
    if (!f32_rule || !g_.dst_nxc || q_.dst == IntegerType::s32) return std::nullopt;
    RowRequantization rule;
    rule.zero_point_first = requantize.rounding == QuantizedRounding::nearest_even_f32_with_zero_point;
    rule.to_u8 = q_.dst == IntegerType::u8;
    rule.dst_zero_point = requantize.dst_zero_point, rule.dst_min = requantize.dst_min, rule.dst_max = requantize.dst_max;
    return rule;
}

// Runs of output pixels in the copy's order. With unit strides in the plane, a plane's rows are one sequence of
// virtual pixels v = y1 * padded[2] + y2 whose windows are v pixels apart: the last padded[2] - out[2] of each row
// are no output (computed and dropped), and a run crosses rows. Otherwise a run is one output row.
void VnniPath::dense_rows(const std::uint8_t* copy, i64 n, void* dst, const Requantizer& requantize) const {
    const i64 chunks = (blocks_ + 3) / 4, quads = quads_, steps = steps_;
    const bool plane = g_.stride[1] == 1 && g_.stride[2] == 1;
    const i64 wv = plane ? g_.padded[2] : g_.out[2];                       // virtual pixels per row
    const i64 span = plane ? (g_.out[1] - 1) * wv + g_.out[2] : g_.out[2];  // of a sequence
    const i64 sequences = g_.out[0] * (plane ? 1 : g_.out[1]);
    // runs of 64 to 1,024 pixels, a multiple of 32 (only a sequence's last run ends in a narrower tile), at least 8
    // per sequence where it is long enough, for the threads to share; measured on res2_3x3, res2_1x1_reduce and
    // res3_1x1_512 (AMX, 1 thread): 64-pixel runs 20-35 % slower than 1,024, 256 5-10 %
    const i64 run_length = std::min(span, std::clamp<i64>(round_up((span + 7) / 8, 32), 64, 1024));
    const i64 runs = (span + run_length - 1) / run_length;
    std::vector<i64> tap_offset;  // each step's first tap
    for (i64 step = 0; step < steps; ++step)
        tap_offset.push_back(g_.tap_pixel[static_cast<std::size_t>(step * g_.taps / steps)] * pitch_);
    const std::optional<RowRequantization> rule = amx_ ? std::nullopt : fused_rule(requantize);
    // consecutive items share a chunk's weights: item = ((group * chunks + chunk) * sequences + sequence) * runs + run
    parallel_for_joined(tbb::blocked_range<i64>(0, g_.G * chunks * sequences * runs), [&](const tbb::blocked_range<i64>& items) {
        const Workspace<std::int32_t> acc(rule ? 0 : run_length * 64);
        std::vector<std::uint8_t*> dst_of(static_cast<std::size_t>(rule ? run_length : 0));
        if (amx_) amx_begin();
        for (i64 item = items.begin(); item < items.end(); ++item) {
            const i64 run = item % runs, sequence = (item / runs) % sequences, chunk = (item / (runs * sequences)) % chunks;
            const i64 gr = item / (runs * sequences * chunks), block = gr * blocks_ + chunk * 4;
            const i64 y0 = plane ? sequence : sequence / g_.out[1], y1 = plane ? 0 : sequence % g_.out[1];
            const i64 v0 = run * run_length, count = std::min(run_length, span - v0);
            const int blocks = static_cast<int>(std::min<i64>(4, blocks_ - chunk * 4));
            const i64 pixel_step = g_.stride[2] * pitch_;
            const std::uint8_t* src = copy + g_.origin(y0, y1, 0) * pitch_ + v0 * pixel_step + gr * group_pitch_;
            const std::int8_t* weights = packed_.data() + block * steps * quads * 64;
            if (amx_) {
                AmxRow r;
                r.src = src, r.pixel_step = pixel_step, r.tap_offset = tap_offset.data();
                r.taps = steps, r.chunks = group_pitch_ / 64, r.weights = weights;
                r.block_stride = steps * quads * 64, r.compensation_rows = compensation_rows_.data() + block * 256;
                r.blocks = blocks, r.width = count, r.acc = acc.get();
                dense_row_amx(r);
            } else {
                DenseRow r;
                r.src = src, r.pixel_step = pixel_step, r.tap_offset = tap_offset.data();
                r.taps = steps, r.quads = quads, r.weights = weights;
                r.block_stride = steps * quads * 64, r.compensation = compensation_.data() + block * 16;
                r.blocks = blocks, r.width = count, r.acc = acc.get();
                if (rule) {
                    const i64 first = gr * g_.OCg + chunk * 64;
                    // each virtual pixel's first output, or none (row and y2 counted, not divided out per pixel)
                    i64 y2 = v0 % wv;
                    std::uint8_t* row_start = static_cast<std::uint8_t*>(dst) +
                                              (n * g_.out_spatial + (y0 * g_.out[1] + y1 + v0 / wv) * g_.out[2]) * g_.O + first;
                    for (i64 v = 0; v < count; ++v) {
                        dst_of[static_cast<std::size_t>(v)] = y2 < g_.out[2] ? row_start + y2 * g_.O : nullptr;
                        if (++y2 == wv) y2 = 0, row_start += g_.out[2] * g_.O;
                    }
                    r.rule = &*rule, r.multiplier = requantize.multiplier_f32.data() + first, r.dst_of = dst_of.data();
                    r.channels = std::min<i64>(blocks * 16, g_.OCg - chunk * 64);
                }
                dense_row_avx512_vnni(r);
                if (rule) continue;
            }
            const i64 first = chunk * 64, channels = std::min<i64>(blocks * 16, g_.OCg - first);
            for (i64 v = v0; v < v0 + count;) {  // the run's outputs, row by row
                const i64 row = v / wv, y2 = v % wv;
                if (y2 >= g_.out[2]) {
                    v = (row + 1) * wv;
                    continue;
                }
                const i64 width = std::min(g_.out[2] - y2, v0 + count - v);
                store_row(acc.get() + (v - v0) * blocks * 16, blocks * 16, n, ((y0 * g_.out[1]) + y1 + row) * g_.out[2] + y2,
                          width, gr * g_.OCg + first, channels, dst, requantize);
                v += width;
            }
        }
        if (amx_) amx_end();
    });
}

// acc[p][c] (c < channels) is output channel first_channel + c of output pixel y_row + p of image n.
void VnniPath::store_row(const std::int32_t* acc, i64 acc_pitch, i64 n, i64 y_row, i64 width, i64 first_channel,
                         i64 channels, void* dst, const Requantizer& requantize) const {
    if (const std::optional<RowRequantization> rule = fused_rule(requantize)) {
        auto* to = static_cast<std::uint8_t*>(dst) + (n * g_.out_spatial + y_row) * g_.O + first_channel;
        requantize_row_avx512(acc, acc_pitch, width, channels, requantize.multiplier_f32.data() + first_channel, *rule,
                              to, g_.O);
        return;
    }
    for (i64 p = 0; p < width; ++p)
        for (i64 c = 0; c < channels; ++c) {
            const i64 oc = first_channel + c, y = y_row + p;
            const i64 at = g_.dst_nxc ? (n * g_.out_spatial + y) * g_.O + oc : (n * g_.O + oc) * g_.out_spatial + y;
            const i64 v = requantize(acc[p * acc_pitch + c], oc);
            if (q_.dst == IntegerType::u8) static_cast<std::uint8_t*>(dst)[at] = static_cast<std::uint8_t>(v);
            else if (q_.dst == IntegerType::s8) static_cast<std::int8_t*>(dst)[at] = static_cast<std::int8_t>(v);
            else static_cast<std::int32_t*>(dst)[at] = static_cast<std::int32_t>(v);
        }
}

}  // namespace convcheck::optimized::detail
