// The edges: dtype widening, layout reorders and zero padding in; one rounding and reorder out.
#include "conversions.hpp"

#include "convcheck/optimized/conv_plan.hpp"

#include <cstring>

#include "convcheck/core/dtype.hpp"

namespace convcheck::optimized::detail {
namespace {

float load_f32(const void* data, DataType dtype, i64 index) {
    switch (dtype) {
    case DataType::f32: return static_cast<const float*>(data)[index];
    case DataType::f16: return f16_to_f32(static_cast<const std::uint16_t*>(data)[index]);
    case DataType::bf16: return bf16_to_f32(static_cast<const std::uint16_t*>(data)[index]);
    case DataType::f8_e4m3:
    case DataType::f8_e5m2: return static_cast<float>(load_as_double(data, dtype, index));  // exact
    case DataType::f64: break;  // not reached: the plugin declines f64 (it computes in f32)
    }
    return 0.0f;
}

}  // namespace

void store_rounded(void* data, DataType dtype, i64 index, float value) {
    switch (dtype) {
    case DataType::f32: static_cast<float*>(data)[index] = value; return;
    case DataType::f16: static_cast<std::uint16_t*>(data)[index] = f32_to_f16(value); return;
    case DataType::bf16: static_cast<std::uint16_t*>(data)[index] = f32_to_bf16(value); return;
    case DataType::f8_e4m3:
    case DataType::f8_e5m2: store_from_double(data, dtype, index, value); return;  // the f32 value rounded once
    case DataType::f64: return;  // not reached: the plugin declines f64 (it computes in f32)
    }
}

Geometry make_geometry(const ConvDescriptor& d, i64 channel_multiple) {
    Geometry g;
    g.batch = d.batch;
    g.in_channels = d.in_channels;
    g.out_channels = d.out_channels;
    g.groups = d.groups;
    g.in_per_group = d.in_channels_per_group();
    g.out_per_group = d.out_channels_per_group();
    const int shift = 3 - d.rank;
    for (int a = 0; a < d.rank; ++a) {
        g.in[shift + a] = d.input_size[a];
        g.kernel[shift + a] = d.kernel_size[a];
        // A stride matters only between outputs and a dilation only between taps. With one output (one
        // tap) on an axis it is never used, and the spec lets it be as large as 2^63-1, so that steps
        // such as stride x channels would overflow (UBSan, the ABI fuzzer: fuzz/corpus/abi/crash-ff8d7199...).
        // Such an axis gets 1, which changes no index that is used. Otherwise stride and dilation are
        // below the padded input, whose size check_index_range bounds.
        g.stride[shift + a] = d.output_size(a) > 1 ? d.strides[a] : 1;
        g.dilation[shift + a] = d.kernel_size[a] > 1 ? d.dilations[a] : 1;
        g.pad_begin[shift + a] = d.pads_begin[a];
        g.pad_end[shift + a] = d.pads_end[a];
        g.out[shift + a] = d.output_size(a);
    }
    for (int a = 0; a < 3; ++a) g.padded[a] = g.in[a] + g.pad_begin[a] + g.pad_end[a];
    g.channel_stride = (d.in_channels + channel_multiple - 1) / channel_multiple * channel_multiple;
    return g;
}

std::vector<i64> tap_offsets(const Geometry& g) {
    std::vector<i64> offsets;
    for (i64 kd = 0; kd < g.kernel[0]; ++kd)
        for (i64 kh = 0; kh < g.kernel[1]; ++kh)
            for (i64 kw = 0; kw < g.kernel[2]; ++kw)
                offsets.push_back(((kd * g.dilation[0] * g.padded[1] + kh * g.dilation[1]) * g.padded[2] +
                                   kw * g.dilation[2]) * g.channel_stride);
    return offsets;
}

bool src_is_xp(const ConvDescriptor& d, const Geometry& g) {
    if (d.dtype != DataType::f32 || d.data_format != DataFormat::nxc || g.channel_stride != g.in_channels) return false;
    for (int a = 0; a < 3; ++a)
        if (g.pad_begin[a] != 0 || g.pad_end[a] != 0) return false;
    return true;
}

bool blocked_reads_src_in_place(const ConvDescriptor& d, const Geometry& g) {
    if (d.dtype != DataType::f32 || d.data_format != DataFormat::nxc || g.channel_stride != g.in_channels) return false;
    bool padded = false;
    for (int a = 0; a < 3; ++a) {
        if (g.pad_begin[a] < 0 || g.pad_end[a] < 0) return false;
        padded = padded || g.pad_begin[a] > 0 || g.pad_end[a] > 0;
    }
    return padded && g.taps() * g.in_per_group >= kBlockedGroupFrom;
}

i64 pack_src_row_count(const Geometry& g) { return g.batch * g.padded[0] * g.padded[1]; }

void pack_src_rows(const ConvDescriptor& d, const Geometry& g, const void* src, float* xp, i64 begin, i64 end) {
    const i64 C = g.in_channels, Cs = g.channel_stride;
    const i64 D = g.in[0], H = g.in[1], W = g.in[2];
    const bool f32 = d.dtype == DataType::f32;
    for (i64 row = begin; row < end; ++row) {
        const i64 ph = row % g.padded[1];
        const i64 pd = (row / g.padded[1]) % g.padded[0];
        const i64 n = row / (g.padded[1] * g.padded[0]);
        float* out = xp + row * g.padded[2] * Cs;
        const i64 id = pd - g.pad_begin[0], ih = ph - g.pad_begin[1];
        if (id < 0 || id >= D || ih < 0 || ih >= H) {
            std::memset(out, 0, sizeof(float) * g.padded[2] * Cs);
            continue;
        }
        // the padded pixels pw whose source iw = pw - pad_begin lies in [0, W); zeros around them
        i64 pw_begin = g.pad_begin[2] > 0 ? g.pad_begin[2] : 0;
        if (pw_begin > g.padded[2]) pw_begin = g.padded[2];  // a negative end pad cropped the data away
        i64 pw_end = W + g.pad_begin[2] < g.padded[2] ? W + g.pad_begin[2] : g.padded[2];
        if (pw_end < pw_begin) pw_end = pw_begin;  // a crop past the whole row: no data, all zeros
        std::memset(out, 0, sizeof(float) * pw_begin * Cs);
        std::memset(out + pw_end * Cs, 0, sizeof(float) * (g.padded[2] - pw_end) * Cs);
        const i64 first_iw = pw_begin - g.pad_begin[2], pixels = pw_end - pw_begin;
        float* at_out = out + pw_begin * Cs;
        if (d.data_format == DataFormat::ncx) {
            for (i64 i = 0; i < pixels; ++i)
                for (i64 c = C; c < Cs; ++c) at_out[i * Cs + c] = 0.0f;
        } else {
            const i64 at = (((n * D + id) * H + ih) * W + first_iw) * C;
            if (f32 && Cs == C) {
                std::memcpy(at_out, static_cast<const float*>(src) + at, sizeof(float) * pixels * C);
                continue;
            }
            for (i64 i = 0; i < pixels; ++i) {
                float* px = at_out + i * Cs;
                if (f32)
                    std::memcpy(px, static_cast<const float*>(src) + at + i * C, sizeof(float) * C);
                else
                    for (i64 c = 0; c < C; ++c) px[c] = load_f32(src, d.dtype, at + i * C + c);
                for (i64 c = C; c < Cs; ++c) px[c] = 0.0f;
            }
        }
        // NCX: only the zeros here (pads and channels C..Cs); pack_src_ncx_blocks moves the data
    }
}

i64 pack_src_ncx_block_count(const Geometry& g) { return g.batch * ((g.in_channels + 15) / 16); }

void pack_src_ncx_blocks(const ConvDescriptor& d, const Geometry& g, const void* src, float* xp, i64 begin, i64 end) {
    const i64 C = g.in_channels, Cs = g.channel_stride;
    const i64 D = g.in[0], H = g.in[1], W = g.in[2], plane = D * H * W;
    const bool f32 = d.dtype == DataType::f32;
    for (i64 task = begin; task < end; ++task) {
        // 16 channels of one image: 16 long sequential read streams, one 64-byte write per pixel
        const i64 n = task / ((C + 15) / 16), c0 = (task % ((C + 15) / 16)) * 16;
        const i64 c1 = c0 + 16 < C ? c0 + 16 : C;
        const i64 in_base = (n * C + c0) * plane;
        for (i64 id = 0; id < D; ++id) {
            const i64 pd = id + g.pad_begin[0];
            if (pd < 0 || pd >= g.padded[0]) continue;
            for (i64 ih = 0; ih < H; ++ih) {
                const i64 ph = ih + g.pad_begin[1];
                if (ph < 0 || ph >= g.padded[1]) continue;
                const i64 row_in = in_base + (id * H + ih) * W;
                float* row_out = xp + ((n * g.padded[0] + pd) * g.padded[1] + ph) * g.padded[2] * Cs;
                for (i64 iw = 0; iw < W; ++iw) {
                    const i64 pw = iw + g.pad_begin[2];
                    if (pw < 0 || pw >= g.padded[2]) continue;
                    float* out = row_out + pw * Cs;
                    if (f32) {
                        const float* in = static_cast<const float*>(src) + row_in + iw;
                        for (i64 c = c0; c < c1; ++c) out[c] = in[(c - c0) * plane];
                    } else {
                        for (i64 c = c0; c < c1; ++c) out[c] = load_f32(src, d.dtype, row_in + iw + (c - c0) * plane);
                    }
                }
            }
        }
    }
}

bool dst_is_y(const ConvDescriptor& d) { return d.dtype == DataType::f32 && d.data_format == DataFormat::nxc; }

i64 store_dst_row_count(const Geometry& g) { return g.batch * g.out[0] * g.out[1]; }

void store_dst_rows(const ConvDescriptor& d, const Geometry& g, const float* y, void* dst, i64 begin, i64 end) {
    const i64 O = g.out_channels, OW = g.out[2];
    const bool f32 = d.dtype == DataType::f32;
    for (i64 row = begin; row < end; ++row) {
        const float* in = y + row * OW * O;
        if (d.data_format == DataFormat::nxc) {
            if (f32)
                std::memcpy(static_cast<float*>(dst) + row * OW * O, in, sizeof(float) * OW * O);
            else
                for (i64 i = 0; i < OW * O; ++i) store_rounded(dst, d.dtype, row * OW * O + i, in[i]);
            continue;
        }
        // NCX: store_dst_ncx_blocks moves the data
    }
}

i64 store_dst_ncx_block_count(const Geometry& g) { return g.batch * ((g.out_channels + 15) / 16); }

void store_dst_ncx_blocks(const ConvDescriptor& d, const Geometry& g, const float* y, void* dst, i64 begin, i64 end) {
    if (d.dtype == DataType::f32 && cpu_has_avx2_fma()) {
        avx2::store_dst_ncx_blocks_f32(g, y, static_cast<float*>(dst), begin, end);
        return;
    }
    const i64 O = g.out_channels, plane = g.out_pixels();
    const bool f32 = d.dtype == DataType::f32;
    for (i64 task = begin; task < end; ++task) {
        // 16 output channels of one image: one 64-byte read per pixel, 16 long sequential write streams
        const i64 n = task / ((O + 15) / 16), o0 = (task % ((O + 15) / 16)) * 16;
        const i64 o1 = o0 + 16 < O ? o0 + 16 : O;
        const float* in = y + n * plane * O;
        const i64 out_base = (n * O + o0) * plane;
        for (i64 p = 0; p < plane; ++p)
            for (i64 o = o0; o < o1; ++o) {
                if (f32)
                    static_cast<float*>(dst)[out_base + (o - o0) * plane + p] = in[p * O + o];
                else
                    store_rounded(dst, d.dtype, out_base + (o - o0) * plane + p, in[p * O + o]);
            }
    }
}

i64 store_dst_task_count(const ConvDescriptor& d, const Geometry& g) {
    return d.data_format == DataFormat::nxc ? store_dst_row_count(g) : store_dst_ncx_block_count(g);
}

void store_dst_tasks(const ConvDescriptor& d, const Geometry& g, const float* y, void* dst, i64 begin, i64 end) {
    if (d.data_format == DataFormat::nxc)
        store_dst_rows(d, g, y, dst, begin, end);
    else
        store_dst_ncx_blocks(d, g, y, dst, begin, end);
}

// NXC: the rows do everything. NCX: the rows (zeros) first, then the channel blocks (data): tasks
// [0, rows) and [rows, rows + blocks) write disjoint floats, so they may run in any order.
// f32 NCX data with AVX2: by input rows (conversions_avx2.cpp), else by channel blocks.
namespace {
bool ncx_rows_by_avx2(const ConvDescriptor& d) { return d.dtype == DataType::f32 && cpu_has_avx2_fma(); }
}  // namespace

i64 pack_src_task_count(const ConvDescriptor& d, const Geometry& g) {
    if (d.data_format != DataFormat::ncx) return pack_src_row_count(g);
    return pack_src_row_count(g) + (ncx_rows_by_avx2(d) ? avx2::pack_src_ncx_row_count(g) : pack_src_ncx_block_count(g));
}

void pack_src_tasks(const ConvDescriptor& d, const Geometry& g, const void* src, float* xp, i64 begin, i64 end) {
    const i64 rows = pack_src_row_count(g);
    if (begin < rows) pack_src_rows(d, g, src, xp, begin, end < rows ? end : rows);
    if (end <= rows) return;
    const i64 first = (begin > rows ? begin : rows) - rows, last = end - rows;
    if (ncx_rows_by_avx2(d))
        avx2::pack_src_ncx_rows_f32(g, static_cast<const float*>(src), xp, first, last);
    else
        pack_src_ncx_blocks(d, g, src, xp, first, last);
}

std::vector<float> widen_weights(const ConvDescriptor& d, const Geometry& g, const void* weights) {
    const i64 O = g.out_channels, ICg = g.in_per_group, taps = g.taps();
    std::vector<float> canonical(static_cast<std::size_t>(O * ICg * taps));
    // read in the given order, OIX [O][I/G][k...] (the canonical one) or XIO [k...][I/G][O], the dtype's load chosen
    // once, not per element
    const auto widen = [&](auto load) {
        if (d.filter_format == FilterFormat::oix) {
            for (i64 at = 0; at < O * ICg * taps; ++at) canonical[static_cast<std::size_t>(at)] = load(at);
            return;
        }
        for (i64 t = 0; t < taps; ++t)
            for (i64 ic = 0; ic < ICg; ++ic)
                for (i64 o = 0; o < O; ++o)
                    canonical[static_cast<std::size_t>((o * ICg + ic) * taps + t)] = load((t * ICg + ic) * O + o);
    };
    if (d.dtype == DataType::f32)
        widen([w = static_cast<const float*>(weights)](i64 at) { return w[at]; });
    else
        widen([&](i64 at) { return load_f32(weights, d.dtype, at); });
    return canonical;
}

CanonicalWeights::CanonicalWeights(const ConvDescriptor& d, const Geometry& g, const void* weights) {
    if (copies(d)) {
        widened_ = widen_weights(d, g, weights);
        data_ = widened_.data();
    } else {
        data_ = static_cast<const float*>(weights);
    }
}

i64 store_weights_task_count(const ConvDescriptor& d, const Geometry& g) {
    return d.filter_format == FilterFormat::oix ? g.out_channels : g.groups * g.taps() * g.in_per_group;
}

void store_weights(const ConvDescriptor& d, const Geometry& g, const float* gtio, void* weights, i64 begin, i64 end) {
    const i64 O = g.out_channels, ICg = g.in_per_group, OCg = g.out_per_group, taps = g.taps();
    if (d.filter_format == FilterFormat::oix) {  // task o: writes [ICg][taps] in order
        for (i64 o = begin; o < end; ++o) {
            const i64 grp = o / OCg, oc = o % OCg;
            for (i64 ic = 0; ic < ICg; ++ic)
                for (i64 t = 0; t < taps; ++t)
                    store_rounded(weights, d.dtype, (o * ICg + ic) * taps + t, gtio[((grp * taps + t) * ICg + ic) * OCg + oc]);
        }
        return;
    }
    // XIO: task (grp, t, ic) reads and writes OCg consecutive floats
    for (i64 row = begin; row < end; ++row) {
        const i64 ic = row % ICg, t = (row / ICg) % taps, grp = row / (ICg * taps);
        const float* from = gtio + row * OCg;
        const i64 at = (t * ICg + ic) * O + grp * OCg;
        if (d.dtype == DataType::f32)
            std::memcpy(static_cast<float*>(weights) + at, from, static_cast<std::size_t>(OCg) * sizeof(float));
        else
            for (i64 oc = 0; oc < OCg; ++oc) store_rounded(weights, d.dtype, at + oc, from[oc]);
    }
}

std::vector<float> widen_bias(const ConvDescriptor& d, const void* bias) {
    std::vector<float> out;
    if (!d.has_bias) return out;
    for (i64 o = 0; o < d.out_channels; ++o) out.push_back(load_f32(bias, d.dtype, o));
    return out;
}

}  // namespace convcheck::optimized::detail
