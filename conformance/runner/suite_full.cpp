// The full suite: a fixed sweep of 600 random small descriptors (plus the families of smoke's
// designed cases, below), stratified: each attribute of
// suite_design.hpp takes its values at the shares below, so that the rare values real backends
// decline (negative pads, kernels beyond the input, strides beyond the kernel) get a stated share
// instead of most of the suite. `convcheck list --suite full` prints the resulting distribution.
// The generator is seeded with a constant, so the suite is the same list everywhere; the run seed
// only varies the data. The backward passes (docs/passes.md) are appended after the forward cases, so
// that every forward case keeps its id and seed: 75 backward data and 75 backward weights descriptors
// drawn at the same shares, 10% each of the 750 descriptors of the random sweep; then 40 transposed
// convolutions, the transposes of forward descriptors drawn at the same shares, 8 backward channel tails, and
// 60 quantized convolutions on the sweep's geometry.
#include <algorithm>
#include <cmath>
#include <random>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"
#include "convcheck/runner/backward_terms.hpp"

#include "convcheck/runner/suite_design.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

namespace {

// Percent per value, in design_factors() order.
const std::vector<std::vector<int>> kShares = {
    {30, 45, 25},      // rank 1, 2, 3
    {55, 20, 15, 10},  // groups: plain, grouped, depthwise, depthwise multiplier
    {75, 25},          // dilation: dense, dilated
    {45, 45, 10},      // stride: unit, strided, beyond the kernel
    {25, 35, 30, 10},  // pads: none, symmetric, asymmetric, negative
    {93, 7},           // kernel: inside the input, beyond it
    {25, 25, 25, 25},  // layout: ncx/oix, ncx/xio, nxc/oix, nxc/xio
    {50, 25, 25},      // dtype: f32, f16, bf16
    {50, 50},          // bias: 0, 1
};

// One feasible set of attribute values, each drawn at its share (infeasible draws are drawn again).
Attributes draw(std::mt19937_64& rng) {
    Attributes a{};
    do {
        for (int f = 0; f < kFactors; ++f) {
            std::discrete_distribution<int> share(kShares[f].begin(), kShares[f].end());
            a[f] = share(rng);
        }
    } while (!feasible(a));
    return a;
}

}  // namespace

std::vector<SuiteEntry> full_suite() {
    std::mt19937_64 rng(20261122);
    std::vector<SuiteEntry> entries;
    const char* modes[] = {"bep", "be", "bp", "b"};
    for (int i = 0; i < 600; ++i) {
        Attributes a = draw(rng);
        entries.push_back({to_string(realize(a, rng)), modes[i % 4], "random/" + std::to_string(i)});
    }
    // The families of smoke's designed cases on random geometry: 16 channel tails (every block size
    // 8..256 leaves one) and 60 special exact-mode fills (ties and overflow on 16-bit outputs,
    // subnormals on every dtype).
    const std::int64_t tails[] = {9, 17, 33, 65, 129, 257, 200, 300};
    for (int i = 0; i < 16; ++i) {
        Attributes a{};
        a = {i % 3, 0, i % 2, i % 3 == 2 ? 1 : 0, 1 + i % 3, 0, i % 4, 0, i % 2};
        ConvDescriptor d = realize(a, rng);
        d.in_channels = tails[i % 8];
        validate(d);
        entries.push_back({to_string(d), "be", "tail/" + std::to_string(i)});
    }
    const accuracy::Fill fills[] = {accuracy::Fill::ties, accuracy::Fill::overflow, accuracy::Fill::subnormal};
    for (int i = 0; i < 60; ++i) {
        Attributes a = draw(rng);
        const accuracy::Fill fill = fills[i % 3];
        a[7] = fill == accuracy::Fill::subnormal ? i % 3 : 1 + i % 2;  // dtype: f16/bf16 for ties and overflow
        entries.push_back({to_string(realize(a, rng)), "e", "fill/" + std::to_string(i), fill});
    }
    // The backward passes, alternately data and weights, in the random sweep's modes (bound, exact, probe:
    // the modes a backward pass has). Exact mode only where it can hold the pass's longest sum in the dtype
    // (backward_max_terms < 2^p); otherwise the reference would decline it. No special fills: they are
    // forward-pass data.
    for (int i = 0; i < 150; ++i) {
        Attributes a = draw(rng);
        ConvDescriptor d = realize(a, rng);
        d.pass = i % 2 == 0 ? Pass::backward_data : Pass::backward_weights;
        std::string m = modes[(i / 2) % 4];
        if (double(backward_max_terms(d)) >= std::ldexp(1.0, accuracy::significand_bits(d.dtype)))
            m.erase(std::remove(m.begin(), m.end(), 'e'), m.end());
        entries.push_back({to_string(d), m, std::string(i % 2 == 0 ? "bwd_d/" : "bwd_w/") + std::to_string(i / 2)});
    }
    // Transposed convolution (docs/transposed.md): 40 descriptors, each the transpose of a forward one drawn at
    // the same shares (its output padding the remainder the forward's stride leaves, so that its output has the
    // forward's input size), in the sweep's mode cycle; exact mode only where the backward data pass it computes
    // holds its longest sum (and the bias) in the dtype. Appended, so every earlier case keeps its id and seed.
    for (int i = 0; i < 40; ++i) {
        const ConvDescriptor f = realize(draw(rng), rng);
        TransposedDescriptor t;
        t.rank = f.rank, t.batch = f.batch, t.in_channels = f.out_channels, t.out_channels = f.in_channels;
        t.groups = f.groups, t.has_bias = f.has_bias, t.dtype = f.dtype;
        t.data_format = f.data_format, t.filter_format = f.filter_format;
        for (int a = 0; a < f.rank; ++a) {
            t.input_size[a] = f.output_size(a), t.kernel_size[a] = f.kernel_size[a], t.strides[a] = f.strides[a];
            t.dilations[a] = f.dilations[a], t.pads_begin[a] = f.pads_begin[a], t.pads_end[a] = f.pads_end[a];
            t.output_padding[a] = (f.input_size[a] + f.pads_begin[a] + f.pads_end[a] - f.dilated_kernel(a)) % f.strides[a];
        }
        validate(t);
        ConvDescriptor data = t.forward();
        data.pass = Pass::backward_data;
        std::string m = modes[i % 4];
        if (double(backward_max_terms(data)) + 1.0 >= std::ldexp(1.0, accuracy::significand_bits(t.dtype)))
            m.erase(std::remove(m.begin(), m.end(), 'e'), m.end());
        entries.push_back({to_string(t), m, "deconv/" + std::to_string(i)});
    }
    // Channel tails of the backward passes (a vector loop's last partial block dropped): backward data summing 9,
    // 17, 33 and 65 output channels, backward weights over as many input channels, on the forward tails' geometry;
    // exact mode where the pass's longest sum fits the dtype. Appended last.
    const std::int64_t backward_tails[] = {9, 17, 33, 65};
    for (int i = 0; i < 8; ++i) {
        const Attributes a = {i % 3, 0, i % 2, i % 3 == 2 ? 1 : 0, 1 + i % 3, 0, i % 4, 0, i % 2};
        ConvDescriptor d = realize(a, rng);
        d.pass = i % 2 == 0 ? Pass::backward_data : Pass::backward_weights;
        (d.pass == Pass::backward_data ? d.out_channels : d.in_channels) = backward_tails[i / 2];
        validate(d);
        std::string m = "be";
        if (double(backward_max_terms(d)) >= std::ldexp(1.0, accuracy::significand_bits(d.dtype))) m = "b";
        entries.push_back({to_string(d), m, std::string(i % 2 == 0 ? "bwd_d_tail/" : "bwd_w_tail/") + std::to_string(i / 2)});
    }
    // Quantized convolution (docs/quantized.md): 60 forward descriptors on the sweep's geometry, each with drawn
    // integer types (src u8 or s8; weights s8 three times in four, else u8; dst u8, s8 or s32 in turn), zero points
    // (none in a third of the draws), dyadic scales (so exact mode holds every rule) per tensor or, every other
    // case, per output channel, and a fused activation's range every fifth; exact mode, every third also bound;
    // every fourth filled near the zero points (fill=ties, exact mode only). A draw whose sums could leave s32 is drawn again.
    // Appended last.
    const IntegerType dsts[] = {IntegerType::u8, IntegerType::s8, IntegerType::s32};
    for (int i = 0; i < 60;) {
        QuantizedDescriptor q;
        q.conv = realize(draw(rng), rng);
        q.conv.dtype = DataType::f32;
        std::uniform_int_distribution<int> coin(0, 3);
        q.src = coin(rng) % 2 ? IntegerType::u8 : IntegerType::s8;
        q.weights = coin(rng) == 0 ? IntegerType::u8 : IntegerType::s8;
        q.dst = dsts[i % 3];
        const auto zero_point = [&](IntegerType t) {
            return static_cast<std::int32_t>(coin(rng) < 1 ? 0 : std::uniform_int_distribution<std::int64_t>(lowest(t), highest(t))(rng));
        };
        q.src_zero_point = zero_point(q.src), q.weights_zero_point = zero_point(q.weights);
        q.dst_min = lowest(q.dst), q.dst_max = highest(q.dst);
        if (q.dst != IntegerType::s32) {
            q.src_scale = std::ldexp(1.0f, -std::uniform_int_distribution<int>(0, 3)(rng));
            q.weights_scale = std::ldexp(1.0f, -std::uniform_int_distribution<int>(0, 4)(rng));
            q.per_channel_scales = i % 2 == 1;
            q.dst_scale = std::ldexp(1.0f, std::uniform_int_distribution<int>(2, 9)(rng));
            q.dst_zero_point = zero_point(q.dst);
            if (i % 5 == 0) q.dst_min = std::max<std::int64_t>(q.dst_zero_point, lowest(q.dst)), q.dst_max = q.dst_min + 100;
            q.dst_max = std::min(q.dst_max, highest(q.dst));
        }
        try {
            validate(q);
        } catch (const ConvError&) {
            continue;  // sums that could leave s32
        }
        const bool ties = i % 4 == 3;  // exact-mode data only
        entries.push_back({to_string(q), i % 3 == 0 && !ties ? "be" : "e", "quantized/" + std::to_string(i),
                           ties ? accuracy::Fill::ties : accuracy::Fill::standard});
        ++i;
    }
    return entries;
}

}  // namespace convcheck::runner
