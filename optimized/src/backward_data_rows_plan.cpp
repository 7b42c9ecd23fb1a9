// The row kernel's plan (backward_data_rows_plan.hpp).
#include "backward_data_rows_plan.hpp"

#include "conversions.hpp"

namespace convcheck::optimized::detail {

bool rows_tiles_fit(const Geometry& g, int tile) {
    const i64 J = g.out[2], tiles = (J + tile - 1) / tile, small = J / tiles, bigger = J % tiles;
    for (i64 k = 0, w0 = 0; k < tiles; ++k) {  // the kernel's tiles (rows_backward_data)
        const i64 R = k < bigger ? small + 1 : small;
        for (i64 kw = 0; kw < g.kernel[2]; ++kw) {
            i64 a = 0, b = 0;
            rows_tap_pixels(g, w0, kw, R, &a, &b);
            if (a < b && (a > kRowsMaxSkip || R - b > kRowsMaxSkip)) return false;
        }
        w0 += R;
    }
    return true;
}

void pack_rows_weights(const float* from, i64 lanes, i64 reduction, i64 taps, i64 block, float* to) {
    for (i64 l = 0; l < lanes; ++l)  // the source's order (sequential reads)
        for (i64 r = 0; r < reduction; ++r)
            for (i64 t = 0; t < taps; ++t)
                to[((l / block * taps + t) * reduction + r) * block + l % block] = from[(l * reduction + r) * taps + t];
}

bool plan_rows(const ConvDescriptor& d, const std::vector<float>& canonical, bool avx512, RowsPlan& plan) {
    if (d.groups != 1) return false;
    const i64 W = avx512 ? 16 : 8, C = d.in_channels, O = d.out_channels;
    plan.phases = backward_data_phases(d);
    const std::size_t count = plan.phases.size();
    plan.geometries.assign(count, Geometry{});
    plan.kernels.assign(count, RowsBackwardData{});
    std::vector<i64> offsets(count, 0);
    i64 floats = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const Phase& p = plan.phases[i];
        if (!p.has_taps) continue;
        Geometry& g = plan.geometries[i];
        g = make_geometry(p.forward, 1);
        RowsBackwardData& k = plan.kernels[i];
        // NB by rows_choose_blocks' cost per row; measured on the Xeon (stride 1, 3x3, batch 8, 1 thread, ms for
        // NB = 2/3/4): 56 wide, 64 ch 13.5/18.1/11.4; 28 wide, 128 ch 12.0/13.0/11.3; 14 wide, 256 ch
        // 10.8/12.0/11.4; 7 wide, 512 ch 10.9/10.5/15.4 (tiles of 4 and 3 pixels each stream all the weights)
        rows_choose_blocks(g, C, avx512, &k.vector_blocks, &k.tile);
        if (!rows_tiles_fit(g, k.tile)) return false;
        const i64 block = k.vector_blocks * W;
        k.super_blocks = (C + block - 1) / block;
        offsets[i] = floats;
        floats += k.super_blocks * g.taps() * O * block;
    }
    plan.weights.assign(static_cast<std::size_t>(floats), 0.0f);
    const int shift = 3 - d.rank;
    for (std::size_t i = 0; i < count; ++i) {
        const Phase& p = plan.phases[i];
        if (!p.has_taps) continue;
        RowsBackwardData& k = plan.kernels[i];
        const i64 block = k.vector_blocks * W, T = plan.geometries[i].taps();
        const std::vector<unsigned char> w = phase_weights(d, p, canonical);  // [C][O][T] f32
        float* to = plan.weights.data() + offsets[i];
        pack_rows_weights(reinterpret_cast<const float*>(w.data()), C, O, T, block, to);
        k.geometry = &plan.geometries[i];
        k.weights = to;
        for (int a = 0; a < d.rank; ++a) {
            k.X[shift + a] = d.input_size[a];
            k.r[shift + a] = p.axis[a].residue;
            k.S[shift + a] = p.axis[a].step;
        }
    }
    return true;
}

}  // namespace convcheck::optimized::detail
