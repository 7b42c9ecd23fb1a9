// The AMX kernel of the quantized plan's VNNI path (quantized_vnni.hpp): the same copy, the same packed weights (a
// block's 16 quads of input channels x 16 output channels x 4 bytes are one 1 KB B tile, as TDPBUSD reads it), the
// same compensation; a tile of 16 output pixels x 64 input channels (a row of the copy every pixel_step bytes) is one
// A tile. TDPBUSD sums u8 x s8 products exactly into s32 (modulo 2^32, as VPDPBUSD). Compiled with AMX-TILE and
// AMX-INT8; run only where the CPU has them and Linux grants the tile data (arch_prctl).
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cpuid.h>
#include <cstdlib>
#include <cstring>

#include "quantized_kernels.hpp"

namespace convcheck::optimized::detail {
namespace {

using i64 = std::int64_t;

// The tile registers: C (s32 accumulators) 0..3 as [pixel tile][block], A (src) 4, 5, B (weights) 6, 7.
struct alignas(64) TileConfig {
    std::uint8_t palette = 1, start_row = 0, reserved[14]{};
    std::uint16_t colsb[16]{};
    std::uint8_t rows[16]{};
};
static_assert(sizeof(TileConfig) == 64);

// The first pixel tile has rows0 pixels (tiles C 0, 1 and A 4), the second rows1 (C 2, 3 and A 5); K is k_bytes
// (A's columns, B's rows of 4 bytes).
TileConfig config(int rows0, int rows1, std::int64_t k_bytes) {
    TileConfig c;
    for (int t = 0; t < 8; ++t) c.colsb[t] = 64;
    c.colsb[4] = c.colsb[5] = static_cast<std::uint16_t>(k_bytes);
    c.rows[0] = c.rows[1] = c.rows[4] = static_cast<std::uint8_t>(rows0);
    c.rows[2] = c.rows[3] = c.rows[5] = static_cast<std::uint8_t>(rows1);
    c.rows[6] = c.rows[7] = static_cast<std::uint8_t>(k_bytes / 4);  // B: quads of input channels
    return c;
}

// GCC does not see _tile_loadconfig read its operand, and drops the stores of a configuration built on the stack:
// the asm statement hands the address over and clobbers memory, so the configuration is written first.
void load_config(const TileConfig& c) {
    asm volatile("" : : "r"(&c) : "memory");
    _tile_loadconfig(&c);
}

// The accumulator tiles stored and loaded back every kSpillSteps steps of K (64 bytes of a tap each), which keeps
// the tile loop near its rate on long sums. Measured (1 thread, ms, AMX): res4_3x3 (36 steps) 0.078-0.085 without,
// 0.061-0.069 with 9 (6: 0.070-0.073, 12: 0.063-0.069); res4_3x3s2 0.093-0.095 against 0.078-0.086; the layers of
// at most 18 steps, res4_1x1_1024 and res5_3x3 unchanged. A prefetch of the accumulators' lines before the last
// steps instead gained nothing: the store and load themselves help.
constexpr std::int64_t kSpillSteps = 9;

// MA pixel tiles (1, 2) x NB blocks (1, 2) from pixel p0 and block j0; the tiles configured for their rows.
template <int MA, int NB>
void tiles(const AmxRow& r, i64 p0, int j0) {
    const i64 acc_stride = r.blocks * 64;  // bytes per pixel of acc
    const std::int32_t* comp = r.compensation_rows + j0 * 256;
    _tile_loadd(0, comp, 64);
    if constexpr (NB == 2) _tile_loadd(1, comp + 256, 64);
    if constexpr (MA == 2) {
        _tile_loadd(2, comp, 64);
        if constexpr (NB == 2) _tile_loadd(3, comp + 256, 64);
    }
    const std::uint8_t* a0 = r.src + p0 * r.pixel_step;
    const std::uint8_t* a1 = a0 + 16 * r.pixel_step;
    const std::int8_t* w = r.weights + j0 * r.block_stride;
    std::int32_t* out = r.acc + p0 * r.blocks * 16 + j0 * 16;
    const auto spill = [&] {
        _tile_stored(0, out, acc_stride);
        if constexpr (NB == 2) _tile_stored(1, out + 16, acc_stride);
        if constexpr (MA == 2) {
            _tile_stored(2, out + 16 * r.blocks * 16, acc_stride);
            if constexpr (NB == 2) _tile_stored(3, out + 16 * r.blocks * 16 + 16, acc_stride);
        }
    };
    const auto reload = [&] {
        _tile_loadd(0, out, acc_stride);
        if constexpr (NB == 2) _tile_loadd(1, out + 16, acc_stride);
        if constexpr (MA == 2) {
            _tile_loadd(2, out + 16 * r.blocks * 16, acc_stride);
            if constexpr (NB == 2) _tile_loadd(3, out + 16 * r.blocks * 16 + 16, acc_stride);
        }
    };
    const i64 steps = r.taps * r.chunks;
    i64 step = 0;
    for (i64 t = 0; t < r.taps; ++t)
        for (i64 k = 0; k < r.chunks; ++k, ++step) {
            if (step > 0 && step % kSpillSteps == 0 && steps - step >= 4) spill(), reload();
            const i64 at = r.tap_offset[t] + 64 * k;
            const std::int8_t* b = w + t * r.step_bytes + k * 1024;
            // each load just before its first product: a tile register is loaded only once its last reader is done
            _tile_loadd(4, a0 + at, r.pixel_step);
            _tile_loadd(6, b, 64);
            _tile_dpbusd(0, 4, 6);
            if constexpr (NB == 2) {
                _tile_loadd(7, b + r.block_stride, 64);
                _tile_dpbusd(1, 4, 7);
            }
            if constexpr (MA == 2) {
                _tile_loadd(5, a1 + at, r.pixel_step);
                _tile_dpbusd(2, 5, 6);
                if constexpr (NB == 2) _tile_dpbusd(3, 5, 7);
            }
        }
    spill();
}

template <int MA>
void blocks_of(const AmxRow& r, i64 p0) {
    int j = 0;
    for (; j + 2 <= r.blocks; j += 2) tiles<MA, 2>(r, p0, j);
    if (j < r.blocks) tiles<MA, 1>(r, p0, j);
}

bool cpu_has_amx_int8() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    return (d >> 24 & 1) && (d >> 25 & 1);  // AMX-TILE, AMX-INT8
}

}  // namespace

bool amx_usable() {
    static const bool usable = [] {
        const char* off = std::getenv("CONVCHECK_NO_AMX");
        if (off != nullptr && std::strcmp(off, "1") == 0) return false;
        if (!cpu_has_amx_int8()) return false;
        constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;  // Linux: ask for the tile data state
        return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
    }();
    return usable;
}

void amx_begin(std::int64_t k_bytes) {
    load_config(config(16, 16, k_bytes));
}

void amx_end() { _tile_release(); }

void dense_row_amx(const AmxRow& r) {
    i64 p = 0;
    for (; p + 32 <= r.width; p += 32) blocks_of<2>(r, p);
    const i64 rest = r.width - p;
    if (rest == 0) return;
    // the last one or two pixel tiles, the last of them rest % 16 rows; then the full configuration again
    const int tail = static_cast<int>(rest % 16 == 0 ? 16 : rest % 16);
    load_config(rest > 16 ? config(16, tail, r.k_bytes) : config(tail, 16, r.k_bytes));
    if (rest > 16) blocks_of<2>(r, p);
    else blocks_of<1>(r, p);
    amx_begin(r.k_bytes);
}

}  // namespace convcheck::optimized::detail
