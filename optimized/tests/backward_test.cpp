// The optimized backward passes agree with the reference's (reference/backward.hpp) on every path:
// within the accuracy contract's bound (each gradient element's own magnitude and term count) on
// random data, exactly on integer data, and bitwise the same for 1, 2 and 3 threads.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <optional>

#include "backward_harness.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// Random backward cases of every feature; depthwise (with and without a multiplier) and wide output
// channels (several vector blocks, a partial one) are biased in, strides up to 4 (phases with no tap).
rc::Gen<ConvDescriptor> any_backward_descriptor() {
    return rc::gen::exec([] {
        testgen::DescriptorLimits limits;
        limits.max_stride = 4;
        ConvDescriptor d = *testgen::valid_descriptor(limits);
        const int shape = *rc::gen::inRange(0, 4);
        if (shape == 1) {  // depthwise, up to 40 channels (channel blocks with tails), sometimes a multiplier
            d.groups = *rc::gen::inRange<std::int64_t>(1, 41);
            d.in_channels = d.groups;
            d.out_channels = d.groups * *rc::gen::element<std::int64_t>(1, 1, 2);
        } else if (shape == 2) {  // wide output channels
            d.out_channels = d.groups * *rc::gen::inRange<std::int64_t>(5, 70);
        }
        d.pass = *rc::gen::element(Pass::backward_data, Pass::backward_weights);
        return d;
    });
}

// One case's data and the reference's gradients of it, computed once and shared by every path checked on it.
struct Expected {
    BackwardData data;
    reference::GradientResult want;
};

Expected bound_case(const ConvDescriptor& d, std::uint64_t seed) {
    BackwardData data = make_backward_data(d, seed, 0);
    reference::GradientResult want = expected(d, data);
    return {std::move(data), std::move(want)};
}

// Exact data (integers small enough that every partial sum is exact), or nothing where none keeps them exact.
std::optional<Expected> exact_case(const ConvDescriptor& d, std::uint64_t seed) {
    const int m = exact_magnitude(d);
    if (m == 0) return std::nullopt;
    BackwardData data = make_backward_data(d, seed, m);
    reference::GradientResult want = expected(d, data);
    return Expected{std::move(data), std::move(want)};
}

::testing::AssertionResult within_bound(const ConvDescriptor& d, const Expected& e, std::uint64_t seed, Path path,
                                        int threads) {
    const accuracy::Contract contract{d.dtype, DataType::f32};
    const Gradients got = run_backward(d, e.data, Options{threads, path});
    const accuracy::Comparison r = accuracy::compare_bound(contract, e.want.values, e.want.magnitude, e.want.terms, got.values);
    if (r.passed()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << backward_reproducer(d, path, seed, threads) << ": " << r.mismatches
                                         << " elements out of bound, worst at " << r.worst_index << " got " << r.worst_got
                                         << " want " << r.worst_want << " bound " << r.worst_bound;
}

::testing::AssertionResult within_bound(const ConvDescriptor& d, std::uint64_t seed, Path path, int threads) {
    return within_bound(d, bound_case(d, seed), seed, path, threads);
}

::testing::AssertionResult exact(const ConvDescriptor& d, const std::optional<Expected>& e, std::uint64_t seed, Path path,
                                 int threads) {
    if (!e) return ::testing::AssertionSuccess();  // no data keeps every partial sum exact
    const accuracy::Comparison r = accuracy::compare_exact(e->want.values, run_backward(d, e->data, Options{threads, path}).values);
    if (r.passed()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << backward_reproducer(d, path, seed, threads) << " (exact, m="
                                         << exact_magnitude(d) << "): " << r.mismatches << " elements differ, first at "
                                         << r.first_mismatch;
}

::testing::AssertionResult exact(const ConvDescriptor& d, std::uint64_t seed, Path path, int threads) {
    return exact(d, exact_case(d, seed), seed, path, threads);
}

}  // namespace

RC_GTEST_PROP(Backward, EveryPathIsWithinTheBoundOnRandomData, ()) {
    const ConvDescriptor d = *any_backward_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    RC_TAG(std::string(to_string(d.pass)));
    for (const Path path : backward_paths(d)) {
        const auto r = within_bound(d, seed, path, 0);
        if (!r) RC_FAIL(r.message());
    }
}

RC_GTEST_PROP(Backward, EveryPathIsExactOnIntegerData, ()) {
    const ConvDescriptor d = *any_backward_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    for (const Path path : backward_paths(d)) {
        const auto r = exact(d, seed, path, 0);
        if (!r) RC_FAIL(r.message());
    }
}

RC_GTEST_PROP(Backward, OneTwoAndThreeThreadsGiveTheSameBits, ()) {
    const ConvDescriptor d = *any_backward_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const BackwardData data = make_backward_data(d, seed, 0);
    for (const Path path : backward_paths(d)) {
        const Gradients one = run_backward(d, data, Options{1, path});
        for (const int threads : {2, 3}) {
            const Gradients more = run_backward(d, data, Options{threads, path});
            const bool bias = d.pass == Pass::backward_weights && d.has_bias;  // raw_bias holds diff_bias then only
            if (std::memcmp(one.raw.data(), more.raw.data(), one.raw.bytes()) != 0 ||
                (bias && std::memcmp(one.raw_bias.data(), more.raw_bias.data(), one.raw_bias.bytes()) != 0))
                RC_FAIL(backward_reproducer(d, path, seed, threads) + ": 1 and " + std::to_string(threads) +
                        " threads differ");
        }
    }
}

// Geometries random descriptors reach rarely: strides past the kernel (phases no tap reaches),
// dilations sharing a factor with the stride, crops, 3-D, depthwise layers whose few work items are
// cut into parts (a long reduction over a large batch), several tiles and vector blocks.
TEST(Backward, HandPickedGeometriesAreExactAndWithinTheBound) {
    const char* cases[] = {
        "conv:n=2,c=3,o=4,in=11x9,k=1x2,s=3x4,pb=0x1,pe=2x0,bias=1",
        "conv:n=1,c=4,o=6,g=2,in=13x12,k=3x3,s=2x2,d=2x4,pb=3x-1,pe=-2x2,data=nxc,wei=xio",
        "conv:n=2,c=5,o=3,in=5x6x7,k=2x3x2,s=2x1x3,d=1x2x1,pb=1x-1x0,pe=0x1x2,bias=1,dt=bf16",
        "conv:n=8,c=48,o=48,g=48,in=20x20,k=3x3,s=1x1,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=1,c=32,o=32,g=32,in=15x15,k=3x3,s=2x2,pb=0x0,pe=1x1,dt=f16,data=nxc",
        "conv:n=2,c=37,o=70,in=9x8,k=3x3,pb=1x1,pe=1x1,bias=1",
        "conv:n=1,c=3,o=20,in=23x23,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc,wei=xio",
        "conv:n=3,c=6,o=6,g=3,in=4x8x1,k=1x2x1,s=1x1x3,d=3x1x1,pb=0x-2x-2,pe=-1x-2x2,bias=1",
        // backward data's kernels of their own (f32 channels last): few input channels, O a multiple of
        // the vector width (ResNet's first layer; 1-D, 3-D, crops, dilations); strided depthwise
        "conv:n=2,c=3,o=16,in=23x21,k=7x7,s=2x2,pb=3x3,pe=2x3,data=nxc,wei=xio",
        "conv:n=1,c=1,o=32,in=9x10,k=3x2,s=3x2,d=2x1,pb=2x-1,pe=1x2,data=nxc",
        "conv:n=1,c=4,o=16,in=5x6x7,k=2x3x2,s=2x1x2,pb=1x0x1,pe=0x1x0,data=nxc",
        "conv:n=2,c=2,o=32,in=15,k=5,s=3,pb=2,pe=1,data=nxc",
        "conv:n=2,c=20,o=20,g=20,in=9x11,k=3x3,s=2x2,d=1x2,pb=1x0,pe=0x2,data=nxc",
        // the pointwise one (1x1, stride 1): a partial vector block, several chunks of pixels and a
        // partial tile, the prefetch running into the next chunk; 3-D; one vector block; several super
        // blocks of input channels, the last one partial
        "conv:n=2,c=20,o=37,in=9x31,k=1x1,bias=1,data=nxc",
        "conv:n=2,c=70,o=33,in=7x9,k=1x1,data=nxc",
        "conv:n=1,c=16,o=96,in=5x6x7,k=1x1x1,data=nxc,wei=xio",
        "conv:n=3,c=8,o=5,in=50,k=1,data=nxc",
        // ... in quads of o (AVX-512, one vector, O a multiple of 4): a partial vector and a partial last tile
        // (50 pixels: 8 tiles of 6 and one of 2); five super blocks of one vector and O = 12 (a line of o
        // shorter than 16); 84 o (five lines and a quarter: the short quad loop after full lines)
        "conv:n=2,c=12,o=20,in=5x5,k=1x1,bias=1,data=nxc",
        "conv:n=1,c=80,o=12,in=7x5,k=1x1,data=nxc",
        "conv:n=2,c=16,o=84,in=9x11,k=1x1,data=nxc",
        // depthwise backward weights with many channels: diff_dst read in place (C a multiple of the
        // lanes) and packed rows a vector apart (padded width 16); C not a multiple of the lanes (a
        // copy, diff_dst packed, its rows 16 wide); the 3x3 stride-1 window on both
        "conv:n=2,c=264,o=264,g=264,in=6x14,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=1,c=260,o=260,g=260,in=5x16,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        // the window with no padding along the width (its last two columns read x, not zeros)
        "conv:n=2,c=24,o=24,g=24,in=7x9,k=3x3,pb=1x0,pe=1x0,bias=1,data=nxc",
        // backward weights, 1x1: 1350 pixels in blocks of 512 (an item's diff_dst lines 40 or 48 floats a
        // pixel) or 1024 (8) and a short last one after a prefetched one; 646 pixels in five blocks of 128
        // (256 floats a pixel) and a last one of 6; bias summed on the way
        "conv:n=2,c=24,o=40,in=25x27,k=1x1,bias=1,data=nxc",
        "conv:n=2,c=24,o=256,in=19x17,k=1x1,bias=1,data=nxc",
        // ... and with taps: conv1's 7 taps x 3 channels read in place across a kernel row, 2240 pixels in blocks
        // of 1024 (16 lanes), a block's rows crossing from one image to the next; a 3x3 layer reading x without
        // its padding (runs of pixels per block), two parts of 800 pixels in blocks of 128 (256 lanes)
        "conv:n=2,c=3,o=16,in=64x70,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc",
        "conv:n=2,c=32,o=256,in=20x40,k=3x3,pb=1x1,pe=1x1,data=nxc",
        // 1x1 layers: with a stride the pixels are not evenly spaced in the padded input (read through
        // the per-pixel offsets, not a constant step); with a crop they are again, in the padded copy
        "conv:n=2,c=20,o=24,in=9x11,k=1x1,s=2x2,pb=1x0,pe=0x1,bias=1,data=nxc",
        "conv:n=1,c=12,o=16,in=6x10,k=1x1,pb=0x1,pe=0x-2,data=nxc",
        // depthwise backward weights whose input lies wholly outside the padded row along the width: a left
        // pad beyond the padded width, and the input cropped off entirely (a random seed wrote past the
        // packed row's slot here: ASan's heap-buffer-overflow, free(): invalid pointer without it)
        "conv:n=2,c=16,o=16,g=16,in=4x3,k=3x3,pb=1x5,pe=1x-4,bias=1,data=nxc",
        "conv:n=2,c=16,o=16,g=16,in=4x3,k=3x3,pb=1x-4,pe=1x5,data=nxc",
        // depthwise backward weights reading x and diff_dst in place (C a multiple of the lane block: 32
        // with AVX-512, 8 with AVX2), zeros for the padding columns: the window with a left pad past its
        // peeled columns, with its fewest columns (2), with pads wider than the input; strided tiles with
        // two lane blocks and a right pad of 2; 25 taps (three tiles) dilated along the width, pixels
        // whose taps all fall in the padding
        "conv:n=2,c=32,o=32,g=32,in=6x9,k=3x3,pb=1x2,pe=1x1,bias=1,data=nxc",
        "conv:n=1,c=32,o=32,g=32,in=4x2,k=3x3,pb=1x1,pe=1x1,data=nxc",
        // f32 XIO depthwise weights: the gradient [taps][C] and the bias copied out whole
        "conv:n=2,c=48,o=48,g=48,in=5x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio",
        "conv:n=1,c=32,o=32,g=32,in=3x2,k=3x3,pb=0x3,pe=0x3,bias=1,data=nxc",
        "conv:n=2,c=64,o=64,g=64,in=7x11,k=3x3,s=2x2,pb=1x1,pe=2x2,bias=1,data=nxc",
        // ... with a last lane block of one vector (C a multiple of the lanes, not of the block: AVX-512's
        // 48 = 32 + 16, 80 = 2 x 32 + 16, 16 alone), read by the one-vector tile: the window prefetching
        // it, strided tiles with bias, a dilated tile of 25 taps
        "conv:n=2,c=48,o=48,g=48,in=5x9,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=2,c=80,o=80,g=80,in=7x11,k=3x3,s=2x2,pb=1x1,pe=2x2,bias=1,data=nxc",
        "conv:n=1,c=16,o=16,g=16,in=5x4,k=5x5,d=1x2,pb=2x4,pe=2x4,bias=1,data=nxc",
        // strided depthwise backward data (its own kernel) with a width stride that is not a power of two (its
        // taps found by division; strides of 2 and 4 by mask and shift), dilated, a crop on the right
        "conv:n=2,c=40,o=40,g=40,in=7x17,k=3x3,s=2x3,d=1x2,pb=1x2,pe=0x-1,data=nxc",
        "conv:n=1,c=16,o=16,g=16,in=6x19,k=3x5,s=1x4,pb=1x3,pe=1x2,data=nxc",
        // ... its runs of columns with the same taps: 5x5 (up to 9 taps, their weights read per column), 72
        // channels (AVX-512: a chunk of 4 vectors and 8 channels one at a time; AVX2: 4 chunks of 2 and a single
        // vector); a phase no tap reaches (k=2, s=3: zeros) beside runs of 1 and 2 taps; an input narrower than
        // the stride with fewer channels than a vector (no run, no full vector)
        "conv:n=2,c=72,o=72,g=72,in=9x23,k=5x5,s=2x2,pb=2x2,pe=1x2,data=nxc",
        "conv:n=2,c=24,o=24,g=24,in=4x14,k=2x2,s=2x3,pb=0x1,pe=0x1,data=nxc",
        "conv:n=1,c=8,o=8,g=8,in=5x2,k=3x3,s=2x3,pb=1x2,pe=0x2,data=nxc",
        // the window over two lane blocks (AVX-512), the first prefetching the second's lines
        "conv:n=2,c=64,o=64,g=64,in=5x9,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=1,c=32,o=32,g=32,in=5x4,k=5x5,d=1x2,pb=2x4,pe=2x4,bias=1,data=nxc",
        "conv:n=2,c=8,o=8,g=8,in=9x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=2,c=8,o=8,g=8,in=5x12,k=3x3,s=1x2,pb=0x2,pe=1x1,data=nxc",
        // ... and with crops: x wholly outside the padded row, cropped on both sides (wider than the
        // padded row)
        "conv:n=2,c=32,o=32,g=32,in=4x3,k=3x3,pb=1x5,pe=1x-4,bias=1,data=nxc",
        "conv:n=2,c=32,o=32,g=32,in=5x12,k=3x3,s=1x2,pb=1x-3,pe=0x-4,bias=1,data=nxc",
        "conv:n=1,c=8,o=8,g=8,in=4x9,k=3x3,pb=1x-2,pe=1x-1,data=nxc",
        // backward data's pointwise kernel with AVX-512 tiles of 3 vectors x 8 pixels (c = 136: three super
        // blocks, the last partial) and 4 vectors x 6 pixels (c = 120: two, the last partial); 140 pixels: a
        // chunk of 96 and one ending in a partial tile
        "conv:n=2,c=136,o=20,in=7x10,k=1x1,bias=1,data=nxc",
        "conv:n=2,c=120,o=24,in=7x10,k=1x1,data=nxc",
        // the row kernel (one phase, one group, f32 channels last): rows of 7 with 3x3 padding (each tile
        // skips the border column's kw taps), a partial super block; rows cut in unequal tiles (23 = 6+6+6+5
        // or 8+8+7), 5x5 pads of 2 (two columns skipped), a dilation and no padding along the width (the
        // phase's pads of 2), 3-D and 1-D; rows narrower than the kernel (both ends skipped in one tile); a
        // crop whose phase skips 3 columns (declined: the blocked path)
        "conv:n=2,c=40,o=24,in=7x7,k=3x3,pb=1x1,pe=1x1,data=nxc",
        "conv:n=1,c=64,o=20,in=5x23,k=3x3,pb=1x1,pe=1x1,data=nxc,wei=xio",
        "conv:n=1,c=48,o=17,in=6x23,k=3x5,pb=0x2,pe=2x2,data=nxc",
        "conv:n=2,c=32,o=16,in=9x12,k=3x3,d=2x1,pb=2x0,pe=1x0,data=nxc",
        "conv:n=2,c=32,o=16,in=9x12,k=3x3,d=2x1,pb=2x-1,pe=1x1,data=nxc",
        "conv:n=1,c=20,o=8,in=3x4x9,k=2x3x3,pb=1x1x1,pe=0x1x1,data=nxc",
        "conv:n=2,c=18,o=10,in=19,k=5,pb=2,pe=2,data=nxc",
        "conv:n=1,c=16,o=8,in=4x2,k=3x3,pb=1x1,pe=1x1,data=nxc",
        // backward weights reading diff_dst in place (every lane block whole), two groups of 32 (or 64)
        // output channels: group 1 reads at its channel offset; 1x1 stride 1 (x steps evenly) and 3x3
        "conv:n=2,c=6,o=64,g=2,in=5x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=2,c=10,o=128,g=2,in=6x5,k=1x1,bias=1,data=nxc",
        // the last tile of fewer rows computed as a tile of 2, 4 or 8 (AVX-512 tiles of 6 and 14 rows, AVX2
        // 6): 64 rows (a tail of 4) and 16 (2, AVX2 4) read in place, 1x1 stride 1; a 7x7 layer's 147 rows
        // (a tail of 3, packed into a tile of 4)
        "conv:n=2,c=64,o=64,in=6x7,k=1x1,bias=1,data=nxc",
        "conv:n=2,c=16,o=16,in=5x6,k=1x1,data=nxc",
        "conv:n=1,c=3,o=64,in=15x15,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc",
        // whole lane blocks, but diff_dst's pixels over 2 KB apart (576 channels): packed
        "conv:n=2,c=5,o=576,in=4x5,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        // ... over several phases, each written at x = r + S*j: 3x3 stride 2 (phases of 1, 2 and 4 taps),
        // 1x1 stride 2 (three phases of zeros), stride 3 past a 2x2 kernel, 3-D with strides 2x1x2
        "conv:n=2,c=24,o=20,in=11x13,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc",
        "conv:n=2,c=20,o=36,in=9x10,k=1x1,s=2x2,data=nxc",
        "conv:n=1,c=18,o=8,in=10x11,k=2x2,s=3x3,pb=0x1,pe=1x0,data=nxc",
        "conv:n=1,c=17,o=9,in=5x7x8,k=3x3x3,s=2x1x2,pb=1x1x1,pe=1x1x1,data=nxc",
        // backward weights into an f32 XIO diff_weights (one group: the gradient's own layout), written
        // there by the kernels (one part) or by the sum of three parts, the bias' sums beside
        "conv:n=2,c=8,o=24,in=20x20,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio",
        "conv:n=1,c=8,o=24,in=7x9,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio",
        // backward weights on small padded planes: each tile skips the pixels where its taps read only
        // padding (runs of them per output row); 5 channels: every tile spans two taps; strided and dilated
        "conv:n=2,c=5,o=32,in=5x6,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=2,c=16,o=16,in=7x7,k=3x3,s=2x2,d=2x2,pb=2x1,pe=1x2,data=nxc",
        // ... reading the f32 channels-last src without a padded copy (32 input channels a group or more):
        // tiles over two taps (36 channels, tiles of 6 or 14 rows) packed at the pixels where one tap reads
        // padding; strided, dilated, 3-D, two groups
        "conv:n=2,c=36,o=20,in=9x10,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=1,c=32,o=16,in=4x5x6,k=3x3x3,d=1x2x1,pb=1x2x1,pe=1x1x2,data=nxc",
        "conv:n=2,c=64,o=32,g=2,in=6x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio",
        // a 1x1 layer whose diff_dst is packed (1040 channels: pixels 4 KB apart) over 1568 pixels: every lane
        // block in one item, two parts of 784 pixels (at least 768 a part) summed into the f32 XIO weights
        "conv:n=2,c=128,o=1040,in=28x28,k=1x1,bias=1,data=nxc,wei=xio",
        // 1x1 stride 1 with the pixels of x a multiple of 4 KB apart or of diff_dst 2 KB: with AVX2 each tile's x is
        // packed once a block, diff_dst packed too. 1024 channels (tiles of 12 rows for 40 lanes, the last of 4),
        // bias; two groups of 512 (24 lanes: tiles of 4 rows, group 1 at its channel offset); 512 output channels
        // (diff_dst 2 KB a pixel) over 480 pixels (several blocks, tiles of 6 rows, the last of 2)
        "conv:n=2,c=1024,o=40,in=5x6,k=1x1,bias=1,data=nxc",
        "conv:n=1,c=1024,o=48,g=2,in=7x6,k=1x1,data=nxc",
        "conv:n=2,c=128,o=512,in=16x15,k=1x1,bias=1,data=nxc,wei=xio",
        // ... with a stride (x's pixels at their own offsets; 256 channels: 2 KB a pixel apart)
        "conv:n=2,c=256,o=512,in=9x8,k=1x1,s=2x2,bias=1,data=nxc",
        // a 3x3 layer whose pixels of x along the width and of diff_dst are each a multiple of 1 KB apart: with AVX2
        // every tile's x is packed a block at a time, zeros where its tap reads padding, and diff_dst too. Stride 2
        // (x 2 KB a pixel) with bias; two groups of 256 over 512 channels; a crop (x read from the padded copy)
        "conv:n=2,c=256,o=256,in=6x7,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=1,c=512,o=512,g=2,in=4x5,k=3x3,pb=1x1,pe=1x1,data=nxc",
        "conv:n=1,c=256,o=256,in=5x6,k=3x3,pb=1x-1,pe=1x1,bias=1,data=nxc",
    };
    for (const char* text : cases)
        for (const Pass pass : {Pass::backward_data, Pass::backward_weights}) {
            ConvDescriptor d = parse_descriptor(text);
            d.pass = pass;
            // the reference's gradients once per case, for every path
            const Expected bound = bound_case(d, 11);
            const std::optional<Expected> exact_data = exact_case(d, 11);
            for (const Path path : backward_paths(d)) {
                EXPECT_TRUE(within_bound(d, bound, 11, path, 2));
                EXPECT_TRUE(exact(d, exact_data, 11, path, 2));
            }
        }
}

// Backward data written past the streaming bound (Options::stream_nxc_output_above, 1 byte here) by non-temporal
// stores: the 1x1 kernel's full tiles; with a stride the row kernel's full tiles and the zeros of the phases no tap
// reaches. Exact on integer data and the same bits as stored plainly, at 1 and 2 threads, into a diff_src that held
// NaNs before (every element written). 88 input channels: the last super block of each pixel is partial (40 of 48
// lanes with AVX-512, 24 of 32 with AVX2) and keeps the plain store, as does the 1x1 kernel's last tile of 798 pixels;
// 87: pixels of zeros that start and end off a 16-byte boundary. The strided depthwise kernel's runs of columns:
// 64 channels (every pixel's lines whole) and 84 (pixels 336 bytes apart: whatever the buffer's alignment, some
// pixels' vectors start on theirs and are streamed, the others are stored plainly; AVX-512's last single vector
// streamed, AVX2's, half a line, stored plainly).
TEST(Backward, DataStreamedPastTheBoundIsExactAndTheSameBits) {
    for (const char* text : {"conv:n=2,c=88,o=24,in=19x21,k=1x1,data=nxc,wei=xio",
                             "conv:n=2,c=88,o=24,in=19x21,k=1x1,s=2x2,data=nxc,wei=xio",
                             "conv:n=2,c=87,o=24,in=19x21,k=1x1,s=2x2,data=nxc,wei=xio",
                             "conv:n=2,c=64,o=64,g=64,in=10x13,k=3x3,s=2x2,pb=0x0,pe=1x1,data=nxc",
                             "conv:n=2,c=84,o=84,g=84,in=9x21,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc"}) {
        ConvDescriptor d = parse_descriptor(text);
        d.pass = Pass::backward_data;
        const std::optional<Expected> e = exact_case(d, 23);
        ASSERT_TRUE(e.has_value()) << text;
        for (const Path path : backward_paths(d))
            for (const int threads : {1, 2}) {
                Options streamed{threads, path}, plain{threads, path};
                streamed.stream_nxc_output_above = 1;
                plain.stream_large_output = false;
                const Gradients a = run_backward(d, e->data, streamed), b = run_backward(d, e->data, plain);
                const accuracy::Comparison r = accuracy::compare_exact(e->want.values, a.values);
                EXPECT_TRUE(r.passed()) << backward_reproducer(d, path, 23, threads) << " streamed: " << r.mismatches
                                        << " elements differ, first at " << r.first_mismatch;
                EXPECT_EQ(std::memcmp(a.raw.data(), b.raw.data(), a.raw.bytes()), 0)
                    << backward_reproducer(d, path, 23, threads) << ": streamed and stored plainly differ";
            }
    }
}

TEST(Backward, DeclinesWhatItDoesNotTakeWithAReason) {
    ConvDescriptor d = parse_descriptor("conv:c=2,o=2,in=3000x3000,k=1x1,s=3000x3000");
    d.input_size = {3000, 3000, 1};
    d.pass = Pass::backward_data;
    // one output per axis: the strides are never used, one phase
    EXPECT_EQ(why_backward_unsupported(d), "");
    d = parse_descriptor("conv:c=2,o=2,in=64x64,k=1x1,s=40x40,dir=bwd_d");
    EXPECT_NE(why_backward_unsupported(d).find("phases exceed"), std::string::npos) << why_backward_unsupported(d);
    std::vector<float> w(d.weights_elements(), 1.0f);
    EXPECT_THROW(BackwardDataPlan(d, w.data()), ConvError);
    d = parse_descriptor("conv:c=2,o=2,in=4x4,k=1x1,wei=oxi,dir=bwd_w");
    EXPECT_NE(why_backward_unsupported(d), "");
    EXPECT_THROW(BackwardWeightsPlan(d, {}), ConvError);
    d = parse_descriptor("conv:c=2,o=2,in=4x4,k=1x1,dir=bwd_w");
    EXPECT_THROW(BackwardWeightsPlan(d, Options{0, Path::gemm_1x1}), ConvError);
}
