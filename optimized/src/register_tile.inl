// A register tile's way to and from memory, written once for every kernel (blocked and depthwise)
// over the ISA vocabulary of isa_avx512.hpp / isa_avx2.hpp. A tile is R output pixels times NB
// vectors of channels: acc[r * NB + j] holds channels [j*W, j*W + W) of pixel r, and pixel r lives at
// at(r): y + r * y_pixel_step, or y + y_offsets[r] for pixels anywhere (the blocked kernel's bands). Only the first `valid` channels of a pixel may be touched: in a partial block
// the channels past `valid` belong to the next group or do not exist. A full tile moves straight
// between registers and y; a partial one goes through a copy on the stack. Both are always inlined
// into their kernel, where R and NB are constants, so acc stays in registers.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

inline i64 min_i64(i64 a, i64 b) { return a < b ? a : b; }

// Each pixel's address is found before the first store: a vector store may alias anything (the vector types are
// may_alias), so an address computed between stores is read again from memory for every vector (three loads a
// store in blocked_tile: the arguments, the offsets array, the offset).
template <int R, typename At>
[[gnu::always_inline]] inline void pixel_addresses(float** to, const At& at) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) to[r] = at(r);
}

template <int R, int NB, typename At>
[[gnu::always_inline]] inline void store_tile_at(const vf* acc, const At& at, i64 valid) {
    constexpr int B = NB * W;
    if (valid == B) {
        float* to[R];
        pixel_addresses<R>(to, at);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
            for (int j = 0; j < NB; ++j) store(to[r] + j * W, acc[r * NB + j]);
        return;
    }
    float tile[R * B];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) store(tile + r * B + j * W, acc[r * NB + j]);
    for (int r = 0; r < R; ++r)
        for (i64 c = 0; c < valid; ++c) at(r)[c] = tile[r * B + c];
}

template <int R, int NB>
[[gnu::always_inline]] inline void store_tile(const vf* acc, float* y, i64 y_pixel_step, i64 valid) {
    store_tile_at<R, NB>(acc, [=](int r) { return y + r * y_pixel_step; }, valid);
}

// A full tile (every channel exists) with non-temporal stores where the address allows, for output that
// would not stay in a cache: no read for ownership of its lines. The same floats; the caller fences.
inline bool stream_aligned(const float* p) { return reinterpret_cast<std::uintptr_t>(p) % (W * sizeof(float)) == 0; }

template <int R, int NB, typename At>
[[gnu::always_inline]] inline void stream_tile_at(const vf* acc, const At& at) {
    float* pixel[R];
    pixel_addresses<R>(pixel, at);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) {
            float* to = pixel[r] + j * W;
            if (stream_aligned(to)) stream(to, acc[r * NB + j]);
            else store(to, acc[r * NB + j]);
        }
}

// The reverse, for a kernel that continues a partial sum held in y: channels past `valid` read as 0.
template <int R, int NB, typename At>
[[gnu::always_inline]] inline void load_tile_at(vf* acc, const At& at, i64 valid) {
    constexpr int B = NB * W;
    if (valid == B) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
            for (int j = 0; j < NB; ++j) acc[r * NB + j] = load(at(r) + j * W);
        return;
    }
    float tile[R * B];
    for (int r = 0; r < R; ++r)
        for (i64 c = 0; c < B; ++c) tile[r * B + c] = c < valid ? at(r)[c] : 0.0f;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) acc[r * NB + j] = load(tile + r * B + j * W);
}

template <int R, int NB>
[[gnu::always_inline]] inline void load_tile(vf* acc, const float* y, i64 y_pixel_step, i64 valid) {
    load_tile_at<R, NB>(acc, [=](int r) { return y + r * y_pixel_step; }, valid);
}

}  // namespace
}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
