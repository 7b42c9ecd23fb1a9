// Timing the optimized discrete convolution and CC layer on random data (bench_table.cpp, cc_torch_table.cpp,
// cc_backward_table.cpp, conv_bench.cpp).
#pragma once

#include <cstddef>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/cache_line_allocator.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/optimized/cc_backward_plan.hpp"
#include "convcheck/optimized/cc_plan.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "timing.hpp"

namespace convcheck::bench {

// Storage aligned to a cache line (64 bytes), as frameworks hand tensors over: dw192@28 took 0.045 ms on
// std::vector's storage (16 bytes past a line) against 0.027 ms aligned (bench/results/forward-threads.md).
using AlignedFloats = CacheLineFloats;

// A convolution's buffers, 64-byte aligned, uniform in [-1, 1) from a fixed seed (dst zero).
struct ConvData {
    explicit ConvData(const ConvDescriptor& d)
        : src(d.src_elements()), weights(d.weights_elements()), bias(d.out_channels), dst(d.dst_elements()) {
        std::mt19937 rng(1);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        for (auto* v : {&src, &weights, &bias})
            for (auto& x : *v) x = u(rng);
    }
    AlignedFloats src, weights, bias, dst;
};

struct Ours {
    double ms = 0;
    std::string path;  // ConvPlan::implementation(): the path and its kernel
};

// The optimized plan of d on random data (with bias), its minimum time.
inline Ours time_ours(const ConvDescriptor& d, int threads, double min_seconds) {
    ConvData data(d);
    const optimized::ConvPlan plan(d, data.weights.data(), data.bias.data(),
                                   optimized::Options{threads, optimized::Path::automatic});
    Ours o;
    o.path = plan.implementation();
    o.ms = min_time_ms([&] { plan.execute(data.src.data(), data.dst.data()); }, min_seconds, threads);
    return o;
}

// The CC layer of the paper's tables (seed 004: 32 -> 32 channels, 3x3 support; the Internal-Net 16x16 unless
// `rest` names a kernel) with batch n; rest: its scale and input ("scale=2/3,in=64x64", ...).
inline CcDescriptor paper_cc_layer(int n, const std::string& rest, bool bias = false) {
    return parse_cc_descriptor("cc:n=" + std::to_string(n) + ",cin=32,cout=32,support=3x3," + (bias ? "bias=1," : "") +
                               rest);
}
// Its scales and inputs in the CC backward and paper tables: rational 2/3 and 2, and the real 0.7071.
inline const std::vector<std::string>& paper_cc_scales() {
    static const std::vector<std::string> scales = {"scale=2/3,in=64x64", "scale=2,in=32x32", "scale=0.7071,in=64x64"};
    return scales;
}

// A CC layer's buffers, forward and backward: src, theta, bias and diff_dst uniform in [-0.3, 0.3) from a fixed
// seed, the outputs zero. The pointers a plan takes are null where the layer has no such tensor (theta and
// diff_theta for an analytic kernel, bias and diff_bias without bias).
struct CcData {
    explicit CcData(const CcDescriptor& d)
        : src(d.src_elements()), theta(d.theta_elements()), bias(d.out_channels), diff_dst(d.dst_elements()),
          dst(d.dst_elements()), diff_src(d.src_elements()), diff_theta(d.theta_elements()), diff_bias(d.out_channels),
          net(d.kernel == CcKernel::internal_net), has_bias(d.has_bias) {
        std::mt19937 rng(1);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        for (auto* v : {&src, &theta, &bias, &diff_dst})
            for (auto& x : *v) x = u(rng) * 0.3f;
    }
    const float* theta_in() const { return net ? theta.data() : nullptr; }
    const float* bias_in() const { return has_bias ? bias.data() : nullptr; }
    float* diff_theta_out() { return net ? diff_theta.data() : nullptr; }
    float* diff_bias_out() { return has_bias ? diff_bias.data() : nullptr; }

    std::vector<float> src, theta, bias, diff_dst;       // in
    std::vector<float> dst, diff_src, diff_theta, diff_bias;  // out
    bool net, has_bias;
};

// One training step of the optimized CC: theta changes every step, so both plans are made from it (the
// polyphase method evaluates its weights there), then the forward (dst) and the backward (the gradients).
inline void ours_cc_step(const CcDescriptor& d, CcData& x, int threads) {
    const optimized::CcPlan forward(d, x.theta_in(), x.bias_in(), optimized::CcOptions{threads});
    forward.execute(x.src.data(), x.dst.data());
    const optimized::CcBackwardPlan backward(d, x.theta_in(), optimized::CcOptions{threads});
    backward.execute(x.src.data(), x.diff_dst.data(), x.diff_src.data(), x.diff_theta_out(), x.diff_bias_out());
}

struct OursCc {
    double ms = 0;
    std::string method;
    double workspace_per_output = 0;  // peak workspace bytes / the output tensor's bytes
};

// The optimized CC plan of d on CcData, its minimum time (the plan made once, outside the timing).
inline OursCc time_ours_cc(const CcDescriptor& d, int threads, double min_seconds) {
    CcData x(d);
    const optimized::CcPlan plan(d, x.theta_in(), x.bias_in(), optimized::CcOptions{threads});
    OursCc o;
    o.ms = min_time_ms([&] { plan.execute(x.src.data(), x.dst.data()); }, min_seconds, threads);
    o.method = std::string(optimized::to_string(plan.method()));
    o.workspace_per_output = double(plan.peak_workspace_bytes()) / double(d.dst_elements() * 4);
    return o;
}

// The discrete convolution a CC layer is compared with: 3x3, pads 1, the CC's channels and output size, NCHW.
inline ConvDescriptor conv_like_cc(const CcDescriptor& d) {
    return parse_descriptor("conv:n=" + std::to_string(d.batch) + ",c=" + std::to_string(d.in_channels) +
                            ",o=" + std::to_string(d.out_channels) + ",in=" + std::to_string(d.output_size[0]) + "x" +
                            std::to_string(d.output_size[1]) + ",k=3x3,pb=1x1,pe=1x1,data=ncx,wei=oix");
}

}  // namespace convcheck::bench
