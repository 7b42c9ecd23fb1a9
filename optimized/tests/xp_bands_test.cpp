// The padded input in bands (optimized/src/padded_input_parts.hpp): a blocked plan whose padded input may not
// hold one image (Options::padded_input_budget) packs and runs each image in bands of its work items (of
// pixel chunks of the output plane, or of output planes in 3-D), each band's padded input holding only the
// input rows the band reads. It must give the bits of the same plan with the whole batch packed at once:
// the same taps of the same pixels, summed in the same order. The shapes need several bands, with dilations and pads that make the taps of a
// band's first and last rows fall in the padding (benchdnn shapes_gemm's 1000x1000 layer with dilation
// 128 and pads 128 is what needs bands at the rule's own budget).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "convcheck/core/dtype.hpp"
#include "convcheck/optimized/conv_plan.hpp"

using namespace convcheck;
using namespace convcheck::optimized;

namespace {

// Buffers of d's dtype with small exact values (and zeros and negative zeros among them).
std::vector<std::uint16_t> half_values(std::size_t n, int step, DataType dtype) {
    std::vector<std::uint16_t> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float v = float(int((i * step) % 17) - 8) / 8.0f;
        out[i] = dtype == DataType::f16 ? f32_to_f16(v) : f32_to_bf16(v);
    }
    return out;
}

std::vector<float> float_values(std::size_t n, int step) {
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = float(int((i * step) % 17) - 8) / 8.0f;
    return out;
}

// dst of a plan of `path` with the given padded-input budget, as bytes.
template <typename T>
std::vector<unsigned char> run(const ConvDescriptor& d, Path path, std::int64_t budget, const std::vector<T>& src,
                               const std::vector<T>& weights, const std::vector<T>& bias) {
    std::vector<T> dst(d.dst_elements());
    Options options{2, path};
    options.padded_input_budget = budget;
    const ConvPlan plan(d, weights.data(), d.has_bias ? bias.data() : nullptr, options);
    plan.execute(src.data(), dst.data());
    const auto* bytes = reinterpret_cast<const unsigned char*>(dst.data());
    return {bytes, bytes + dst.size() * sizeof(T)};
}

template <typename T>
void expect_bands_give_the_whole_images_bits(const ConvDescriptor& d, const std::vector<T>& src,
                                             const std::vector<T>& weights, const std::vector<T>& bias,
                                             const char* data = "values i*step mod 17") {
    for (const Path path : {Path::blocked_avx2, Path::blocked_avx512}) {
        if (!why_unavailable(d, path).empty()) continue;
        const auto whole = run(d, path, std::int64_t{1} << 40, src, weights, bias);
        // 1 byte: the smallest band (one plane, or the rows of one pixel chunk); 64 KiB: a few of those
        for (const std::int64_t budget : {std::int64_t{1}, std::int64_t{64} << 10})
            EXPECT_TRUE(run(d, path, budget, src, weights, bias) == whole)
                << "reproduce: " << to_string(d) << " path=" << to_string(path) << " padded_input_budget=" << budget
                << " (no seed: " << data << ")";
    }
}

void check(const std::string& text) {
    const ConvDescriptor d = parse_descriptor(text);
    if (d.dtype == DataType::f32) {
        const std::vector<float> src = float_values(d.src_elements(), 5), bias = float_values(d.bias_elements(), 7);
        std::vector<float> weights = float_values(d.weights_elements(), 3);
        expect_bands_give_the_whole_images_bits(d, src, weights, bias);
        // the same taps: an infinite weight at tap 0 (the first kernel row) makes every output that visits
        // it in the padding NaN (0 x inf), and a register tile skips a tap only when the tap lies in the
        // padding for every pixel of the tile: bands that cut the image's tiles differently differ here
        weights[0] = std::numeric_limits<float>::infinity();
        expect_bands_give_the_whole_images_bits(d, src, weights, bias, "values i*step mod 17, weights[0] = inf");
    } else {
        expect_bands_give_the_whole_images_bits(d, half_values(d.src_elements(), 5, d.dtype),
                                               half_values(d.weights_elements(), 3, d.dtype),
                                               half_values(d.bias_elements(), 7, d.dtype));
    }
}

}  // namespace

// Bands of pixel chunks (AVX2 128 to 384 pixels, AVX-512 up to 448) that begin and end inside rows, and
// register tiles that span rows: 1920 to 4224 output pixels make several bands.
TEST(XpBands, BandsOfRowsGiveTheWholeImagesBits) {
    check("conv:n=2,c=16,o=16,in=30x64,k=3x3,d=6x9,pb=5x9,pe=7x9,bias=1");                     // NCX f32
    check("conv:n=1,c=16,o=24,in=34x66,k=3x3,s=1x1,d=8x1,pb=6x0,pe=4x0,data=nxc,bias=1");       // NXC, crop
    check("conv:n=1,c=5,o=8,in=33x128,k=5x3,s=2x2,d=4x2,pb=9x3,pe=3x0,dt=f16,data=nxc,wei=xio"); // widened
    check("conv:n=1,c=24,o=16,g=2,in=30x64,k=3x3,d=7x7,pb=8x7,pe=7x7,dt=bf16");                  // groups
    check("conv:n=1,c=16,o=48,in=60x64,k=1x1,s=2x2,pb=7x3,pe=7x3,bias=1");  // 1x1: super blocks innermost
    // pixels in groups of like taps (taps x ICg >= 256): the same groups in every band
    check("conv:n=1,c=32,o=16,in=30x64,k=3x3,d=6x9,pb=5x9,pe=7x9,bias=1,data=nxc");
}

// Planes: a 3-D image in bands of output planes.
TEST(XpBands, BandsOfPlanesGiveTheWholeImagesBits) {
    check("conv:n=2,c=8,o=16,in=12x9x10,k=3x3x3,d=3x2x1,pb=4x2x1,pe=2x2x1,bias=1");
    check("conv:n=1,c=16,o=8,in=10x8x8,k=2x3x3,s=2x1x1,pb=1x1x1,pe=1x1x1,data=nxc");
}

// benchdnn shapes_gemm's 1000x1000 layer with dilation 128 and pads 128: one image whose padded input
// alone is 1.58x the input, which no path held within the rule before bands; in bands the blocked paths
// keep it, and the dispatcher takes one (estimates only; bench_memory_rules measures an analogue).
TEST(XpBands, TheDilatedGemmLayerKeepsTheRuleInBands) {
    const ConvDescriptor d = parse_descriptor("conv:n=1,c=64,o=64,in=1000x1000,k=3x3,d=128x128,pb=128x128,pe=128x128,bias=1");
    if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the blocked paths need AVX2 and FMA";
    EXPECT_TRUE(within_memory_rule(d, Path::blocked_avx2)) << to_string(d) << " needs " << path_memory_bytes(d, Path::blocked_avx2);
    const Path chosen = choose_path(d);
    EXPECT_TRUE(chosen == Path::blocked_avx2 || chosen == Path::blocked_avx512) << to_string(chosen);
}
