// The pointwise backward-data kernel (backward_data_pointwise.hpp), compiled once per ISA; the ISA's unit
// gives its tile sizes kPointwiseRows[NB] (pixels per tile for NB vectors) and kPointwiseMaxBlocks.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// One tile: `count` (<= P) pixels from dy (pixel stride O) into dx (pixel stride C), super block cs.
// Pixels past count repeat the last one and are not stored. pf: the diff_dst to prefetch (P pixels
// from there), or null.
template <int NB, int P>
void pointwise_tile(const PointwiseBackwardData& p, const float* dy, float* dx, i64 count, i64 cs, const float* pf) {
    constexpr int B = NB * W;
    const i64 O = p.out_channels, C = p.in_channels;
    // Pixel r's diff_dst at o0 + u: with one vector (NB = 1) each broadcast folds into its FMA, and an
    // indexed memory operand of a three-operand FMA costs the front end a second uop; so there a pointer
    // per pixel, advanced once per cache line of o, and within a line the pointer plus a constant (the asm
    // keeps GCC from folding the P pointers back into one plus P offsets). With more vectors a broadcast
    // is a load of its own: one pointer plus a fixed offset per pixel (fewer registers).
    constexpr bool kPerPixel = NB == 1;
    const float* q[P];
    i64 off[P];
#pragma GCC unroll 16
    for (int r = 0; r < P; ++r) {
        off[r] = min_i64(r, count - 1) * O;
        q[r] = dy + off[r];
    }
    const float* from = dy;
    vf acc[P * NB];
#pragma GCC unroll 64
    for (int i = 0; i < P * NB; ++i) acc[i] = zero();
    const float* wq = p.weights + cs * O * B;
    const auto step = [&](i64 u) {
        vf wv[NB];
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) wv[j] = load(wq + u * B + j * W);
#pragma GCC unroll 16
        for (int r = 0; r < P; ++r) {
            const vf b = broadcast(kPerPixel ? q[r] + u : from + off[r] + u);
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(b, wv[j], acc[r * NB + j]);
        }
    };
    constexpr i64 kLine = 16;  // floats per cache line
    for (i64 o0 = 0; o0 < O; o0 += kLine) {
        // the P lines of the next tile's diff_dst that lie at o0 * P floats into it: its P*O floats are
        // contiguous, so one pointer and constant offsets (no register per pixel), every line once
        if (pf)
#pragma GCC unroll 16
            for (int r = 0; r < P; ++r) _mm_prefetch(reinterpret_cast<const char*>(pf + o0 * P + r * kLine), _MM_HINT_T0);
        const i64 n = min_i64(kLine, O - o0);
        if (kPerPixel && n == kLine) {
#pragma GCC unroll 16
            for (i64 u = 0; u < kLine; ++u) step(u);
        } else {
            for (i64 u = 0; u < n; ++u) step(u);
        }
        if constexpr (kPerPixel) {
#pragma GCC unroll 16
            for (int r = 0; r < P; ++r) {
                q[r] += kLine;
                asm("" : "+r"(q[r]));
            }
        }
        from += kLine;
        wq += kLine * B;
    }
    const i64 valid = min_i64(B, C - cs * B);
    float* to = dx + cs * B;
    if (count == P) {
        if (p.stream_output && valid == B) stream_tile_at<P, NB>(acc, [=](int r) { return to + r * C; });
        else store_tile<P, NB>(acc, to, C, valid);
        return;
    }
    float tile[P * B];  // through the stack with constant indices (acc stays in registers)
    store_tile<P, NB>(acc, tile, B, B);
    for (i64 r = 0; r < count; ++r)
        for (i64 c = 0; c < valid; ++c) to[r * C + c] = tile[r * B + c];
}

template <int NB>
void pointwise_chunks(const PointwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end) {
    constexpr int P = kPointwiseRows[NB];
    const i64 O = p.out_channels, C = p.in_channels, M = p.pixels;
    for (i64 chunk = begin; chunk < end; ++chunk) {
        const i64 first = chunk * p.chunk_pixels, last = min_i64(M, first + p.chunk_pixels);
        for (i64 px = first; px < last; px += P) {
            const i64 count = min_i64(P, last - px);
            // the tile four ahead (in the next chunk too: the pixels run on), while it lies in dy (two or eight
            // ahead: slower)
            const float* pf = px + 5 * P <= M ? dy + (px + 4 * P) * O : nullptr;
            for (i64 cs = 0; cs < p.super_blocks; ++cs)
                pointwise_tile<NB, P>(p, dy + px * O, dx + px * C, count, cs, cs == 0 ? pf : nullptr);
        }
    }
    if (p.stream_output) _mm_sfence();  // the non-temporal stores visible before the caller's join
}

}  // namespace

int pointwise_backward_data_max_blocks() { return kPointwiseMaxBlocks; }

void pointwise_backward_data_chunks(const PointwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end) {
    switch (p.vector_blocks) {
    case 1: pointwise_chunks<1>(p, dy, dx, begin, end); return;
    case 2: pointwise_chunks<2>(p, dy, dx, begin, end); return;
    case 3: pointwise_chunks<3>(p, dy, dx, begin, end); return;
    default: pointwise_chunks<kPointwiseMaxBlocks>(p, dy, dx, begin, end); return;
    }
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
