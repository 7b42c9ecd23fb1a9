// Internal to the mutants plugin: one discrete convolution problem as the mutants read it (its sizes
// lifted to three spatial axes, the index of every tensor element in its layout and strides), shared
// by the forward loop nest (mutants_conv.cpp) and the backward passes (mutants_backward.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "convcheck/core/dtype.hpp"
#include "mutants_impl.hpp"

namespace convcheck::mutants {

using M = Mutant;
using Dims = std::array<long long, 3>;

// Each tensor's dtype (the 1.2 fields: they differ in a mixed-dtype case, whose `dtype` is MIXED).
inline DataType src_dtype_of(const convcheck_conv_desc& d) { return static_cast<DataType>(d.src_dtype); }
inline DataType weights_dtype_of(const convcheck_conv_desc& d) { return static_cast<DataType>(d.weights_dtype); }
inline DataType bias_dtype_of(const convcheck_conv_desc& d) { return static_cast<DataType>(d.bias_dtype); }
inline DataType dst_dtype_of(const convcheck_conv_desc& d) { return static_cast<DataType>(d.dst_dtype); }

// The binary format of a dtype: significand bits, largest finite value, smallest normal.
struct Format {
    int p;
    double max_finite, min_normal;
};
inline Format format_of(DataType dt) {
    switch (dt) {
        case DataType::f16: return {11, 65504.0, std::ldexp(1.0, -14)};
        case DataType::bf16: return {8, std::ldexp(255.0, 120), std::ldexp(1.0, -126)};
        case DataType::f8_e4m3: return {4, 448.0, std::ldexp(1.0, -6)};
        case DataType::f8_e5m2: return {3, 57344.0, std::ldexp(1.0, -14)};
        case DataType::f64: return {53, std::numeric_limits<double>::max(), std::ldexp(1.0, -1022)};
        case DataType::f32: break;
    }
    return {24, std::numeric_limits<float>::max(), std::ldexp(1.0, -126)};
}

using Strides = std::array<long long, 5>;

// ABI 1.2 memory strides of one tensor in canonical order, the spatial axes lifted to three:
// [n or o][c or i][x0][x1][x2] (a lifted axis has extent 1: stride 0). False when the descriptor
// gives none. `format`: 0 NCX, 1 NXC for activations; the filter format for weights.
inline bool canonical_strides(const convcheck_conv_desc& d, const int64_t* given, bool weights, int format, Strides* out) {
    if (d.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, dst_strides)) return false;
    const int r = d.rank;
    if (std::all_of(given, given + r + 2, [](int64_t v) { return v == 0; })) return false;
    *out = {0, 0, 0, 0, 0};
    const int shift = 3 - r;
    // the position in the format of canonical axis 0 (n or o), 1 (c or i), and spatial axis a at 1 + a
    int first = 0, second = 1, spatial = 2;
    if (!weights && format == CONVCHECK_NXC) first = 0, second = r + 1, spatial = 1;
    if (weights && format == CONVCHECK_XIO) first = r + 1, second = r, spatial = 0;
    if (weights && format == CONVCHECK_OXI) first = 0, second = r + 1, spatial = 1;
    (*out)[0] = given[first];
    (*out)[1] = given[second];
    for (int a = 0; a < r; ++a) (*out)[2 + shift + a] = given[spatial + a];
    return true;
}

// The offset of (a, b, flat spatial index x over the lifted dims) under canonical strides.
inline long long strided_offset(const Strides& st, long long a, long long b, long long x, const Dims& dims) {
    return a * st[0] + b * st[1] + (x / (dims[1] * dims[2])) * st[2] + ((x / dims[2]) % dims[1]) * st[3] +
           (x % dims[2]) * st[4];
}

// A position on the three lifted axes of `dims` that steps to the next (or previous) flat index, wrapping from the
// last to the first: a loop over taps or outputs divides once, at its start, rather than once per step (the
// divisions were most of the time of the large suite's cases of 2^29 outputs).
struct Position {
    Dims dims, at;
    Position(const Dims& d, long long flat) : dims(d), at{0, 0, 0} {
        if (flat > 0) at = {flat / (d[1] * d[2]), (flat / d[2]) % d[1], flat % d[2]};  // (most loops start at 0)
    }
    void next() {
        if (++at[2] < dims[2]) return;
        at[2] = 0;
        if (++at[1] < dims[1]) return;
        at[1] = 0;
        if (++at[0] == dims[0]) at[0] = 0;
    }
    void previous() {
        if (--at[2] >= 0) return;
        at[2] = dims[2] - 1;
        if (--at[1] >= 0) return;
        at[1] = dims[1] - 1;
        if (--at[0] < 0) at[0] = dims[0] - 1;
    }
};

struct Problem {
    const convcheck_conv_desc& d;
    M m;
    DataType dt;  // dst's (the output's, the one dtype of a backward pass)
    DataType src_dt, weights_dt, bias_dt;
    Dims in{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, dil{1, 1, 1}, pb{0, 0, 0}, out{1, 1, 1};
    long long N, C, O, G, ICg, OCg, in_spatial = 1, k_spatial = 1, out_spatial = 1, src_channel_stride;

    Problem(const convcheck_conv_desc& desc, M mutant) : d(desc), m(mutant), dt(dst_dtype_of(desc)), src_dt(src_dtype_of(desc)),
          weights_dt(weights_dtype_of(desc)), bias_dt(bias_dtype_of(desc)) {
        const int r = d.rank, shift = 3 - r;
        for (int a = 0; a < r; ++a) {
            const int mirror = r - 1 - a;                // the axis read instead, reversed order
            const int swapped = r >= 2 && a < 2 ? 1 - a : a;  // the first two axes swapped
            in[shift + a] = d.input_size[a];
            k[shift + a] = d.kernel_size[a];
            s[shift + a] = m == M::strides_reversed_3d && r == 3 ? d.strides[mirror] : d.strides[a];
            dil[shift + a] = m == M::dilation_ignored      ? 1
                             : m == M::dilation_zero_based ? d.dilations[a] + 1
                             : m == M::dilations_reversed  ? d.dilations[mirror]
                                                           : d.dilations[a];
            pb[shift + a] = m == M::pads_axes_swapped ? d.pads_begin[swapped] : d.pads_begin[a];
            if (m == M::pad_off_by_one && pb[shift + a] > 0) pb[shift + a] -= 1;
            if (m == M::negative_pads_clamped) pb[shift + a] = std::max(0LL, pb[shift + a]);
            const long long extent = (d.kernel_size[a] - 1) * d.dilations[a] + 1;
            const long long span = d.input_size[a] + d.pads_begin[a] + d.pads_end[a] - extent;
            out[shift + a] = m == M::wrong_output_size ? (span + d.strides[a] - 1) / d.strides[a] + 1
                                                       : span / d.strides[a] + 1;
        }
        N = d.batch, C = d.in_channels, O = d.out_channels, G = d.groups, ICg = C / G, OCg = O / G;
        for (int a = 0; a < 3; ++a) in_spatial *= in[a], k_spatial *= k[a], out_spatial *= out[a];
        src_channel_stride = m == M::nxc_channel_stride_padded      ? (C + 7) / 8 * 8
                             : m == M::nxc_stride_from_out_channels ? O
                                                                    : C;
        const bool read_as_oix =
            m == M::filter_format_ignored || (m == M::oxi_read_as_oix && d.filter_format == CONVCHECK_OXI);
        filter_format = read_as_oix ? static_cast<int32_t>(CONVCHECK_OIX) : d.filter_format;
        if (m != M::ignores_strides && d.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, dst_strides)) {
            strided_src = canonical_strides(d, d.src_strides, false, d.data_format, &src_st);
            strided_weights = canonical_strides(d, d.weights_strides, true, filter_format, &weights_st);
            strided_dst = canonical_strides(d, d.dst_strides, false, d.data_format, &dst_st);
        }
    }
    int32_t filter_format;  // as this mutant reads the weights
    bool strided_src = false, strided_weights = false, strided_dst = false;
    Strides src_st{}, weights_st{}, dst_st{};
    long long src_index(long long n, long long c, long long x) const {
        if (m == M::batch_ignored) n = 0;
        if (strided_src) return offset(strided_offset(src_st, n, c, x, in));
        const bool ncx = d.data_format == CONVCHECK_NCX || m == M::layout_transposed;
        return offset(ncx ? (n * C + c) * in_spatial + x : (n * in_spatial + x) * src_channel_stride + c);
    }
    long long weights_index(long long o, long long i, long long kx) const {
        if (strided_weights) return offset(strided_offset(weights_st, o, i, kx, k));
        if (filter_format == CONVCHECK_OXI) return offset((o * k_spatial + kx) * ICg + i);
        return offset(filter_format == CONVCHECK_OIX ? (o * ICg + i) * k_spatial + kx : (kx * ICg + i) * O + o);
    }
    long long dst_index(long long n, long long o, long long x) const {
        if (m == M::chunks_stored_at_first_images && d.data_format == CONVCHECK_NCX) n %= 2;
        if (strided_dst) return offset(strided_offset(dst_st, n, o, x, out));
        return offset(d.data_format == CONVCHECK_NCX ? (n * O + o) * out_spatial + x : (n * out_spatial + x) * O + o);
    }
    // An element offset as the mutant holds it: offsets_int32 keeps it in a 32-bit signed integer, which
    // wraps to a negative offset past 2^31 elements (two's complement, as the hardware does).
    long long offset(long long index) const {
        return m == M::offsets_int32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(index)) : index;
    }
    // A value as the backend reads it (daz: a subnormal input reads as zero).
    float load(const void* buffer, DataType type, long long index) const {
        const double v = load_as_double(buffer, type, index);
        if (m == M::daz && v != 0.0 && std::fabs(v) < format_of(type).min_normal) return 0.0f;
        return static_cast<float>(v);
    }
    float load(const void* buffer, long long index) const { return load(buffer, dt, index); }  // one dtype
};

}  // namespace convcheck::mutants
