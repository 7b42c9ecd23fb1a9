// Forward layers on the row kernel (forward_rows.hpp).
#include "forward_rows.hpp"

#include <algorithm>

#include "conversions.hpp"

namespace convcheck::optimized::detail {

// NB (vectors of output channels per tile) and the widest tile for the row kernel on g with `lanes` channels
// per output, by a cost per output row in vector FMAs and loads per (tap, input channel): every vector of
// channels (padded) times the row's pixels, one weight load per vector per tile, and half a load per pixel
// per super block for its broadcast (measured on the Xeon for backward data, backward_data_rows_plan.cpp).
void rows_choose_blocks(const Geometry& g, i64 lanes, bool avx512, int* nb, int* tile) {
    const i64 W = avx512 ? 16 : 8, J = g.out[2];
    const int most = avx512 ? avx512::rows_max_blocks() : avx2::rows_max_blocks();
    double least = 0;
    *nb = 0;
    for (int b = most; b >= 1; --b) {
        const i64 sb = (lanes + b * W - 1) / (b * W), r = avx512 ? avx512::rows_tile_width(b) : avx2::rows_tile_width(b);
        const i64 tiles = (J + r - 1) / r;
        const double cost = static_cast<double>(sb * b) * static_cast<double>(J + tiles) + 0.5 * static_cast<double>(sb * J);
        if (*nb == 0 || cost < least) least = cost, *nb = b, *tile = static_cast<int>(r);
    }
}

namespace {
constexpr i64 kMaxWeightBytes = i64{2} << 20;

// The forward's blocks: rows_choose_blocks', or on rows of 4 to rows_pair_width() outputs (7 on AVX-512), NB = 2
// and tiles of two whole rows (RowsBackwardData::tile_rows): a tile of one 7-wide row loads a weight vector for
// every 7 FMAs, which the weights' stream from L2 could not keep up with (res5_3x3: 512 channels, 7x7)
void forward_rows_blocks(const Geometry& g, bool avx512, int* nb, int* tile, int* tile_rows) {
    const i64 J = g.out[2];
    const int pair = avx512 ? avx512::rows_pair_width() : avx2::rows_pair_width();
    *tile_rows = 1;
    if (J >= 4 && J <= pair && g.out[1] >= 2) {
        *nb = 2, *tile = static_cast<int>(J), *tile_rows = 2;
        return;
    }
    rows_choose_blocks(g, g.out_channels, avx512, nb, tile);
}

// Super blocks per group (RowsBackwardData::group). In the order (super block, n, jd, jh) every image's input
// streams from L3 once per super block when the batch's input passes half the L2: then groups of super blocks whose
// weights fill at most half the L2 run (group, n, jd, jh, super block), each input row serving the group while in L1,
// the group's weights kept in L2 over the images. Measured on the Xeon, batch 8, 1 thread, under load
// (bench/results/forward-rows.md): res4_3x3s2 (8 super blocks of 295 KB, 14-wide rows) 3-7 % faster with G = 3
// (G = 8: 7 % slower), res4_3x3 1-3 %; at batch 1 res4_3x3 lost 1-3 % (its input fits in L2 next to one super
// block's weights), hence the input bound. On rows of several tiles (NB = 4) batches keep G = 1 (res3_3x3s2 at batch 8
// 1-13 % slower with G = 2 in the bench table, res3_3x3 1-1.5 %: they run image by image), but a single image groups:
// res3_3x3s2 at batch 1 (2 super blocks of 295 KB, a 1.6 MB input streamed from L3 once per super block) 0.5-2 %
// faster in the table, 1.6-2.7 % in a harness (bench/results/forward-rows.md, "Groups on rows of several tiles").
// One image's f32 input, in bytes.
i64 image_input_bytes(const Geometry& g) { return g.in[0] * g.in[1] * g.in[2] * g.in_channels * 4; }

i64 forward_rows_group(const Geometry& g, const RowsBackwardData& k, i64 super_block_bytes) {
    if (g.batch * image_input_bytes(g) <= kMaxWeightBytes / 2 || (g.batch > 1 && k.tile_rows == 1 && g.out[2] > k.tile))
        return 1;
    return std::min(k.super_blocks, std::max<i64>(1, kMaxWeightBytes / 2 / super_block_bytes));
}

// Whether the work rows run image by image (RowsBackwardData::image_major) where no groups run: the order (super block,
// n, jd, jh) streams every image's input from L3 once per super block, (n, super block, jd, jh) every super block's
// weights once per image; the second where a super block's weights are smaller than an image's input, the batch's
// input passes half the L2 and one image's input fits in the L2 next to a super block's weights. Measured on the Xeon,
// batch 8, 1 thread, under load (bench/results/forward-rows.md, "Batch 8, image by image"): aspp_3x3_rate6 (4
// super blocks of 590 KB, 1.1 MB an image) 3 % faster interleaved with oneDNN's runs, 1.5 % back to back; res3_3x3s2
// (2 of 295 KB, 1.6 MB an image) faster interleaved (noisy), res3_3x3 (2 of 295 KB, 400 KB an image) unchanged.
bool forward_rows_image_major(const Geometry& g, const RowsBackwardData& k, i64 super_block_bytes) {
    const i64 image_bytes = image_input_bytes(g);
    return k.group == 1 && k.super_blocks > 1 && g.batch > 1 && g.batch * image_bytes > kMaxWeightBytes / 2 &&
           super_block_bytes < image_bytes && image_bytes + super_block_bytes <= kMaxWeightBytes;
}
}  // namespace

i64 forward_rows_pitch(const Geometry& g) {
    const i64 C = g.in_channels, floats_per_4k = 1024;
    return g.out[2] > 1 && C * g.stride[2] % floats_per_4k == 0 ? C + 16 : 0;
}

i64 forward_rows_copy_floats(const ConvDescriptor& d) {
    const Geometry g = make_geometry(d, 1);
    return forward_rows_pitch(g) * g.batch * g.in[0] * g.in[1] * g.in[2];
}

bool forward_rows_fit(const ConvDescriptor& d, bool avx512) {
    if (d.groups != 1 || d.dtype != DataType::f32 || d.data_format != DataFormat::nxc) return false;
    if (!d.src_strides.empty() || !d.dst_strides.empty()) return false;
    i64 taps = 1;
    bool strided = false;
    for (int a = 0; a < d.rank; ++a) {
        if (d.pads_begin[a] < 0 || d.pads_end[a] < 0) return false;
        taps *= d.kernel_size[a];
        strided = strided || (d.strides[a] > 1 && d.output_size(a) > 1);
    }
    // a strided layer with few products per output (conv1: 7x7 over 3 channels, 147) keeps the register tiles,
    // whose kw taps merge into one long input-channel loop: measured under load, 1 thread, batch 8, conv1
    // 12.5-14.4 ms either way, while res4_3x3s2 went 11.9-12.0 -> 11.4-11.5 and res5_3x3s2 12.7-12.9 -> 11.4-11.6
    if (taps == 1 || (strided && taps * d.in_channels < kBlockedGroupFrom)) return false;
    const Geometry g = make_geometry(d, 1);
    int nb = 0, tile = 0, tile_rows = 1;
    forward_rows_blocks(g, avx512, &nb, &tile, &tile_rows);
    // Every tile streams its super block's weights (taps x C x NB*W floats) whole, where the register tiles
    // block the input channels to keep theirs in L2: beyond the L2 of one core (2 MiB on the Xeon), the row
    // kernel lost (1 thread, CPU clock, batch 1, 3x3 at 7x7, 2048 -> 512 channels: 3.5 MiB, 12.0-12.5 ms
    // against 8.4-9.0 for the tiles on NCHW buffers, their transposes included)
    const i64 weight_bytes = g.taps() * g.in_channels * nb * (avx512 ? 16 : 8) * 4;
    return weight_bytes <= kMaxWeightBytes && rows_tiles_fit(g, tile);
}

i64 forward_rows_floats(const ConvDescriptor& d, bool avx512) {
    const Geometry g = make_geometry(d, 1);
    int nb = 0, tile = 0, tile_rows = 1;
    forward_rows_blocks(g, avx512, &nb, &tile, &tile_rows);
    const i64 block = nb * (avx512 ? 16 : 8), super_blocks = (g.out_channels + block - 1) / block;
    return super_blocks * block * (g.taps() * g.in_channels + 1);
}

void plan_forward_rows(const ConvDescriptor& d, const float* canonical, const std::vector<float>& bias, bool avx512,
                       ForwardRows& plan) {
    plan.geometry = make_geometry(d, 1);
    const Geometry& g = plan.geometry;
    RowsBackwardData& k = plan.kernel;
    forward_rows_blocks(g, avx512, &k.vector_blocks, &k.tile, &k.tile_rows);
    const i64 W = avx512 ? 16 : 8, block = k.vector_blocks * W, O = g.out_channels, C = g.in_channels, T = g.taps();
    k.super_blocks = (O + block - 1) / block;
    plan.weights.assign(static_cast<std::size_t>(k.super_blocks * T * C * block), 0.0f);
    pack_rows_weights(canonical, O, C, T, block, plan.weights.data());
    if (!bias.empty()) {
        plan.bias.assign(static_cast<std::size_t>(k.super_blocks * block), 0.0f);
        for (i64 o = 0; o < O; ++o) plan.bias[static_cast<std::size_t>(o)] = bias[static_cast<std::size_t>(o)];
    }
    k.geometry = &plan.geometry;
    k.weights = plan.weights.data();
    k.bias = plan.bias.empty() ? nullptr : plan.bias.data();
    const i64 super_block_bytes = T * C * block * 4;  // one super block's packed weights
    k.group = forward_rows_group(g, k, super_block_bytes);
    k.image_major = forward_rows_image_major(g, k, super_block_bytes);
    k.pixel_pitch = forward_rows_pitch(g);
    for (int a = 0; a < 3; ++a) k.X[a] = g.out[a];  // dst: the outputs themselves, r = 0, S = 1
}

}  // namespace convcheck::optimized::detail
