// Depthwise on the user's f32 NCX buffers, with no layout conversion (AVX2 + FMA; compiled with
// -mavx2 -mfma, called only from the depthwise_avx2 path). Each channel plane is a convolution of its
// own, so the vector lanes run along an output row: 8 consecutive outputs of one row per vector, up
// to kMaxVectors vectors per tile (independent FMA chains). The converted path (depthwise_avx2 on a
// channels-last copy) spends most of its time in the two NCX <-> NXC transposes on the MobileNet
// layers (dw32@112: 0.50 ms NCHW against 0.13 ms NHWC); here the input and output are read and
// written once, in place.
//
// Each output sums the same taps in the same order as depthwise_rows (the bias, then the taps inside
// the input in (kd, kh, kw) order, each one fused multiply-add), so NCX and NXC give the same bits:
// the vectors whose kw taps all lie inside the input row go through ncx_tile, the one or two at the
// ends of a row (whose taps in the padding are skipped lane by lane) through ncx_edge_vector.
#include "isa_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {

constexpr int kMaxVectors = 8;  // 8 accumulators + 3 weights + 1-3 inputs: 16 registers at most

// What a tile reads and writes: V vectors of 8 outputs of R consecutive rows of one channel plane
// (rows whose kernel rows all lie inside the input, when R > 1).
struct NcxTileArgs {
    const float* x = nullptr;            // the channel plane's input
    const i64* row_offsets = nullptr;    // per entry (kd, kh inside the input): its input row's offset in the plane
    const i64* row_taps = nullptr;       // per entry: its kw = 0 tap number
    i64 entries = 0;
    const float* w = nullptr;            // packed weights [taps][Cs] at the plane's channel
    i64 tap_step = 0;                    // Cs
    float bias = 0.0f;                   // the channel's bias, or 0 (the converted path starts from zero too)
    i64 first = 0;                       // the input column of vector 0's first output's kw = 0 tap
    i64 first_pad = 0;                   // the padding before column 0 (ncx_edge_vector)
    i64 last_shift = 0;                  // outputs from vector 0 to the last vector (8 (V - 1), or fewer: the
                                         // row's last vector ends at the row's last inner output and may overlap)
    float* y = nullptr;                  // vector 0's first output
    i64 in_row_step = 0;                 // from one output row of the tile to the next: input (s_h W) ...
    i64 out_row_step = 0;                // ... and output (OW)
    i64 x_at = 0;                        // x's offset in the whole input tensor, of x_size floats
    i64 x_size = 0;
};

template <bool B>
struct Constant {
    static constexpr bool value = B;
};

using NcxTileFn = void (*)(const NcxTileArgs&);

// Stride 2: the lanes of [a, b] (16 consecutive input columns) that 8 outputs read, even columns
// (ODD false: 0xDD picks 1, 3, ..) in the order shuffle_ps leaves them: outputs 0 1 4 5 2 3 6 7. Every
// tap of a tile is in that order, and the sums are put back in order once, at the store.
template <bool ODD>
[[gnu::always_inline]] inline vf strided_pairs(vf a, vf b) { return _mm256_shuffle_ps(a, b, ODD ? 0xDD : 0x88); }
[[gnu::always_inline]] inline vf in_output_order(vf v) {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
}

// V vectors of R rows, stride S (1 or 2) along w, kernel width 3, dilation 1; every tap of a vector
// inside the input row. V * R independent sums.
template <int V, int S, int R>
[[gnu::always_inline]] inline void ncx_tile(const NcxTileArgs& a) {
    vf acc[V * R];
    const vf b = _mm256_set1_ps(a.bias);
#pragma GCC unroll 16
    for (int v = 0; v < V * R; ++v) acc[v] = b;
    const i64 cs = a.tap_step;
    for (i64 e = 0; e < a.entries; ++e) {
        const float* px = a.x + (a.row_offsets[e] + a.first);
        const float* wt = a.w + a.row_taps[e] * cs;
        const vf w0 = broadcast(wt), w1 = broadcast(wt + cs), w2 = broadcast(wt + 2 * cs);
#pragma GCC unroll 16
        for (int i = 0; i < V * R; ++i) {
            const int r = i / V, v = i % V;
            const float* p = px + r * a.in_row_step + (v == V - 1 ? a.last_shift : 8 * v) * S;
            if constexpr (S == 1) {
                acc[i] = fma(load(p), w0, acc[i]);
                acc[i] = fma(load(p + 1), w1, acc[i]);
                acc[i] = fma(load(p + 2), w2, acc[i]);
            } else {
                // columns p .. p + 15 for kw = 0 (even) and 1 (odd), p + 1 .. p + 16 for kw = 2 (odd)
                const vf lo = load(p), hi = load(p + 8);
                acc[i] = fma(strided_pairs<false>(lo, hi), w0, acc[i]);
                acc[i] = fma(strided_pairs<true>(lo, hi), w1, acc[i]);
                acc[i] = fma(strided_pairs<true>(load(p + 1), load(p + 9)), w2, acc[i]);
            }
        }
    }
#pragma GCC unroll 16
    for (int i = 0; i < V * R; ++i) {
        const int r = i / V, v = i % V;
        store(a.y + r * a.out_row_step + (v == V - 1 ? a.last_shift : 8 * v), S == 1 ? acc[i] : in_output_order(acc[i]));
    }
}

// The tiles of single rows, called through pointers.
template <int V, int S>
void ncx_row_tile(const NcxTileArgs& a) {
    ncx_tile<V, S, 1>(a);
}
template <int S, int V>
NcxTileFn pick_ncx_row_tile(int v) {
    if constexpr (V == 0) {
        return nullptr;
    } else {
        return v == V ? &ncx_row_tile<V, S> : pick_ncx_row_tile<S, V - 1>(v);
    }
}

// Groups of kGroupRows rows that all read every kernel row go through ncx_full_rows, in tiles of at
// most 3 (stride 1) or 2 (stride 2) vectors: 8-12 independent sums (accumulators + 3 weights + 1-3
// inputs within the 16 registers); single rows in tiles of up to kMaxVectors vectors.
constexpr int kGroupRows = 4;
int most_group_vectors(i64 s) { return s == 1 ? 3 : 2; }

// A vector of 8 outputs at ow0 of which some read the padding (or lie past the row's end): each tap
// loads only the columns inside the input (maskload: the others are neither read nor faulted on) and
// keeps its sum only in the lanes whose column is inside (blend), so that every output adds exactly
// the taps the inner tiles and depthwise_rows add; only the outputs ow0 .. OW-1 are stored.
// B0, B1, B2: tap kw = 0, 1, 2 lies in the padding for some stored output (else it is added unblended).
// LOADS: 0 decides per call between plain and masked loads (below), 1 plain, 2 masked.
template <int S, int R, bool B0, bool B1, bool B2, int LOADS = 0>
[[gnu::always_inline]] inline void ncx_edge_vector(const NcxTileArgs& a, i64 ow0, i64 in_width, i64 out_width) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const auto below = [&](i64 col0, i64 limit) {  // lanes k with 0 <= col0 + k < limit
        const __m256i c = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(col0)), lane);
        return _mm256_and_si256(_mm256_cmpgt_epi32(c, _mm256_set1_epi32(-1)),
                                _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(limit)), c));
    };
    const i64 col = ow0 * S - a.first_pad;
    // S == 1: the columns of taps kw = 0, 1, 2; S == 2: columns col .. col + 15 and col + 1 .. col + 16
    const __m256i m0 = below(col, in_width), m1 = below(col + (S == 1 ? 1 : 8), in_width),
                  m2 = below(col + (S == 1 ? 2 : 1), in_width), m3 = below(col + 9, in_width);
    vf t0, t1, t2;  // the lanes (outputs, in the tile's order) whose tap kw is inside
    if constexpr (S == 1) {
        t0 = _mm256_castsi256_ps(m0), t1 = _mm256_castsi256_ps(m1), t2 = _mm256_castsi256_ps(m2);
    } else {
        t0 = strided_pairs<false>(_mm256_castsi256_ps(m0), _mm256_castsi256_ps(m1));
        t1 = strided_pairs<true>(_mm256_castsi256_ps(m0), _mm256_castsi256_ps(m1));
        t2 = strided_pairs<true>(_mm256_castsi256_ps(m2), _mm256_castsi256_ps(m3));
    }
    vf acc[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = _mm256_set1_ps(a.bias);
    const i64 cs = a.tap_step;
    // PLAIN: every column the vector's loads span lies inside the input tensor, so plain loads serve
    // (the columns outside the row are other rows' data, which the blends drop); masked loads only at
    // the tensor's two ends (measured: the masked loads made the edges cost as much as the inner tiles)
    const auto sums = [&](auto plain) {
        for (i64 e = 0; e < a.entries; ++e) {
            const float* wt = a.w + a.row_taps[e] * cs;
            const vf w0 = broadcast(wt), w1 = broadcast(wt + cs), w2 = broadcast(wt + 2 * cs);
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r) {
                const float* p = a.x + (a.row_offsets[e] + col + r * a.in_row_step);
                const auto in = [&](i64 at, __m256i mask) {
                    if constexpr (decltype(plain)::value)
                        return load(p + at);
                    else
                        return _mm256_maskload_ps(p + at, mask);
                };
                vf in0, in1, in2;
                if constexpr (S == 1) {
                    in0 = in(0, m0), in1 = in(1, m1), in2 = in(2, m2);
                } else {
                    const vf lo = in(0, m0), hi = in(8, m1);
                    in0 = strided_pairs<false>(lo, hi), in1 = strided_pairs<true>(lo, hi);
                    in2 = strided_pairs<true>(in(1, m2), in(9, m3));
                }
                acc[r] = B0 ? _mm256_blendv_ps(acc[r], fma(in0, w0, acc[r]), t0) : fma(in0, w0, acc[r]);
                acc[r] = B1 ? _mm256_blendv_ps(acc[r], fma(in1, w1, acc[r]), t1) : fma(in1, w1, acc[r]);
                acc[r] = B2 ? _mm256_blendv_ps(acc[r], fma(in2, w2, acc[r]), t2) : fma(in2, w2, acc[r]);
            }
        }
    };
    // the loads span columns col .. col + 9 (S == 1: three vectors from col, col + 1, col + 2) or
    // col .. col + 16 (S == 2: from col, col + 8, col + 1, col + 9)
    constexpr i64 span = S == 1 ? 10 : 17;
    const bool plain = LOADS == 1 || (LOADS == 0 && a.entries > 0 && a.x_at + a.row_offsets[0] + col >= 0 &&
                                      a.x_at + a.row_offsets[a.entries - 1] + col + (R - 1) * a.in_row_step + span <=
                                          a.x_size);
    if (plain)
        sums(Constant<true>{});
    else
        sums(Constant<false>{});
    // a plain store where the row has all 8 outputs (a masked store is microcoded on AMD: measured
    // slower than the whole vector tile)
    const bool whole = ow0 + 8 <= out_width;
    const __m256i stored = below(ow0, out_width);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
        float* y = a.y + r * a.out_row_step + ow0;
        const vf sum = S == 1 ? acc[r] : in_output_order(acc[r]);
        if (whole)
            store(y, sum);
        else
            _mm256_maskstore_ps(y, stored, sum);
    }
}

using NcxEdgeFn = void (*)(const NcxTileArgs&, i64, i64, i64);
// The edge vectors of single rows, called through pointers.
template <int S, bool B0, bool B1, bool B2>
void ncx_row_edge(const NcxTileArgs& a, i64 ow0, i64 in_width, i64 out_width) {
    ncx_edge_vector<S, 1, B0, B1, B2>(a, ow0, in_width, out_width);
}
template <int S>
NcxEdgeFn pick_ncx_edge(int blended) {
    switch (blended) {
    case 0: return &ncx_row_edge<S, false, false, false>;
    case 1: return &ncx_row_edge<S, true, false, false>;
    case 2: return &ncx_row_edge<S, false, true, false>;
    case 3: return &ncx_row_edge<S, true, true, false>;
    case 4: return &ncx_row_edge<S, false, false, true>;
    case 5: return &ncx_row_edge<S, true, false, true>;
    case 6: return &ncx_row_edge<S, false, true, true>;
    default: return &ncx_row_edge<S, true, true, true>;
    }
}
// The edge kernel of a single row for the vector at ow0: blended only where a stored output's tap
// lies outside the input row.
NcxEdgeFn ncx_edge_for(const Geometry& g, i64 ow0) {
    const i64 s = g.stride[2];
    int blended = 0;
    for (i64 k = 0; k < 8 && ow0 + k < g.out[2]; ++k)
        for (int kw = 0; kw < 3; ++kw) {
            const i64 iw = (ow0 + k) * s - g.pad_begin[2] + kw;
            if (iw < 0 || iw >= g.in[2]) blended |= 1 << kw;
        }
    return s == 1 ? pick_ncx_edge<1>(blended) : pick_ncx_edge<2>(blended);
}

// A run of whole groups of kGroupRows rows of one plane that all read every kernel row, in one call
// (the per-call cost of a tile or an edge vector is as large as its few dozen FMAs): per group the
// edge vectors (every tap blended, exact either way), then the inner vectors in tiles of V vectors
// of kGroupRows rows, the last tile ending at the last inner vector (it may overlap the one before:
// the same outputs, the same bits).
struct NcxRun {
    i64 groups = 0;
    const i64* edge_starts = nullptr;  // the edge vectors' first outputs
    i64 edges = 0;
    i64 tiles = 0;                     // inner tiles of V vectors
    i64 first_inner = 0, last_inner = 0;  // the first and the last inner vector's first output
    i64 in_width = 0, out_width = 0;
};
using NcxRunFn = void (*)(const NcxTileArgs&, const NcxRun&);

template <int S, int V, int LOADS>
void ncx_full_rows(const NcxTileArgs& a, const NcxRun& run) {
    NcxTileArgs b = a;
    for (i64 group = 0; group < run.groups; ++group) {
        b.x = a.x + group * kGroupRows * a.in_row_step;
        b.x_at = a.x_at + group * kGroupRows * a.in_row_step;
        float* const y_group = a.y + group * kGroupRows * a.out_row_step;
        b.y = y_group;
        for (i64 e = 0; e < run.edges; ++e)
            ncx_edge_vector<S, kGroupRows, true, true, true, LOADS>(b, run.edge_starts[e], run.in_width, run.out_width);
        for (i64 t = 0; t < run.tiles; ++t) {
            // the last tile ends at the last inner vector, and starts no earlier than the first
            i64 start = run.first_inner + 8 * V * t;
            if (t == run.tiles - 1)
                start = run.last_inner - 8 * (V - 1) > run.first_inner ? run.last_inner - 8 * (V - 1) : run.first_inner;
            b.first = start * S - a.first_pad;
            b.last_shift = t == run.tiles - 1 ? run.last_inner - start : 8 * (V - 1);
            b.y = y_group + start;
            ncx_tile<V, S, kGroupRows>(b);
        }
    }
}

template <int S, int V>
NcxRunFn pick_full_rows(bool plain) {
    return plain ? &ncx_full_rows<S, V, 1> : &ncx_full_rows<S, V, 2>;
}
// v: the inner vectors of a tile (1 .. most_group_vectors(s))
NcxRunFn ncx_full_rows_for(i64 s, int v, bool plain) {
    if (s == 1) return v == 1 ? pick_full_rows<1, 1>(plain) : v == 2 ? pick_full_rows<1, 2>(plain) : pick_full_rows<1, 3>(plain);
    return v == 1 ? pick_full_rows<2, 1>(plain) : pick_full_rows<2, 2>(plain);
}

// The outputs [lo, hi) of a row whose three kw taps lie inside the input row.
struct InnerOutputs {
    i64 lo = 0, hi = 0;
};
InnerOutputs inner_outputs(const Geometry& g) {
    const i64 s = g.stride[2], pb = g.pad_begin[2], OW = g.out[2], Wd = g.in[2];
    InnerOutputs r;
    r.lo = pb > 0 ? (pb + s - 1) / s : 0;
    const i64 last = Wd - 3 + pb;  // ow * s <= last
    r.hi = last < 0 ? 0 : last / s + 1;
    if (r.lo > OW) r.lo = OW;
    if (r.hi > OW) r.hi = OW;
    if (r.hi < r.lo) r.hi = r.lo;
    return r;
}

}  // namespace

bool takes_depthwise_ncx(const Geometry& g) {
    const i64 s = g.stride[2];
    // the edge vectors' column numbers are 32-bit lanes
    const bool small = g.in[2] <= (i64{1} << 24) && g.pad_begin[2] >= -16 && g.pad_begin[2] <= 16;
    // rows of fewer than 8 outputs stay on the converted path (dw960@7: 0.12 ms here, 0.067 ms there)
    return g.kernel[2] == 3 && g.dilation[2] == 1 && (s == 1 || s == 2) && small && g.out[2] >= 8;
}

// Rows (n, c, od, oh) [begin, end) of the NCX output y from the NCX input x; scratch: two lists of
// KD * KH entries. A row is cut into vectors of 8 outputs (the last one ending at the row's end);
// the vectors whose taps all lie inside the input go through ncx_tile, up to kMaxVectors at once,
// the others through ncx_edge_vector.
void depthwise_ncx_rows(const DepthwiseProblem& p, const float* x, float* y, i64* scratch, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 C = g.out_channels, cs = g.channel_stride;
    const i64 D = g.in[0], H = g.in[1], Wd = g.in[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
    const i64 KD = g.kernel[0], KH = g.kernel[1];
    const i64 s = g.stride[2], pb = g.pad_begin[2];
    const InnerOutputs inner = inner_outputs(g);
    const i64 vectors = (OW + 7) / 8;
    const auto vector_start = [&](i64 j) { return j == vectors - 1 ? (OW > 8 ? OW - 8 : 0) : 8 * j; };
    const auto is_inner = [&](i64 j) { return vector_start(j) >= inner.lo && vector_start(j) + 8 <= inner.hi; };
    i64 inner_first = 0;  // the inner vectors [inner_first, inner_end): contiguous
    while (inner_first < vectors && !is_inner(inner_first)) ++inner_first;
    i64 inner_end = inner_first;
    while (inner_end < vectors && is_inner(inner_end)) ++inner_end;
    const i64 inner_count = inner_end - inner_first;
    const i64 edges = vectors - inner_count;
    constexpr i64 kMostEdges = 16;  // more only where the pads exceed 16 columns (takes_depthwise_ncx refuses)
    NcxEdgeFn edge_kernels[kMostEdges] = {};  // one row
    i64 edge_starts[kMostEdges] = {};
    for (i64 e = 0; e < edges && e < kMostEdges; ++e) {
        const i64 j = e < inner_first ? e : inner_end + (e - inner_first);
        edge_kernels[e] = ncx_edge_for(g, vector_start(j));
        edge_starts[e] = vector_start(j);
    }
    // runs of whole groups of rows (ncx_full_rows), where the edge vectors are few enough to list
    NcxRun run;
    run.edge_starts = edge_starts;
    run.edges = edges;
    const int run_vectors = static_cast<int>(inner_count < most_group_vectors(s) ? inner_count : most_group_vectors(s));
    run.tiles = run_vectors > 0 ? (inner_count + run_vectors - 1) / run_vectors : 0;
    run.first_inner = inner_count > 0 ? vector_start(inner_first) : 0;
    run.last_inner = inner_count > 0 ? vector_start(inner_end - 1) : 0;
    run.in_width = Wd;
    run.out_width = OW;
    const bool runs = edges <= kMostEdges;
    // plain loads in the edge vectors of a run unless it touches the input tensor's first or last row
    const NcxRunFn run_plain = ncx_full_rows_for(s, run_vectors > 0 ? run_vectors : 1, true);
    const NcxRunFn run_masked = ncx_full_rows_for(s, run_vectors > 0 ? run_vectors : 1, false);
    // the inner vectors of a single row cut into tiles of nearly equal counts
    struct Tiling {
        i64 count = 0, per_tile = 0, wider = 0;
        NcxTileFn narrow = nullptr, wide = nullptr;  // the kernels of per_tile and per_tile + 1 vectors
    } tiling;
    tiling.count = (inner_count + kMaxVectors - 1) / kMaxVectors;
    if (tiling.count > 0) {
        tiling.per_tile = inner_count / tiling.count, tiling.wider = inner_count % tiling.count;
        const int v = static_cast<int>(tiling.per_tile);
        tiling.narrow = s == 1 ? pick_ncx_row_tile<1, kMaxVectors>(v) : pick_ncx_row_tile<2, kMaxVectors>(v);
        tiling.wide = s == 1 ? pick_ncx_row_tile<1, kMaxVectors>(v + 1) : pick_ncx_row_tile<2, kMaxVectors>(v + 1);
    }
    // the kernel rows (kd, kh) of output row (od, oh) inside the input, and whether all of them are
    const auto kernel_rows = [&](i64 od, i64 oh, i64* offsets, i64* taps) {
        const i64 id0 = od * g.stride[0] - g.pad_begin[0], ih0 = oh * g.stride[1] - g.pad_begin[1];
        i64 count = 0;
        for (i64 kd = 0; kd < KD; ++kd) {
            const i64 id = id0 + kd * g.dilation[0];
            if (id < 0 || id >= D) continue;
            for (i64 kh = 0; kh < KH; ++kh) {
                const i64 ih = ih0 + kh * g.dilation[1];
                if (ih < 0 || ih >= H) continue;
                offsets[count] = (id * H + ih) * Wd, taps[count] = (kd * KH + kh) * 3;
                ++count;
            }
        }
        return count;
    };
    const auto reads_all = [&](i64 od, i64 oh) {
        const i64 id0 = od * g.stride[0] - g.pad_begin[0], ih0 = oh * g.stride[1] - g.pad_begin[1];
        return id0 >= 0 && id0 + (KD - 1) * g.dilation[0] < D && ih0 >= 0 && ih0 + (KH - 1) * g.dilation[1] < H;
    };
    NcxTileArgs a;
    a.row_offsets = scratch;
    a.row_taps = scratch + KD * KH;
    a.tap_step = cs;
    a.first_pad = pb;
    a.in_row_step = g.stride[1] * Wd;
    a.out_row_step = OW;
    a.x_size = g.batch * C * D * H * Wd;
    i64 rest = begin;
    i64 oh = rest % OH; rest /= OH;
    i64 od = rest % OD; rest /= OD;
    i64 c = rest % C;
    i64 n = rest / C;
    for (i64 row = begin; row < end;) {
        a.entries = kernel_rows(od, oh, scratch, scratch + KD * KH);
        a.x_at = (n * C + c) * D * H * Wd;
        a.x = x + a.x_at;
        a.w = p.weights + c;
        a.bias = p.bias ? p.bias[c] : 0.0f;
        float* y_row = y + row * OW;
        a.y = y_row;
        // whole groups of kGroupRows rows that all read every kernel row (then so do the rows between)
        i64 groups = 0;
        if (runs && reads_all(od, oh))
            while (row + kGroupRows * (groups + 1) <= end && oh + kGroupRows * (groups + 1) <= OH &&
                   reads_all(od, oh + kGroupRows * (groups + 1) - 1))
                ++groups;
        if (groups > 0) {
            run.groups = groups;
            const i64 rows_here = kGroupRows * groups;
            // (bounds with a margin past every column an edge vector's loads span)
            const i64 lowest = a.x_at + a.row_offsets[0] - 32;
            const i64 highest = a.x_at + a.row_offsets[a.entries - 1] + (rows_here - 1) * a.in_row_step + OW * s + 64;
            (lowest >= 0 && highest <= a.x_size ? run_plain : run_masked)(a, run);
            row += rows_here;
            oh += rows_here;
            if (oh == OH) {
                oh = 0;
                if (++od == OD) {
                    od = 0;
                    if (++c == C) c = 0, ++n;
                }
            }
            continue;
        }
        for (i64 e = 0; e < edges; ++e) {
            const i64 j = e < inner_first ? e : inner_end + (e - inner_first);
            const NcxEdgeFn edge = e < kMostEdges ? edge_kernels[e] : ncx_edge_for(g, vector_start(j));
            edge(a, vector_start(j), Wd, OW);
        }
        i64 done = inner_first;
        for (i64 t = 0; t < tiling.count; ++t) {
            const bool wide = t < tiling.wider;
            const i64 ow0 = vector_start(done);
            done += tiling.per_tile + (wide ? 1 : 0);
            a.first = ow0 * s - pb;
            a.last_shift = vector_start(done - 1) - ow0;
            a.y = y_row + ow0;
            (wide ? tiling.wide : tiling.narrow)(a);
        }
        ++row;
        ++oh;
        if (oh == OH) {
            oh = 0;
            if (++od == OD) {
                od = 0;
                if (++c == C) c = 0, ++n;
            }
        }
    }
}

}  // namespace convcheck::optimized::detail::avx2
