// The CC chunked method's contraction with the input channels last (cc_contract_channels_last,
// cc_factored_kernels.hpp), written once over the ISA vocabulary (isa_avx2.hpp or isa_avx512.hpp, then
// cc_backward_isa.hpp) and included by cc_contract_channels_last_avx2.cpp and cc_contract_channels_last_avx512.cpp. Each vector
// holds W input channels; the register tiles are <= 2 channel vectors x <= kColumns columns, a column
// being a hidden feature m (its value broadcast per tap) or S (the tap vectors added). Per tap the tile
// loads its channel vectors once, contiguous. A lane is one channel and every sum runs in tap order from 0
// (FMA), so both ISAs give the same bits.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// The most columns of a tile: 2 x 6 accumulators, 2 channel vectors and a broadcast on AVX2's 16
// registers (15); 2 x 9 on AVX-512's 32 (21): h2 = 16 features and S as two tiles of 9 and 8 columns.
constexpr int kColumns = W == 16 ? 9 : 6;

// Where one pixel's tile reads and writes.
struct Pixel {
    const float* ring;     // the packed rows
    const i64* row_offset; // input row iy at ring + row_offset[iy]
    i64 y0, y1, x_offset, width;  // input rows [y0, y1); the first tap's channel c0 at + x_offset
    const float* h;        // hidden feature 0 of the first tap inside
    i64 h_row_step, h2p, cin;
    float* z;              // Z[c0][0] of the pixel (z[m * cin + c] = Z[c][m], S at z[h2 * cin + c])
    i64 s_offset;          // h2 * cin
};

// Columns m0 .. m0 + MB (and S when SUM) of channel vectors c0 .. c0 + CV (the last masked when TAIL):
// acc[m][c] = sum over the taps in (y, x) order of h_m * N (FMA, from 0); S: sum of N.
template <int CV, int MB, bool SUM, bool TAIL>
inline __attribute__((always_inline)) void tile(const Pixel& q, i64 m0, vmask mask) {
    constexpr int A = (MB + (SUM ? 1 : 0)) * CV;
    vf acc[A > 0 ? A : 1];
#pragma GCC unroll 20
    for (int k = 0; k < A; ++k) acc[k] = zero();
    const float* hrow = q.h + m0;
    for (i64 y = q.y0; y < q.y1; ++y, hrow += q.h_row_step) {
        const float* in = q.ring + q.row_offset[y] + q.x_offset;
        const float* hv = hrow;
        for (i64 x = 0; x < q.width; ++x, in += q.cin, hv += q.h2p) {
            vf v[CV];
#pragma GCC unroll 2
            for (int c = 0; c < CV; ++c) v[c] = TAIL && c == CV - 1 ? load_masked(in + c * W, mask) : load(in + c * W);
#pragma GCC unroll 9
            for (int m = 0; m < MB; ++m) {
                const vf b = broadcast(hv + m);
#pragma GCC unroll 2
                for (int c = 0; c < CV; ++c) acc[m * CV + c] = fma(v[c], b, acc[m * CV + c]);
            }
            if constexpr (SUM)
#pragma GCC unroll 2
                for (int c = 0; c < CV; ++c) acc[MB * CV + c] = acc[MB * CV + c] + v[c];
        }
    }
    auto put = [&](float* to, vf v, bool last) {
        if (TAIL && last)
            store_masked(to, mask, v);
        else
            store(to, v);
    };
#pragma GCC unroll 9
    for (int m = 0; m < MB; ++m)
#pragma GCC unroll 2
        for (int c = 0; c < CV; ++c) put(q.z + (m0 + m) * q.cin + c * W, acc[m * CV + c], c == CV - 1);
    if constexpr (SUM)
#pragma GCC unroll 2
        for (int c = 0; c < CV; ++c) put(q.z + q.s_offset + c * W, acc[MB * CV + c], c == CV - 1);
}

// The last tile of a pixel block: the features m0 .. h2 (fewer than kColumns) and S.
template <int CV, bool TAIL, int MB = 0>
inline __attribute__((always_inline)) void last_tile(const Pixel& q, i64 m0, i64 features, vmask mask) {
    if constexpr (MB + 1 < kColumns)
        if (features > MB) return last_tile<CV, TAIL, MB + 1>(q, m0, features, mask);
    tile<CV, MB, true, TAIL>(q, m0, mask);
}

// Channel vectors c0 .. c0 + CV of one pixel (q at c0): every column, in tiles of <= kColumns (the
// last one holding S).
template <int CV, bool TAIL>
inline __attribute__((always_inline)) void pixel_block(const Pixel& q, i64 h2, vmask mask) {
    i64 m0 = 0;
    for (; h2 + 1 - m0 > kColumns; m0 += kColumns) tile<CV, kColumns, false, TAIL>(q, m0, mask);
    last_tile<CV, TAIL>(q, m0, h2 - m0, mask);
}

// Pixels p0 .. p0 + count, each in blocks of 2 channel vectors, the last block LAST vectors, its last
// one masked when TAIL; pixel by pixel (its rows and features stay in L1).
template <int LAST, bool TAIL>
void contract_pixels(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                     i64 count, vmask mask, float* z) {
    const i64 K = p.kh * p.kw, h2 = p.h2, depth = p.in_channels * (h2 + 1);
    const i64 whole = ((p.in_channels + W - 1) / W - LAST) / 2;  // the blocks before the last
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, h += K * p.h2p, z += depth, ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const i64 fy = p.first_y[oy], fx = p.first_x[ox];
        const TapRange ry = taps_inside(fy, p.kh, p.in_h), rx = taps_inside(fx, p.kw, p.in_w);
        Pixel q{ring,
                row_offset,
                fy + ry.lo,
                fy + ry.hi,
                (fx + rx.lo) * p.in_channels,
                rx.hi - rx.lo,
                h + (ry.lo * p.kw + rx.lo) * p.h2p,
                p.kw * p.h2p,
                p.h2p,
                p.in_channels,
                z,
                h2 * p.in_channels};
        for (i64 b = 0; b < whole; ++b, q.x_offset += 2 * W, q.z += 2 * W) pixel_block<2, false>(q, h2, mask);
        pixel_block<LAST, TAIL>(q, h2, mask);
    }
}

}  // namespace

void cc_contract_channels_last(const CcContractProblem& p, const float* ring, const i64* row_offset, const float* h, i64 p0,
                    i64 count, float* z) {
    const i64 vectors = (p.in_channels + W - 1) / W, rest = p.in_channels % W;
    const vmask mask = lanes(rest == 0 ? W : rest);
    const auto f = vectors % 2 == 0 ? (rest ? &contract_pixels<2, true> : &contract_pixels<2, false>)
                                    : (rest ? &contract_pixels<1, true> : &contract_pixels<1, false>);
    f(p, ring, row_offset, h, p0, count, mask, z);
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
