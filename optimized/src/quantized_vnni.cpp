// The VNNI path of the quantized plan (quantized_vnni.hpp): the lifted geometry, the packing of weights and
// compensation, the src copy, and the rows handed to the AVX-512 kernels in parallel.
#include "quantized_vnni.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <tbb/blocked_range.h>

#include "convcheck/optimized/conv_plan.hpp"
#include "greedy_schedule.hpp"
#include "parallel_join.hpp"
#include "rows_on_demand.hpp"

namespace convcheck::optimized::detail {
namespace {

using i64 = std::int64_t;

i64 round_up(i64 v, i64 to) { return (v + to - 1) / to * to; }

// A run's cost beyond its pixels, in pixels (vnni_run_length): measured on this path (AMX, 1 thread, batch 1, cpu
// clock, runs of 1,024, 64 and 32 pixels; ms): res2_3x3 0.076-0.077, 0.086-0.087, 0.089-0.092; res2_1x1_reduce
// 0.041-0.043, 0.052-0.053, 0.056-0.057; res3_3x3 0.065-0.067, 0.077-0.080, 0.090-0.095; res4_3x3 0.074, 0.080-0.082,
// 0.085: 5 to 18 pixels a run, 12 in the middle
constexpr i64 kRunOverhead = 12;

// AMX: pixels computed, then requantized, at a time: the kernel's pair of 16-pixel tiles. Measured (1 thread, ms)
// against pieces of 64, 128 and whole runs (up to 1,024): res4_1x1_1024 0.057 against 0.074, 0.071, 0.073;
// res2_1x1_256 0.121 against 0.119, 0.149, 0.152 (the accumulators stay in L1, and one piece's requantization runs
// beside the next one's tiles)
constexpr i64 kAmxPiece = 32;
// The copies of the images run together (VnniPath::run): as many images as fit in this many bytes per thread (about
// half an L2: the copies are read back while they are there), at least one.
constexpr i64 kImagesCopyBytes = i64{512} << 10;
// dense_rows: ranges of items per thread, at least (the grain of its parallel loop)
constexpr i64 kRangesPerThread = 8;

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
    for (i64 t = 0; t < taps; ++t) tap_pixel.push_back(tap_pixel_in(t, padded));
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
                   const std::vector<std::int32_t>& bias, const Requantizer& requantize, int threads)
    : q_(q), g_(g), requantize_(requantize), depthwise_(is_depthwise(g)), shift_(q.src == IntegerType::s8 ? 128 : 0) {
    rule_ = fused_rule();
    // the value every padding tap reads: the src zero point, moved to u8 like the src
    const i64 padding = i64{q.src_zero_point} + shift_;
    if (depthwise_) {
        pack_depthwise(weights, bias);
        prepare_depthwise(threads);
        return;
    }
    // AMX where a group has 16 to 64 channels (K: the channels rounded up to 4), or more and its channels rounded up
    // to 64 are at most twice those rounded up to 4. A TDPBUSD takes as long for any K, 16 pixels x 16 output
    // channels; VPDPBUSD's 2 per cycle take K / 2 cycles for the same: AMX pays from K = 16 (pw16_96_112, 1 thread:
    // 0.219 ms on VPDPBUSD, 0.160 on AMX with K = 16)
    amx_ = amx_usable() && g.ICg >= 16 && (g.ICg <= 64 || round_up(g.ICg, 64) <= 2 * round_up(g.ICg, 4));
    group_pitch_ = round_up(g.ICg, amx_ && g.ICg > 64 ? 64 : 4), pitch_ = g.G * group_pitch_, blocks_ = (g.OCg + 15) / 16;
    // One group of more than 64 channels, not a multiple of 64 (pw144_24_56): the copy keeps a pixel's channels
    // rounded up to 4 only, and the last K chunk's A tile reads on into the next pixel's bytes, which meet the zero
    // weights past the channels (the weights keep K rounded up to 64). A u8 src is then read in place, with no copy:
    // padding each pixel's 144 bytes to 192 took 38 % of pw144_24_56's time (batch 8, 1 thread)
    const i64 k_pitch = group_pitch_;
    if (amx_ && g.G == 1 && g.ICg > 64) group_pitch_ = round_up(g.ICg, 4), pitch_ = group_pitch_;
    k_overrun_ = k_pitch - group_pitch_;
    // Row runs: one group whose channels are not a multiple of 4 (conv1's 3), taps adjacent along the row: the copy
    // keeps the channels as they are, so that a kernel row's taps x channels are one run of bytes, summed in
    // ceil(kw * I / 4) quads instead of kw * ceil(I / 4) (the bytes past the run meet zero weights)
    const i64 kw = g.kernel[2];
    row_runs_ = !amx_ && g.G == 1 && g.ICg % 4 != 0 && g.dilation[2] == 1 && round_up(kw * g.ICg, 4) < kw * group_pitch_;
    if (row_runs_) group_pitch_ = g.ICg, pitch_ = g.C;
    // AMX tiles read 16 windows a fixed step apart; with a stride in the plane, each phase (r1 % s1, r2 % s2) of the
    // padded copy is a plane of its own, where a strided layer's outputs are unit-stride virtual pixels again
    phased_ = amx_ && !row_runs_ && (g.stride[1] > 1 || g.stride[2] > 1);
    phase_extent_[0] = g.padded[0];
    for (int a = 1; a < 3; ++a) phase_extent_[a] = phased_ ? (g.padded[a] + g.stride[a] - 1) / g.stride[a] : g.padded[a];
    // the phases a tap reads (the others are not copied)
    phase_read_.assign(static_cast<std::size_t>(g.stride[1] * g.stride[2]), !phased_);
    for (i64 k1 = 0; phased_ && k1 < g.kernel[1]; ++k1)
        for (i64 k2 = 0; k2 < g.kernel[2]; ++k2)
            phase_read_[static_cast<std::size_t>(((g.crop[1] + k1 * g.dilation[1]) % g.stride[1]) * g.stride[2] +
                                                 (g.crop[2] + k2 * g.dilation[2]) % g.stride[2])] = 1;
    copy_spatial_ = phased_ ? g.padded[0] * g.stride[1] * g.stride[2] * phase_extent_[1] * phase_extent_[2] : g.padded_spatial;
    steps_ = row_runs_ ? g.taps / kw : g.taps, quads_ = row_runs_ ? round_up(kw * g.ICg, 4) / 4 : k_pitch / 4;
    // AMX on row runs (conv1's 7 taps x 3 channels: 21 bytes) where a kernel row's run fits one A tile row: K is the
    // run's quads (24 bytes), one TDPBUSD per kernel row, 16 pixels a stride apart; the same packing
    if (row_runs_ && amx_usable() && kw * g.ICg <= 64) amx_ = true;
    amx_k_bytes_ = std::min<i64>(64, quads_ * 4);
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
            compensation_[static_cast<std::size_t>(block * 16 + lane)] = wrapped_s32(bias[static_cast<std::size_t>(oc)] - padding * sum);
        }
    if (amx_)
        for (i64 block = 0; block < g.G * blocks_; ++block)
            for (i64 row = 0; row < 16; ++row)
                compensation_rows_.insert(compensation_rows_.end(), compensation_.begin() + block * 16,
                                          compensation_.begin() + block * 16 + 16);
    dense_offsets();
    dense_classes(weights, bias);
}

// The window offsets dense_rows' kernels read (tap_offset_, pixel_offset_, even_: quantized_vnni.hpp)
void VnniPath::dense_offsets() {
    if (phased_) {  // each tap's pixel from the plane's origin (y1 = y2 = 0) of slice y0 * s0, in its phase
        for (i64 k0 = 0; k0 < g_.kernel[0]; ++k0)
            for (i64 k1 = 0; k1 < g_.kernel[1]; ++k1)
                for (i64 k2 = 0; k2 < g_.kernel[2]; ++k2)
                    tap_offset_.push_back(phase_pixel(g_.crop[0] + k0 * g_.dilation[0], g_.crop[1] + k1 * g_.dilation[1],
                                                      g_.crop[2] + k2 * g_.dilation[2]) * pitch_);
    }
    // VPDPBUSD tiles: the windows of a plane's outputs evenly spaced (the next row's first a step after this row's
    // last: a 1x1 layer without padding or stride), or each pixel's window origin from the plane's (y1 = y2 = 0), in
    // bytes, for the plane's sequence of out[1] x out[2] pixels (dense_rows)
    if (!amx_) {
        even_ = g_.out[1] == 1 || g_.stride[1] * g_.padded[2] == g_.out[2] * g_.stride[2];
        pixel_offset_.resize(static_cast<std::size_t>(even_ ? 0 : g_.out[1] * g_.out[2]));
    }
    if (!phased_) window_offsets(g_.padded);
}

// Each step's first tap in bytes from a window's origin (tap_offset_), and each pixel's window origin from its
// plane's (pixel_offset_, where it is kept), in a plane of extent[1] x extent[2] pixels: the copy's (padded) or, where
// the src is read in place, the src's
void VnniPath::window_offsets(const std::int64_t (&extent)[3]) {
    tap_offset_.clear();
    for (i64 step = 0; step < steps_; ++step) tap_offset_.push_back(g_.tap_pixel_in(step * g_.taps / steps_, extent) * pitch_);
    const i64 wv = g_.out[2];
    for (i64 v = 0; v < static_cast<i64>(pixel_offset_.size()); ++v)
        pixel_offset_[static_cast<std::size_t>(v)] = ((v / wv) * g_.stride[1] * extent[2] + (v % wv) * g_.stride[2]) * pitch_;
}

// The copy's pixel of padded pixel (r0, r1, r2) when phased: phase (r1 % s1, r2 % s2) of slice r0 is a plane of
// phase_extent_[1] x phase_extent_[2] pixels, holding padded pixels r1 = s1 * i + (r1 % s1), r2 likewise.
i64 VnniPath::phase_pixel(i64 r0, i64 r1, i64 r2) const {
    const i64 s1 = g_.stride[1], s2 = g_.stride[2];
    return ((r0 * s1 * s2 + (r1 % s1) * s2 + r2 % s2) * phase_extent_[1] + r1 / s1) * phase_extent_[2] + r2 / s2;
}

// Row r (r0 * padded[1] + r1, or phased: copy_phase_row's) of the image's copy: the src moved to u8, channels
// last, padded with the moved zero point. Channels last, each pixel's channels (or each group's) are one run of
// bytes, copied as such. Each row is written once, by a loop over the rows or by the item that reads it first
// (VnniPath::run).
void VnniPath::copy_row(const void* src, i64 n, i64 r, std::uint8_t* copy) const {
    if (phased_) return copy_phase_row(src, n, r, copy);
    const auto fill = static_cast<std::uint8_t>(i64{q_.src_zero_point} + shift_);
    std::uint8_t* row = copy + r * g_.padded[2] * pitch_;
    const i64 x0 = r / g_.padded[1] - g_.lead[0], x1 = r % g_.padded[1] - g_.lead[1];
    if (x0 < 0 || x0 >= g_.in[0] || x1 < 0 || x1 >= g_.in[1]) {  // a row outside the input
        std::memset(row, fill, static_cast<std::size_t>(g_.padded[2] * pitch_));
        return;
    }
    // channels between the groups' runs, channels first: every byte (channels last: copy_groups_avx512 writes them);
    // else the padding only, the row's ends
    const bool groups_padded = pitch_ != g_.C && g_.src_nxc;
    const i64 after = g_.lead[2] + g_.in[2];
    if (pitch_ != g_.C && !groups_padded) {
        std::memset(row, fill, static_cast<std::size_t>(g_.padded[2] * pitch_));
    } else {
        std::memset(row, fill, static_cast<std::size_t>(g_.lead[2] * pitch_));
        std::memset(row + after * pitch_, fill, static_cast<std::size_t>((g_.padded[2] - after) * pitch_));
    }
    const auto* bytes = static_cast<const std::uint8_t*>(src);
    const bool runs = g_.src_nxc && group_pitch_ == g_.ICg;  // a pixel's channels: one run
    const auto put = [&](std::uint8_t* to, const std::uint8_t* from, i64 count) {
        if (shift_ == 0) std::memcpy(to, from, static_cast<std::size_t>(count));
        else
            for (i64 i = 0; i < count; ++i) to[i] = static_cast<std::uint8_t>(from[i] ^ shift_);
    };
    const i64 x = (x0 * g_.in[1] + x1) * g_.in[2];  // the input row's first pixel
    std::uint8_t* to = row + g_.lead[2] * pitch_;
    if (groups_padded) {  // each pixel's groups, vector by vector, the bytes past each run included
        copy_groups_avx512(bytes + (n * g_.in_spatial + x) * g_.C, g_.C, to, pitch_, g_.in[2], g_.G, g_.ICg,
                           group_pitch_, shift_);
        return;
    }
    if (runs && pitch_ == g_.C) {  // the row's pixels are one run
        put(to, bytes + (n * g_.in_spatial + x) * g_.C, g_.in[2] * g_.C);
        return;
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
                    to[gr * group_pitch_ + i] = static_cast<std::uint8_t>(bytes[(n * g_.C + c) * g_.in_spatial + x + x2] ^ shift_);
        }
    }
}

// Row `item` = (padded slice r0, phase, phase row i1) of the phased copy (phase_pixel), if a tap reads its phase:
// the padding, and the input pixels of that phase (every s2-th of an input row), each pixel's channels (or each
// group's) one run.
void VnniPath::copy_phase_row(const void* src, i64 n, i64 item, std::uint8_t* copy) const {
    const auto fill = static_cast<std::uint8_t>(i64{q_.src_zero_point} + shift_);
    const i64 s1 = g_.stride[1], s2 = g_.stride[2], pe1 = phase_extent_[1], pe2 = phase_extent_[2];
    const auto* bytes = static_cast<const std::uint8_t*>(src);
    const bool whole = g_.src_nxc && pitch_ == g_.C;  // a pixel's channels: one run
    const i64 i1 = item % pe1, phase = (item / pe1) % (s1 * s2), r0 = item / (pe1 * s1 * s2);
    if (!phase_read_[static_cast<std::size_t>(phase)]) return;
    const i64 p1 = phase / s2, p2 = phase % s2, r1 = i1 * s1 + p1;
    const i64 x0 = r0 - g_.lead[0], x1 = r1 - g_.lead[1];
    std::uint8_t* row = copy + item * pe2 * pitch_;
    if (x0 < 0 || x0 >= g_.in[0] || x1 < 0 || x1 >= g_.in[1]) {
        std::memset(row, fill, static_cast<std::size_t>(pe2 * pitch_));
        return;
    }
    // phase pixels i2 in [first, last) hold input pixels x2 = i2 * s2 + p2 - lead[2]
    const i64 first = std::min(pe2, std::max<i64>(0, (g_.lead[2] - p2 + s2 - 1) / s2));
    const i64 last = std::max(first, std::min(pe2, (g_.lead[2] + g_.in[2] - p2 + s2 - 1) / s2));
    std::memset(row, fill, static_cast<std::size_t>(first * pitch_));
    std::memset(row + last * pitch_, fill, static_cast<std::size_t>((pe2 - last) * pitch_));
    const i64 x = (x0 * g_.in[1] + x1) * g_.in[2];  // the input row's first pixel
    if (whole && last > first) {  // the pixels of the phase: every s2-th of the input row
        const i64 x2 = first * s2 + p2 - g_.lead[2];
        copy_pixels_avx512(bytes + (n * g_.in_spatial + x + x2) * g_.C, s2 * g_.C, row + first * pitch_, pitch_,
                           last - first, g_.C, shift_);
        return;
    }
    for (i64 i2 = first; i2 < last && !whole; ++i2) {
        const i64 x2 = i2 * s2 + p2 - g_.lead[2];
        std::uint8_t* to = row + i2 * pitch_;
        for (i64 gr = 0; gr < g_.G; ++gr) {
            std::uint8_t* at = to + gr * group_pitch_;
            for (i64 i = 0; i < g_.ICg; ++i) {
                const i64 c = gr * g_.ICg + i;
                at[i] = static_cast<std::uint8_t>(
                    bytes[g_.src_nxc ? (n * g_.in_spatial + x + x2) * g_.C + c : (n * g_.C + c) * g_.in_spatial + x + x2] ^ shift_);
            }
            std::memset(at + g_.ICg, fill, static_cast<std::size_t>(group_pitch_ - g_.ICg));
        }
    }
}

// The src read where it lies: a u8 channels-last src without padding, whose pixels are the copy's.
bool VnniPath::direct() const {
    return shift_ == 0 && g_.src_nxc && g_.padded_spatial == g_.in_spatial && pitch_ == g_.C && !row_runs_ && !phased_;
}

void VnniPath::run(const void* src, void* dst) const {
    if (depthwise_) return depthwise_run(src, dst);
    const bool in_place = direct() || classes_in_place_;
    // uninitialised: copy_row writes every byte a tap of an output can read (a phased copy leaves the phases no tap
    // reads; an AMX virtual pixel past a row's end may read them, and its output is dropped)
    // row runs read up to 3 bytes past the last window: zeros, times zero weights
    // so does the last K chunk of a pixel of more than 64 channels (k_overrun_; read in place: dense_rows)
    const i64 slack = row_runs_ || (k_overrun_ > 0 && !in_place) ? 64 : 0;
    const i64 image_bytes = in_place ? g_.in_spatial * g_.C : copy_spatial_ * pitch_ + slack;
    // Rows copied on demand (RowsOnDemand: each item writes the rows its windows read that no other item has
    // written, in the loop of the rows) where each row is read by the items of one group's one chunk of 64 output
    // channels, at more than one thread: the thread that copies a row then reads it next, from its own cache.
    // Elsewhere the copies first, in a loop over their rows of its own. Measured (2 threads, ms, the minimum of 6
    // alternating runs, batch 1 and 8): pw144_24_56, while it was copied (before k_overrun_), 0.037 and 0.314 with
    // the copy first, 0.025 and 0.211 on demand;
    // res2_3x3 batch 1 0.046 against 0.042; on demand wherever the copy is made, rows read by several chunks' items
    // were slower (quiet machine, 4 runs: res4_3x3 batch 8 0.304 against 0.347, res3_downsample batch 1 0.068
    // against 0.076, res4_3x3s2 batch 1 0.063 against 0.072) while a row's chunks were items far apart, run by
    // different threads. With the chunks innermost (dense_rows, chunk_inner), a row's readers are neighbours, and on
    // demand pays where the copies go one image at a time and an image has 64 output pixels per thread or more (2
    // threads, quiet: SCHED_FIFO, ms, 3 alternating runs): res3_3x3s2 batch 1 0.071-0.072 -> 0.052-0.053,
    // res4_3x3s2 0.063-0.065 -> 0.050-0.054, res3_3x3 0.045-0.048 -> 0.040-0.041, res4_3x3 0.043-0.046 ->
    // 0.037-0.042, res3_downsample 0.060-0.066 -> 0.051-0.055 and batch 8 (one image at a time) 0.559-0.624 ->
    // 0.449-0.493. Not with fewer pixels (res5_3x3s2 batch 1, 49: 0.055-0.056 -> 0.061-0.062, each item reads the
    // whole copy, and one thread copies it while the other waits) nor with several images at a time (res3_3x3s2
    // batch 8, 2 images: 0.347-0.365 -> 0.376-0.389)
    const i64 threads = std::max(1, tbb::this_task_arena::max_concurrency());
    // images together, as many as kImagesCopyBytes of copies hold (all where src is read in place), whose items then
    // are the images' (each output is still one item's)
    const i64 images = in_place ? g_.N : std::clamp<i64>(threads * kImagesCopyBytes / image_bytes, 1, g_.N);
    const bool one_chunk = g_.G * ((blocks_ + 3) / 4) == 1;
    const bool on_demand = !in_place && threads > 1 &&
                           (one_chunk || (g_.G == 1 && images == 1 && g_.out_spatial >= 64 * threads));
    const Workspace<std::uint8_t> copy(in_place ? 0 : images * image_bytes);
    for (i64 i = 0; i < (slack ? images : 0); ++i)
        std::memset(copy.get() + i * image_bytes + copy_spatial_ * pitch_, 0, static_cast<std::size_t>(slack));
    RowsOnDemand rows(on_demand ? images * copy_rows() : 0);
    for (i64 n0 = 0; n0 < g_.N; n0 += images) {
        DenseImages batch;
        batch.copy = in_place ? static_cast<const std::uint8_t*>(src) + n0 * image_bytes : copy.get();
        batch.image_bytes = image_bytes, batch.n0 = n0, batch.images = std::min(images, g_.N - n0);
        batch.src = src, batch.rows = on_demand ? &rows : nullptr, batch.copy_to = in_place ? nullptr : copy.get();
        if (!in_place && !on_demand)
            parallel_for_joined(tbb::blocked_range<i64>(0, batch.images * copy_rows()), [&](const tbb::blocked_range<i64>& r) {
                for (i64 row = r.begin(); row < r.end(); ++row) copy_batch_row(batch, row);
            });
        if (n0 > 0) rows.reset();
        dense_rows(batch, dst);
    }
}

// The copy's rows of pixels, per image: copy_row's units
i64 VnniPath::copy_rows() const { return copy_spatial_ / (phased_ ? phase_extent_[2] : g_.padded[2]); }

// Row `row` of the batch's copies (image row / copy_rows(), its row row % copy_rows())
void VnniPath::copy_batch_row(const DenseImages& batch, i64 row) const {
    const i64 image = row / copy_rows();
    copy_row(batch.src, batch.n0 + image, row % copy_rows(), batch.copy_to + image * batch.image_bytes);
}

// The rule the kernels apply in registers (an f32 rule into a channels-last u8/s8 dst), or none: then they store
// the accumulators and store_row requantizes them.
std::optional<RowRequantization> VnniPath::fused_rule() const {
    const Requantizer& requantize = requantize_;
    const bool f32_rule = requantize.rounding == QuantizedRounding::nearest_even_f32 ||
                          requantize.rounding == QuantizedRounding::nearest_even_f32_with_zero_point;
    if (!f32_rule || !g_.dst_nxc || q_.dst == IntegerType::s32) return std::nullopt;
    RowRequantization rule;
    rule.zero_point_first = requantize.rounding == QuantizedRounding::nearest_even_f32_with_zero_point;
    rule.to_u8 = q_.dst == IntegerType::u8;
    rule.dst_zero_point = requantize.dst_zero_point, rule.dst_min = requantize.dst_min, rule.dst_max = requantize.dst_max;
    rule.products_inside_s32 = std::all_of(requantize.multiplier_f32.begin(), requantize.multiplier_f32.end(),
                                           [](float m) { return m < 1.0f; });
    return rule;
}

i64 vnni_run_length(i64 span, i64 others, int threads) {
    const i64 base = std::min(span, std::clamp<i64>(round_up((span + 7) / 8, 32), 64, 1024));
    if (threads <= 1) return base;
    // whether runs of `length` give 4 items per thread within a greedy schedule's bound 1 + r t / n (r: the longest
    // run over the mean) of the 1.325 that 4 per thread at r = 1.3 give (196 pixels: not 4 runs of up to 64, r = 1.31)
    const auto enough = [&](i64 length) {
        const i64 runs = (span + length - 1) / length, items = others * runs;
        const double r = static_cast<double>(std::min(span, length)) * static_cast<double>(runs) / static_cast<double>(span);
        return items >= 4 * i64{threads} && 1.0 + r * threads / static_cast<double>(items) <= 1.0 + 1.3 / 4;
    };
    i64 shorter = std::min(span, i64{32});
    for (i64 length = round_up(base, 32); length >= 32; length -= 32)
        if (enough(length)) {
            shorter = std::min(span, length);
            break;
        }
    // The shorter runs only where their greedy schedule ends sooner at the latest (greedy_schedule.hpp), a run
    // costing its pixels and kRunOverhead more
    const auto finish = [&](i64 length) {
        const i64 runs = (span + length - 1) / length;
        return greedy_end_times_threads(others * (span + runs * kRunOverhead), std::min(span, length) + kRunOverhead, threads);
    };
    return finish(shorter) < finish(base) ? shorter : base;
}

// Runs of output pixels in the copy's order. VPDPBUSD tiles find each pixel's window through its own offset
// (DenseRow::pixel_offset), so a plane's output pixels are one sequence, v = y1 * out[2] + y2, whatever the strides,
// and a tile crosses rows: no pixel is computed in vain and few tiles are narrow (res5_3x3's 7 x 7 outputs: 8 tiles
// of 6 and one of 1, where virtual pixels 9 to a row took 10 and one). AMX tiles read 16 windows a fixed step
// apart: with unit strides in the plane, its rows are one sequence of virtual pixels v = y1 * padded[2] + y2 whose windows are v
// pixels apart, the last padded[2] - out[2] of each row no output (computed and dropped); otherwise a run is one
// output row.
void VnniPath::dense_rows(const DenseImages& batch, void* dst) const {
    const std::uint8_t* copy = batch.copy;
    const i64 image_bytes = batch.image_bytes, n0 = batch.n0, images = batch.images;
    const i64 chunks = (blocks_ + 3) / 4, quads = quads_, steps = steps_;
    // the end of src where it is read in place (else the copies' slack follows their pixels)
    const std::uint8_t* src_end = batch.copy_to ? nullptr : static_cast<const std::uint8_t*>(batch.src) + g_.N * image_bytes;
    const bool plane = !amx_ || phased_ || (g_.stride[1] == 1 && g_.stride[2] == 1);
    const bool offsets = !amx_;  // the VPDPBUSD tiles: sequences of real pixels (wv = out[2])
    const i64 wv = offsets || !plane ? g_.out[2] : phase_extent_[2];      // (virtual) pixels per row
    const i64 span = plane ? (g_.out[1] - 1) * wv + g_.out[2] : g_.out[2];  // of a sequence
    const i64 image_sequences = g_.out[0] * (plane ? 1 : g_.out[1]);
    // runs of 64 to 1,024 pixels, a multiple of 32 (only a sequence's last run ends in a narrower tile), at least 8
    // per sequence where it is long enough, for the threads to share; measured on res2_3x3, res2_1x1_reduce and
    // res3_1x1_512 (AMX, 1 thread): 64-pixel runs 20-35 % slower than 1,024, 256 5-10 %
    // (for more threads shorter where a greedy schedule then ends sooner: vnni_run_length)
    const int threads = std::max(1, tbb::this_task_arena::max_concurrency());
    const i64 run_length = vnni_run_length(span, images * g_.G * chunks * image_sequences, threads);
    const i64 runs = (span + run_length - 1) / run_length;
    const std::optional<RowRequantization> rule = amx_ ? std::nullopt : rule_;
    const std::vector<i64>& tap_offset = tap_offset_;
    const bool even = offsets && even_;  // (dense_offsets)
    const i64 even_step = g_.stride[2] * pitch_;
    // consecutive items share a chunk's weights and an image: item = (((image * G + group) * chunks + chunk) *
    // sequences + sequence) * runs + run, or with the image inside the chunk where a chunk's weights outweigh an
    // image's src (read by each chunk)
    // Rows copied on demand with several chunks (one group): the chunk innermost, item = ((image * sequences +
    // sequence) * runs + run) * chunks + chunk, so that the items that read a row are neighbours, most often run by
    // the thread that copied it (VnniPath::run)
    const bool chunk_inner = batch.rows != nullptr && chunks > 1;
    const bool chunk_outer = !chunk_inner && images > 1 && steps * quads * 64 * 4 > image_bytes;
    // The auto partitioner splits a range down to its grain: with a grain of 1, each item was a range of its own,
    // each paying TBB's task, the AMX tile configuration (amx_begin, 4 % of res3_downsample's samples at 1 thread)
    // and the body's set-up; ranges of at least n / (kRangesPerThread x threads) items, which still leave a thread
    // that ends early, or starts late, ranges to take
    const i64 items_count = images * g_.G * chunks * image_sequences * runs;
    const i64 grain = std::max<i64>(1, items_count / (kRangesPerThread * threads));
    parallel_for_joined(tbb::blocked_range<i64>(0, items_count, static_cast<std::size_t>(grain)), [&](const tbb::blocked_range<i64>& items) {
        // AMX: a piece's accumulators on the stack (8 KiB): a Workspace per range cost pw192_32_28 batch 1 at 2
        // threads ~10 % of its samples in malloc and free (auto partitioner: several ranges per thread and execute)
        alignas(64) std::int32_t amx_acc[kAmxPiece * 64];
        const Workspace<std::int32_t> workspace(rule || amx_ ? 0 : run_length * 64);
        std::int32_t* const acc = amx_ ? amx_acc : workspace.get();
        std::vector<i64> class_offsets, class_starts;  // classified_row's
        std::vector<std::uint8_t*> class_dst;
        if (amx_) amx_begin(amx_k_bytes_);
        for (i64 item = items.begin(); item < items.end(); ++item) {
            i64 run = 0, sequence = 0, image = 0, chunk = 0, gr = 0;
            if (chunk_inner) {
                const i64 outer = item / chunks;  // (image, sequence, run)
                chunk = item % chunks, run = outer % runs, sequence = (outer / runs) % image_sequences;
                image = outer / (runs * image_sequences);
            } else {
                run = item % runs, sequence = (item / runs) % image_sequences;
                const i64 rest = item / (runs * image_sequences);  // (image, group, chunk) or (group, chunk, image)
                image = chunk_outer ? rest % images : rest / (g_.G * chunks);
                chunk = (chunk_outer ? rest / images : rest) % chunks;
                gr = (chunk_outer ? rest / images / chunks : rest / chunks) % g_.G;
            }
            const i64 n = n0 + image, block = gr * blocks_ + chunk * 4;
            const i64 y0 = plane ? sequence : sequence / g_.out[1], y1 = plane ? 0 : sequence % g_.out[1];
            const i64 v0 = run * run_length, count = std::min(run_length, span - v0);
            const int blocks = static_cast<int>(std::min<i64>(4, blocks_ - chunk * 4));
            const i64 pixel_step = (phased_ ? 1 : g_.stride[2]) * pitch_;  // AMX
            // the copy's pixel of the sequence's first window origin; a src read in place with step classes: the
            // image's first pixel, each window found from it (src_origin, classified_row)
            const i64 plane_pixel = classes_in_place_ ? 0 : phased_ ? phase_pixel(y0 * g_.stride[0], 0, 0) : g_.origin(y0, y1, 0);
            const std::uint8_t* plane_src = copy + image * image_bytes + plane_pixel * pitch_ + gr * group_pitch_;
            const std::int8_t* weights = packed_.data() + block * steps * quads * 64;
            const i64 first = chunk * 64, channels = std::min<i64>(blocks * 16, g_.OCg - first);
            if (batch.rows) copy_read_rows(batch, image, plane_src - copy - image * image_bytes, v0, count);
            // the outputs of virtual pixels [a, b) of the sequence, whose accumulators start at acc_a (pixel a's)
            const auto store = [&](i64 a, i64 b, const std::int32_t* acc_a) {
                for (i64 v = a; v < b;) {  // row by row
                    const i64 row = v / wv, y2 = v % wv;
                    if (y2 >= g_.out[2]) {
                        v = (row + 1) * wv;
                        continue;
                    }
                    const i64 width = std::min(g_.out[2] - y2, b - v);
                    store_row(acc_a + (v - a) * blocks * 16, blocks * 16, n, ((y0 * g_.out[1]) + y1 + row) * g_.out[2] + y2,
                              width, gr * g_.OCg + first, channels, dst);
                    v += width;
                }
            };
            if (amx_) {
                // pieces of kAmxPiece pixels, each requantized while its accumulators are in L1
                for (i64 a = v0; a < v0 + count; a += kAmxPiece) {
                    AmxRow r;
                    r.src = plane_src + a * pixel_step, r.pixel_step = pixel_step, r.tap_offset = tap_offset.data();
                    r.taps = steps, r.chunks = row_runs_ ? 1 : (group_pitch_ + 63) / 64, r.k_bytes = amx_k_bytes_;
                    r.step_bytes = quads * 64, r.weights = weights;
                    r.block_stride = steps * quads * 64, r.compensation_rows = compensation_rows_.data() + block * 256;
                    r.blocks = blocks, r.width = std::min(kAmxPiece, v0 + count - a), r.acc = acc;
                    // src read in place, a pixel's last K chunk past its channels (k_overrun_): where a piece's
                    // windows would read past src's end, it reads a copy of src's bytes from its first on, with
                    // zeros after them (once an execute, for a 1x1 layer: its last piece)
                    std::vector<std::uint8_t> tail;
                    if (k_overrun_ > 0 && src_end != nullptr &&
                        r.src + tap_offset.back() + (r.width - 1) * pixel_step + r.chunks * 64 > src_end) {
                        tail.assign(static_cast<std::size_t>(src_end - r.src + 64), 0);
                        std::memcpy(tail.data(), r.src, static_cast<std::size_t>(src_end - r.src));
                        r.src = tail.data();
                    }
                    dense_row_amx(r);
                    store(a, a + r.width, acc);
                }
                continue;
            } else {
                DenseRow r;
                r.src = plane_src, r.tap_offset = tap_offset.data();
                if (even) r.src += v0 * even_step, r.pixel_step = even_step;
                else r.pixel_offset = pixel_offset_.data() + v0;
                r.taps = steps, r.quads = quads, r.weights = weights;
                r.block_stride = steps * quads * 64, r.compensation = compensation_.data() + block * 16;
                r.blocks = blocks, r.width = count, r.acc = acc;
                if (rule) {
                    // the sequence's pixels are the plane's outputs in order (wv = out[2]): pixel v0 + p's first
                    // output lies p pixels after v0's
                    const i64 first_oc = gr * g_.OCg + first;
                    r.dst = static_cast<std::uint8_t*>(dst) + (n * g_.out_spatial + y0 * g_.out[1] * g_.out[2] + v0) * g_.O + first_oc;
                    r.dst_pitch = g_.O;
                    r.rule = &*rule, r.multiplier = requantize_.multiplier_f32.data() + first_oc, r.channels = channels;
                }
                // the steps in the padding skipped, pixel by pixel (quantized_step_classes.cpp)
                if (rule && !classes_.steps.empty())
                    classified_row(r, classes_in_place_ ? src_origin(y0) * pitch_ : 0, y0 * g_.out[1] * g_.out[2], v0, count,
                                   block, class_offsets, class_dst, class_starts);
                else dense_row_avx512_vnni(r);
                if (!rule) store(v0, v0 + count, acc);
            }
        }
        if (amx_) amx_end();
    });
}

// The rows of image `image`'s copy that the windows of virtual pixels [v0, v0 + count) of a sequence read, the
// sequence's first window `plane` bytes into the copy, written (by this item, or by another that claimed them):
// for each step's tap, the rows from its first window's to its last's, where dense_rows' kernels find them (AMX:
// a pixel step apart; VPDPBUSD: even_step apart, or at pixel_offset); a row run reads a kernel row's pixels and
// up to 3 bytes more.
void VnniPath::copy_read_rows(const DenseImages& batch, i64 image, i64 plane, i64 v0, i64 count) const {
    const std::vector<i64>& pixel_offset = pixel_offset_;
    const i64 image_rows = copy_rows(), row_pixels = phased_ ? phase_extent_[2] : g_.padded[2];
    i64 first = 0, last = 0;  // pixels from the sequence's first window
    if (amx_ || pixel_offset.empty()) {
        const i64 step = amx_ && phased_ ? 1 : g_.stride[2];
        first = v0 * step, last = (v0 + count - 1) * step;
    } else {
        first = pixel_offset[static_cast<std::size_t>(v0)] / pitch_;
        last = pixel_offset[static_cast<std::size_t>(v0 + count - 1)] / pitch_;
    }
    const i64 extra = row_runs_ ? g_.kernel[2] : 0;
    const auto write = [&](i64 row) { copy_batch_row(batch, row); };
    for (const i64 offset : tap_offset_) {
        const i64 at = (plane + offset) / pitch_;  // the tap's pixel of the sequence's first window
        batch.rows->ensure(image * image_rows + (at + first) / row_pixels,
                           image * image_rows + std::min(image_rows - 1, (at + last + extra) / row_pixels), write);
    }
}

// acc[p][c] (c < channels) is output channel first_channel + c of output pixel y_row + p of image n.
void VnniPath::store_row(const std::int32_t* acc, i64 acc_pitch, i64 n, i64 y_row, i64 width, i64 first_channel,
                         i64 channels, void* dst) const {
    const Requantizer& requantize = requantize_;
    if (const std::optional<RowRequantization>& rule = rule_) {
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
